#include "cli/client.h"

#include <unistd.h>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/fitted_line.h"
#include "cli/job_view.h"
#include "cli/terminal_width.h"
#include "common/atomic_file.h"
#include "common/protocol.h"
#include "common/wire_text.h"

namespace strads {

Client::Client(Transport& transport, std::string control, std::string status,
               std::chrono::milliseconds timeout)
    : transport_(transport),
      control_(std::move(control)),
      status_(std::move(status)),
      timeout_(timeout) {}

Result<proto::Envelope> Client::Call(proto::Envelope request, bool to_status) {
  request.set_version(kProtocolVersion);
  request.set_sender(transport_.id());
  const std::string& peer = to_status ? status_ : control_;
  if (Status st = transport_.Send(peer, request); !st.ok()) {
    return Status::Unavailable("coordinator unreachable: " + st.message());
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  while (std::chrono::steady_clock::now() < deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    auto reply = transport_.Receive(std::max(left, std::chrono::milliseconds(1)));
    if (!reply) break;
    if (reply->body_case() == proto::Envelope::kProgress) continue;  // a stream message
    if (reply->body_case() == proto::Envelope::kError) {
      if (reply->error().kind() == proto::ERROR_KIND_STORAGE) {
        return Status::IoError(reply->error().message());
      }
      return Status::InvalidArgument(reply->error().message());
    }
    return *reply;
  }
  return Status::Unavailable(
      fmt::format("coordinator unreachable: no answer within {} ms", timeout_.count()));
}

Result<proto::StatusReply> Client::FetchStatus(bool to_status) {
  proto::StatusReply all;
  uint64_t first = 0;
  while (true) {
    auto req = MakeEnvelope(transport_.id());
    req.mutable_status_request()->set_first_job_id(first);
    auto reply = Call(req, to_status);
    if (!reply.ok()) return reply.status();
    proto::StatusReply& page = *reply->mutable_status_reply();
    const uint64_t next = page.next_job_id();
    if (first == 0) {
      all = std::move(page);
    } else {
      for (auto& job : *page.mutable_jobs()) *all.add_jobs() = std::move(job);
    }
    // Pages move forward, or the table is read: never a loop on a confused reply.
    if (next <= first) break;
    first = next;
  }
  all.set_next_job_id(0);
  return all;
}

Result<proto::JobInfo> Client::FetchJob(uint64_t job_id, bool subscribe) {
  auto req = MakeEnvelope(transport_.id());
  req.mutable_status_request()->set_subscribe(subscribe);
  req.mutable_status_request()->set_first_job_id(job_id);
  req.mutable_status_request()->set_max_jobs(1);
  auto reply = Call(req, /*to_status=*/true);
  if (!reply.ok()) return reply.status();
  for (const auto& j : reply->status_reply().jobs()) {
    if (j.job_id() == job_id) return j;
  }
  return Status::NotFound(fmt::format("no job {}", job_id));
}

std::string DescribeJob(const proto::JobInfo& j) {
  if (!j.objective_name().empty()) {  // a static-engine job
    std::string s =
        fmt::format("job {} {} {}: iteration {} of {}, {} {}, {} {:.10g}", j.job_id(), j.app(),
                    JobStateName(j.state()), j.iteration(), j.spec().static_engine().iterations(),
                    j.updates(), j.work_unit(), j.objective_name(), j.objective());
    if (j.state() == proto::JOB_SUCCEEDED) {
      s += fmt::format(" in {:.2f} s (load imbalance {:.2f})", j.seconds(), j.imbalance());
    }
    if (!j.error().empty()) s += ": " + j.error();
    return s;
  }
  // A job that ended before its first update (a file it could not load): its error alone.
  if (j.updates() == 0 && !j.error().empty()) {
    return fmt::format("job {} {} {}: {}", j.job_id(), j.app(), JobStateName(j.state()), j.error());
  }
  std::string s =
      fmt::format("job {} {} {}: round {}, {} updates, objective {:.10g}", j.job_id(), j.app(),
                  JobStateName(j.state()), j.round(), j.updates(), j.objective());
  if (j.state() == proto::JOB_SUCCEEDED) {
    s += j.converged() ? ", converged" : ", stopped by a limit before converging";
    s += fmt::format(" (violation {:.3g}) in {:.2f} s", j.violation(), j.seconds());
  }
  if (!j.error().empty()) s += ": " + j.error();
  return s;
}

int ExitCodeFor(const proto::JobInfo& info) {
  switch (info.state()) {
    case proto::JOB_SUCCEEDED:
      return kExitOk;
    case proto::JOB_CANCELLED:
      return kExitCancelled;
    default:
      return kExitJobFailed;
  }
}

Result<proto::JobInfo> Client::Wait(uint64_t job_id, const std::atomic<bool>& interrupt, bool quiet,
                                    bool whole_lines) {
  const bool tty = !whole_lines && isatty(STDERR_FILENO);
  auto print = [&](const proto::JobInfo& j) {
    if (quiet) return;
    if (!tty) {
      std::cerr << FitLine(ProgressFields(j), 0) << "\n";
      return;
    }
    // One column short of the width: a line that fills the last column wraps on some terminals.
    const size_t width = TerminalWidth(STDERR_FILENO);
    std::cerr << "\r\033[K" << FitLine(ProgressFields(j), width > 1 ? width - 1 : width)
              << std::flush;
  };
  auto last_print = std::chrono::steady_clock::time_point{};
  auto info = Follow(job_id, interrupt, [&](const proto::JobInfo& j) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_print > std::chrono::milliseconds(tty ? 250 : 5000)) {
      print(j);
      last_print = now;
    }
  });
  if (!info.ok()) {
    if (tty && !quiet && info.status().code() == StatusCode::kCancelled) std::cerr << "\n";
    return info.status();
  }
  print(*info);
  if (tty && !quiet) std::cerr << "\n";
  return info;
}

