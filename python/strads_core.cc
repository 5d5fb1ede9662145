// strads._core: the Python binding of the C++ core (pybind11), the one translation unit the
// package compiles. It exposes what the pure-Python package (python/strads/) builds on:
//   - parse_job_spec / run: a job of any registered app from CLI-style words (engine/job_spec.h,
//     so flags, defaults and validation are exactly the CLI's), run on an embedded cluster
//     (cli/embedded_cluster.h) with the GIL released; results come back as the job's info and its
//     result files in memory. Numpy and scipy.sparse buffers go to the members in memory
//     (`matrices`, named by --data memory:NAME; common/memory_matrix.h), read where they are;
//   - RemoteClient: the CLI's verbs against a coordinator daemon (cli/remote_coordinator.h);
//   - write_coordinate / write_labels: data files for the members, written here (fast, and
//     exactly: every double in its shortest round-trip form).
// Errors are Python exceptions carrying the CLI's messages: ValueError for what the CLI calls a
// usage error (exit 2), JobFailed for a failed or cancelled job (exit 1 / 5), ConnectionError for
// an unreachable coordinator (exit 3). Ctrl-C while a job runs (a pending KeyboardInterrupt, or
// any exception raised by the progress callback) cancels the job, waits for it to stop, and then
// raises that exception.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "apps/builtin_apps.h"
#include "cli/client.h"
#include "cli/client_keys.h"
#include "cli/embedded_cluster.h"
#include "cli/remote_coordinator.h"
#include "cli/status_view.h"
#include "common/memory_matrix.h"
#include "common/protocol.h"
#include "engine/job_spec.h"

namespace py = pybind11;
using namespace strads;

namespace {

PyObject* g_job_failed = nullptr;  // strads._core.JobFailed, created at import

const AppRegistry& Apps() {
  static const AppRegistry apps = BuiltinApps();
  return apps;
}

py::dict InfoToDict(const proto::JobInfo& j) {
  py::dict d;
  d["job_id"] = j.job_id();
  d["app"] = j.app();
  d["state"] = JobStateName(j.state());
  d["round"] = j.round();
  d["updates"] = j.updates();
  d["objective"] = j.objective();
  d["objective_name"] = j.objective_name().empty() ? "objective" : j.objective_name();
  d["updates_per_s"] = j.updates_per_s();
  d["seconds"] = j.seconds();
  d["converged"] = j.converged();
  d["violation"] = j.violation();
  d["iteration"] = j.iteration();
  d["iterations"] = j.spec().has_static_engine() ? j.spec().static_engine().iterations() : 0;
  d["imbalance"] = j.imbalance();
  d["work_unit"] = j.work_unit().empty() ? "updates" : j.work_unit();
  d["error"] = j.error();
  d["description"] = DescribeJob(j);
  return d;
}

// The job's info and files; JobFailed unless it succeeded.
py::dict ResultToDict(const proto::ResultReply& reply) {
  const auto& info = reply.job();
  if (info.state() != proto::JOB_SUCCEEDED) {
    PyErr_SetString(g_job_failed, DescribeJob(info).c_str());
    throw py::error_already_set();
  }
  py::dict files;
  for (const auto& f : reply.files()) files[py::str(f.name())] = py::bytes(f.content());
  py::dict d;
  d["info"] = InfoToDict(info);
  d["files"] = files;
  return d;
}

proto::JobSpec ParseSpec(const std::string& app, const std::vector<std::string>& args) {
  boost::program_options::options_description none;
  boost::program_options::variables_map unused;
  auto spec = ParseJobSpec(Apps(), app, args, none, &unused);
  if (!spec.ok()) throw py::value_error(spec.status().message());
  return *spec;
}

// Follows job `id` through `client` with the GIL released, calling `progress` (may be None) with
// the job's info dict about every 200 ms. When a signal handler (Ctrl-C) or `progress` raises,
// calls `cancel` (GIL released), follows the job to its end and rethrows. Returns the final info.
template <typename CancelFn>
proto::JobInfo FollowJob(Client& client, uint64_t id, const py::object& progress, CancelFn cancel) {
  std::atomic<bool> interrupt{false};
  std::optional<py::error_already_set> raised;
  auto on_update = [&](const proto::JobInfo& info) {
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) progress(InfoToDict(info));
    } catch (py::error_already_set& e) {
      raised.emplace(std::move(e));
      interrupt = true;
    }
  };
  Result<proto::JobInfo> info = Status::Internal("not followed");
  {
    py::gil_scoped_release release;
    info = client.Follow(id, interrupt, on_update);
    if (!info.ok() && info.status().code() == StatusCode::kCancelled) {
      cancel();
      std::atomic<bool> never{false};
      info = client.Follow(id, never, [](const proto::JobInfo&) {});
    }
  }
  if (raised) throw std::move(*raised);
  if (!info.ok()) {
    if (info.status().code() == StatusCode::kUnavailable) {
      PyErr_SetString(PyExc_ConnectionError, info.status().message().c_str());
      throw py::error_already_set();
    }
    throw py::value_error(info.status().message());
  }
  return *info;
}

[[noreturn]] void ThrowUnreachable(const Status& st, const std::string& endpoint) {
  const std::string message = UnreachableMessage(
      st, endpoint, "strads.Client(\"tcp://HOST:PORT\"), an estimator's coordinator=");
  PyErr_SetString(PyExc_ConnectionError, message.c_str());
  throw py::error_already_set();
}

Status SendCancel(Client& client, const std::string& sender, uint64_t id) {
  auto req = MakeEnvelope(sender, id);
  req.mutable_cancel();
  auto reply = client.Call(req);
  return reply.ok() ? Status::Ok() : reply.status();
}

template <class T>
using CArray = py::array_t<T, py::array::c_style | py::array::forcecast>;

// A view of `a`'s values as a C-contiguous T array (converted if it is not one: the converted
// array joins `keep`, which must outlive the view).
template <class T>
std::span<const T> ViewOf(const py::handle& a, std::vector<py::object>& keep) {
  auto array = CArray<T>::ensure(a);
  if (!array) throw py::error_already_set();
  keep.push_back(array);
  return {array.data(), static_cast<size_t>(array.size())};
}

MemoryMatrix::Indices IndicesOf(const py::handle& a, std::vector<py::object>& keep) {
  if (py::isinstance<py::array_t<int32_t>>(a)) return ViewOf<int32_t>(a, keep);
  return ViewOf<int64_t>(a, keep);
}

// The matrices of run's `matrices`: name -> (layout, rows, cols, values, starts, indices, labels)
// with layout "dense_c" (values row-major), "dense_f" (column-major), "csr" or "csc" (starts and
// indices as scipy's indptr and indices, 32- or 64-bit; None for a dense layout). Views, whose
// arrays join `keep`; ValueError for a malformed one (CheckMemoryMatrix's message).
std::shared_ptr<const MemoryData> MatricesOf(const py::dict& matrices,
                                             std::vector<py::object>& keep) {
  static const std::map<std::string, MemoryMatrix::Layout> kLayouts = {
      {"dense_c", MemoryMatrix::Layout::kDenseRowMajor},
      {"dense_f", MemoryMatrix::Layout::kDenseColMajor},
      {"csr", MemoryMatrix::Layout::kCsr},
      {"csc", MemoryMatrix::Layout::kCsc}};
  std::vector<std::shared_ptr<const MemoryMatrix>> out;
  for (const auto& [key, value] : matrices) {
    auto t = value.cast<py::tuple>();
    if (t.size() != 7)
      throw py::value_error(
          "a matrix is (layout, rows, cols, values, starts, "
          "indices, labels)");
    auto m = std::make_shared<MemoryMatrix>();
    m->name = key.cast<std::string>();
    auto layout = kLayouts.find(t[0].cast<std::string>());
    if (layout == kLayouts.end())
      throw py::value_error("unknown layout " + t[0].cast<std::string>());
    m->layout = layout->second;
    m->rows = t[1].cast<uint64_t>();
    m->cols = t[2].cast<uint64_t>();
    m->values = ViewOf<double>(t[3], keep);
    if (!t[4].is_none()) m->starts = IndicesOf(t[4], keep);
    if (!t[5].is_none()) m->indices = IndicesOf(t[5], keep);
    m->labels = ViewOf<double>(t[6], keep);
    if (Status st = CheckMemoryMatrix(*m); !st.ok()) throw py::value_error(st.message());
    out.push_back(std::move(m));
  }
  return std::make_shared<const MemoryData>(std::move(out));
}