Result<proto::JobInfo> Client::Follow(uint64_t job_id, const std::atomic<bool>& interrupt,
                                      const std::function<void(const proto::JobInfo&)>& on_update) {
  auto subscribe = [&] { return FetchJob(job_id, /*subscribe=*/true); };
  auto current = subscribe();
  if (!current.ok()) return current.status();
  proto::JobInfo info = *current;
  auto last_news = std::chrono::steady_clock::now();
  auto last_subscribe = last_news;
  while (!IsFinal(info.state())) {
    if (interrupt.load()) return Status::Cancelled("interrupted");
    auto e = transport_.Receive(std::chrono::milliseconds(200));
    const auto now = std::chrono::steady_clock::now();
    if (e && e->body_case() == proto::Envelope::kProgress && e->job_id() == job_id) {
      info = e->progress().job();
      last_news = now;
    }
    if (now - last_news > std::chrono::seconds(2) ||
        now - last_subscribe > std::chrono::seconds(10)) {
      // Quiet stream (a queued job, or we were dropped as a subscriber), or time to renew the
      // subscription before it lapses (the coordinator keeps it 30 s): ask again.
      auto again = subscribe();
      if (!again.ok()) return again.status();
      info = *again;
      last_news = last_subscribe = now;
    }
    if (!IsFinal(info.state())) on_update(info);
  }
  return info;
}

Result<proto::ResultReply> Client::FetchResultReply(uint64_t job_id) {
  auto req = MakeEnvelope(transport_.id(), job_id);
  req.mutable_result_request();
  auto reply = Call(req);
  if (!reply.ok()) return reply.status();
  return std::move(*reply->mutable_result_reply());
}

Result<proto::JobInfo> Client::FetchResults(uint64_t job_id, const std::string& dir,
                                            std::vector<std::string>* written) {
  auto reply = FetchResultReply(job_id);
  if (!reply.ok()) return reply.status();
  const auto& r = *reply;
  if (r.files_size() == 0) return r.job();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IoError("cannot create " + dir + ": " + ec.message());
  for (const auto& f : r.files()) {
    // Under a temporary name, renamed once whole: a full disk never leaves a truncated file
    // under the final name (nor the temporary one: WriteFileAtomically removes it).
    const auto path = std::filesystem::path(dir) / f.name();
    if (f.name().empty() || f.name().find('/') != std::string::npos || f.name() == "." ||
        f.name() == "..") {
      return Status::InvalidArgument("the coordinator sent a bad result file name '" +
                                     WireText(f.name()) + "'");
    }
    if (Status st = WriteFileAtomically(path, f.content()); !st.ok()) return st;
    if (written) written->push_back(f.name());
  }
  return r.job();
}

}  // namespace strads