// Runs a job on an embedded cluster of `schedulers` schedulers and `workers` workers, whose
// members read `matrices` (MatricesOf) in memory.
py::dict Run(const std::string& app, const std::vector<std::string>& args, uint32_t schedulers,
             uint32_t workers, const py::object& progress, const std::string& log_level,
             double timeout_s, const py::dict& matrices) {
  std::vector<py::object> keep;  // the arrays `memory` views: destroyed after the cluster
  std::shared_ptr<const MemoryData> memory = MatricesOf(matrices, keep);
  proto::JobSpec spec = ParseSpec(app, args);
  if (spec.schedulers()) schedulers = spec.schedulers();
  if (spec.workers()) workers = spec.workers();
  CoordinatorOptions options;
  options.register_timeout_s = 10;
  std::unique_ptr<EmbeddedCluster> cluster;
  std::unique_ptr<InProcTransport> transport;
  std::unique_ptr<Client> client;
  uint64_t id = 0;
  Status submitted = Status::Ok();
  {
    py::gil_scoped_release release;
    cluster = std::make_unique<EmbeddedCluster>(schedulers, workers, options, log_level,
                                                FaultScript{}, std::move(memory));
    transport = std::make_unique<InProcTransport>(cluster->hub(), "python");
    client =
        std::make_unique<Client>(*transport, kCoordinatorId, kCoordinatorId,
                                 std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000)));
    auto req = MakeEnvelope("python");
    *req.mutable_submit()->mutable_spec() = spec;
    auto reply = client->Call(req);
    if (reply.ok())
      id = reply->submit_reply().job_id();
    else
      submitted = reply.status();
  }
  // Members stop and join in ~EmbeddedCluster: without the GIL, so their threads never wait on it.
  auto teardown = [&] {
    py::gil_scoped_release release;
    client.reset();
    transport.reset();
    cluster.reset();
  };
  try {
    if (!submitted.ok()) throw py::value_error(submitted.message());
    FollowJob(*client, id, progress, [&] { (void)SendCancel(*client, "python", id); });
    strads::Result<proto::ResultReply> reply = Status::Internal("no result");
    {
      py::gil_scoped_release release;
      reply = client->FetchResultReply(id);
    }
    if (!reply.ok()) throw py::value_error(reply.status().message());
    py::dict result = ResultToDict(*reply);
    teardown();
    return result;
  } catch (...) {
    teardown();
    throw;
  }
}

// The CLI's remote verbs over one ZeroMQ connection.
class RemoteClient {
 public:
  // Keys as the CLI's --client-key/--cluster-key (cli/client_keys.h): empty = the defaults.
  RemoteClient(const std::string& endpoint, double timeout_s, const std::string& client_key,
               const std::string& cluster_key)
      : endpoint_(endpoint) {
    ClientKeyPaths paths{client_key, cluster_key,
                         ClientConfigDir(std::getenv("XDG_CONFIG_HOME"), std::getenv("HOME"))};
    auto keys = LoadClientKeys(paths);
    if (!keys.ok()) throw py::value_error(keys.status().message());
    strads::Result<std::unique_ptr<RemoteCoordinator>> remote = Status::Internal("unset");
    {
      py::gil_scoped_release release;
      remote = ConnectCoordinator(endpoint, timeout_s, *keys);
    }
    if (remote.status().code() == StatusCode::kFailedPrecondition) {
      // The handshake refused this client's key or its lack of one (the CLI's exit 3).
      PyErr_SetString(PyExc_ConnectionRefusedError, remote.status().message().c_str());
      throw py::error_already_set();
    }
    if (!remote.ok()) Fail(remote.status());
    remote_ = std::move(*remote);
  }

  uint64_t Submit(const std::string& app, const std::vector<std::string>& args) {
    auto req = MakeEnvelope(remote_->transport->id());
    *req.mutable_submit()->mutable_spec() = ParseSpec(app, args);
    auto reply = Call(req, false);
    return reply.submit_reply().job_id();
  }

  std::string StatusJson() {
    ConnectStatus();
    strads::Result<proto::StatusReply> reply = Status::Internal("no reply");
    {
      py::gil_scoped_release release;
      reply = remote_->client->FetchStatus();
    }
    if (!reply.ok()) Fail(reply.status());
    return strads::StatusJson(*reply).dump();
  }

  std::string Cancel(uint64_t id) {
    auto req = MakeEnvelope(remote_->transport->id(), id);
    req.mutable_cancel();
    return JobStateName(Call(req, false).cancel_reply().state());
  }

  py::dict FetchResult(uint64_t id) {
    strads::Result<proto::ResultReply> reply = Status::Internal("no result");
    {
      py::gil_scoped_release release;
      reply = remote_->client->FetchResultReply(id);
    }
    if (!reply.ok()) Fail(reply.status());
    return ResultToDict(*reply);
  }

  // Waits for job `id` to end (progress as in run); Ctrl-C stops waiting (the job goes on unless
  // `cancel_on_interrupt`).
  py::dict Wait(uint64_t id, const py::object& progress, bool cancel_on_interrupt) {
    ConnectStatus();
    auto info = FollowJob(*remote_->client, id, progress, [&] {
      if (cancel_on_interrupt) (void)SendCancel(*remote_->client, remote_->transport->id(), id);
    });
    return InfoToDict(info);
  }

 private:
  [[noreturn]] void Fail(const Status& st) {
    if (st.code() == StatusCode::kUnavailable) ThrowUnreachable(st, endpoint_);
    throw py::value_error(st.message());
  }
  void ConnectStatus() {
    if (status_connected_) return;
    Status st = Status::Ok();
    {
      py::gil_scoped_release release;
      st = strads::ConnectStatus(*remote_);
    }
    if (!st.ok()) Fail(st);
    status_connected_ = true;
  }
  proto::Envelope Call(const proto::Envelope& req, bool to_status) {
    strads::Result<proto::Envelope> reply = Status::Internal("no reply");
    {
      py::gil_scoped_release release;
      reply = remote_->client->Call(req, to_status);
    }
    if (!reply.ok()) Fail(reply.status());
    return *reply;
  }

  std::string endpoint_;
  std::unique_ptr<RemoteCoordinator> remote_;
  bool status_connected_ = false;
};

// Writes a sparse matrix given as 0-based COO triplets: `kind` "mm" (MatrixMarket coordinate
// real) or "docword" (UCI bag of words: D, W, NNZ, then "doc word count" lines, counts integral).
void WriteCoordinate(const std::string& path, const std::string& kind, int64_t rows, int64_t cols,
                     py::array_t<int64_t, py::array::c_style | py::array::forcecast> row,
                     py::array_t<int64_t, py::array::c_style | py::array::forcecast> col,
                     py::array_t<double, py::array::c_style | py::array::forcecast> value) {
  if (kind != "mm" && kind != "docword") throw py::value_error("kind must be mm or docword");
  const auto n = static_cast<size_t>(value.size());
  if (static_cast<size_t>(row.size()) != n || static_cast<size_t>(col.size()) != n) {
    throw py::value_error("row, col and value must have the same length");
  }
  const int64_t* r = row.data();
  const int64_t* c = col.data();
  const double* v = value.data();
  py::gil_scoped_release release;
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) throw std::runtime_error("cannot write " + path);
  fmt::memory_buffer buf;
  if (kind == "mm") {
    fmt::format_to(std::back_inserter(buf), "%%MatrixMarket matrix coordinate real general\n");
    fmt::format_to(std::back_inserter(buf), "{} {} {}\n", rows, cols, n);
  } else {
    fmt::format_to(std::back_inserter(buf), "{}\n{}\n{}\n", rows, cols, n);
  }
  for (size_t i = 0; i < n; ++i) {
    if (kind == "mm") {
      fmt::format_to(std::back_inserter(buf), "{} {} {}\n", r[i] + 1, c[i] + 1, v[i]);
    } else {
      fmt::format_to(std::back_inserter(buf), "{} {} {}\n", r[i] + 1, c[i] + 1,
                     static_cast<int64_t>(v[i]));
    }
    if (buf.size() > (1 << 20)) {
      std::fwrite(buf.data(), 1, buf.size(), out.get());
      buf.clear();
    }
  }
  std::fwrite(buf.data(), 1, buf.size(), out.get());
  if (std::ferror(out.get())) throw std::runtime_error("cannot write " + path);
}

// One value per line, shortest round-trip form.
void WriteLabels(const std::string& path,
                 py::array_t<double, py::array::c_style | py::array::forcecast> y) {
  const double* v = y.data();
  const auto n = static_cast<size_t>(y.size());
  py::gil_scoped_release release;
  std::unique_ptr<FILE, int (*)(FILE*)> out(std::fopen(path.c_str(), "w"), &std::fclose);
  if (!out) throw std::runtime_error("cannot write " + path);
  fmt::memory_buffer buf;
  for (size_t i = 0; i < n; ++i) fmt::format_to(std::back_inserter(buf), "{}\n", v[i]);
  std::fwrite(buf.data(), 1, buf.size(), out.get());
  if (std::ferror(out.get())) throw std::runtime_error("cannot write " + path);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "The C++ core of STRADS (see the strads package for the Python API).";
  static py::exception<std::runtime_error> job_failed(m, "JobFailed", PyExc_RuntimeError);
  g_job_failed = job_failed.ptr();

  m.def(
      "apps",
      [] {
        std::vector<std::tuple<std::string, std::string, std::string>> out;
        for (const auto& app : Apps().apps()) {
          out.emplace_back(app->name(), EngineName(app->engine()), app->summary());
        }
        return out;
      },
      "The registered apps: (name, engine, summary) each.");
  m.def(
      "job_options_help",
      [](const std::string& app) {
        std::ostringstream text;
        text << JobOptionsDescription(Apps(), app);
        return text.str();
      },
      py::arg("app") = "", "The job options of `app`, as `strads run APP --help` lists them.");
  m.def(
      "parse_job_spec",
      [](const std::string& app, const std::vector<std::string>& args) {
        auto spec = ParseSpec(app, args);
        return std::map<std::string, std::string>(spec.flags().begin(), spec.flags().end());
      },
      py::arg("app"), py::arg("args"),
      "Parses and validates CLI-style job options (ValueError with the CLI's message); returns "
      "the flags as recorded.");
  m.def("run", &Run, py::arg("app"), py::arg("args"), py::arg("schedulers") = 1,
        py::arg("workers") = 2, py::arg("progress") = py::none(), py::arg("log_level") = "off",
        py::arg("timeout_s") = 5.0, py::arg("matrices") = py::dict(),
        "Runs a job on an embedded cluster, whose members read `matrices` (name -> (layout, rows, "
        "cols, values, starts, indices, labels)) as --data memory:NAME; returns {'info': dict, "
        "'files': {name: bytes}}.");
  py::class_<RemoteClient>(m, "RemoteClient")
      .def(py::init<const std::string&, double, const std::string&, const std::string&>(),
           py::arg("endpoint"), py::arg("timeout_s") = 5.0, py::arg("client_key") = "",
           py::arg("cluster_key") = "")
      .def("submit", &RemoteClient::Submit, py::arg("app"), py::arg("args"))
      .def("status_json", &RemoteClient::StatusJson)
      .def("cancel", &RemoteClient::Cancel, py::arg("job_id"))
      .def("result", &RemoteClient::FetchResult, py::arg("job_id"))
      .def("wait", &RemoteClient::Wait, py::arg("job_id"), py::arg("progress") = py::none(),
           py::arg("cancel_on_interrupt") = false);
  m.def("write_coordinate", &WriteCoordinate, py::arg("path"), py::arg("kind"), py::arg("rows"),
        py::arg("cols"), py::arg("row"), py::arg("col"), py::arg("value"));
  m.def("write_labels", &WriteLabels, py::arg("path"), py::arg("y"));
}
