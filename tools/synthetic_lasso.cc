#include "tools/synthetic_lasso.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/libsvm_reader.h"
#include "tools/stream_rng.h"

namespace strads {
namespace {

// The random streams of a problem (tools/stream_rng.h).
enum Stream : uint64_t { kBetaStream = 1, kDesignStream = 2, kNoiseStream = 3, kShuffleStream = 4 };

std::vector<std::pair<uint64_t, double>> ChooseBeta(const SyntheticLassoOptions& o) {
  std::mt19937_64 rng = StreamRng(o.seed, kBetaStream);
  const uint64_t groups = (o.features + o.group_size - 1) / o.group_size;
  std::vector<uint64_t> order(groups);
  for (uint64_t g = 0; g < groups; ++g) order[g] = g;
  std::shuffle(order.begin(), order.end(), rng);
  // Each group starts at a random member; round r takes the member r places further on, so the
  // members chosen within a group are distinct.
  std::vector<uint64_t> offset(groups);
  for (uint64_t& v : offset) v = rng();
  std::uniform_real_distribution<double> magnitude(1.0, 2.0);
  std::vector<std::pair<uint64_t, double>> beta;
  for (uint64_t round = 0; beta.size() < o.true_nonzeros; ++round) {
    for (uint64_t g : order) {
      if (beta.size() == o.true_nonzeros) break;
      const uint64_t start = g * o.group_size;
      const uint64_t size = std::min<uint64_t>(o.group_size, o.features - start);
      if (round >= size) continue;
      const uint64_t feature = start + (offset[g] % size + round) % size;
      const double sign = (rng() & 1) ? 1.0 : -1.0;
      beta.emplace_back(feature, sign * magnitude(rng));
    }
  }
  std::sort(beta.begin(), beta.end());
  return beta;
}

// The refusal of a matrix of `entries` non-zero entries past the ones SparseColMatrix can index;
// `before` and `after` qualify the count (e.g. an expectation, before any entry is drawn).
Status TooManyEntries(std::string_view before, uint64_t entries, std::string_view after) {
  return Status::InvalidArgument(std::string(before) + std::to_string(entries) +
                                 " non-zero entries" + std::string(after) + ", more than the " +
                                 std::to_string(kMaxIndex) +
                                 " one matrix can index: fewer rows, features or density");
}

// Fills x column by column, group by group.
// Errors: InvalidArgument if the matrix has more entries than SparseColMatrix can index.
Status GenerateDesign(const SyntheticLassoOptions& o, SparseColMatrix* x) {
  std::mt19937_64 rng = StreamRng(o.seed, kDesignStream);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const bool dense = o.density >= 1.0;
  const double a = std::sqrt(o.correlation);
  const double b = std::sqrt(1.0 - o.correlation);
  const auto n = static_cast<int64_t>(o.rows);

  std::vector<int64_t> outer(o.features + 1, 0);
  std::vector<int64_t> inner;
  std::vector<double> values;
  if (dense) {
    inner.reserve(o.rows * o.features);
    values.reserve(o.rows * o.features);
  } else {
    const double expected = o.density * static_cast<double>(o.rows) * o.features * 1.05 + 64;
    inner.reserve(static_cast<size_t>(expected));
    values.reserve(static_cast<size_t>(expected));
  }
  std::vector<int64_t> support;
  std::vector<double> latent;
  for (uint64_t start = 0; start < o.features; start += o.group_size) {
    support.clear();
    for (int64_t r = 0; r < n; ++r) {
      if (dense || uniform(rng) < o.density) support.push_back(r);
    }
    latent.resize(support.size());
    for (double& z : latent) z = normal(rng);
    const uint64_t stop = std::min<uint64_t>(start + o.group_size, o.features);
    for (uint64_t j = start; j < stop; ++j) {
      const size_t first = values.size();
      for (size_t k = 0; k < support.size(); ++k) {
        inner.push_back(support[k]);
        values.push_back(a * latent[k] + b * normal(rng));
      }
      if (dense && n > 0) {
        double mean = 0.0;
        for (size_t k = first; k < values.size(); ++k) mean += values[k];
        mean /= static_cast<double>(n);
        double var = 0.0;
        for (size_t k = first; k < values.size(); ++k)
          var += (values[k] - mean) * (values[k] - mean);
        var /= static_cast<double>(n);
        const double scale = var > 0.0 ? 1.0 / std::sqrt(var) : 1.0;
        for (size_t k = first; k < values.size(); ++k) values[k] = (values[k] - mean) * scale;
      }
      outer[j + 1] = static_cast<int64_t>(values.size());
    }
  }
  if (values.size() > kMaxIndex) return TooManyEntries("", values.size(), "");
  x->resize(n, static_cast<int64_t>(o.features));
  x->resizeNonZeros(static_cast<int64_t>(values.size()));
  std::copy(outer.begin(), outer.end(), x->outerIndexPtr());
  std::copy(inner.begin(), inner.end(), x->innerIndexPtr());
  std::copy(values.begin(), values.end(), x->valuePtr());
  return Status::Ok();
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

Result<File> OpenForWriting(const std::string& path) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) return Status::IoError(path + ": cannot open for writing");
  return f;
}

// Appends text to a large buffer and writes it out in big blocks.
class BufferedWriter {
 public:
  explicit BufferedWriter(std::FILE* f) : file_(f) { buffer_.reserve(kFlushBytes + 4096); }

  void Append(std::string_view s) {
    buffer_.append(s);
    MaybeFlush();
  }
  void Append(char c) { buffer_.push_back(c); }
  void Append(double v) {
    char text[32];
    const auto [end, ec] = std::to_chars(text, text + sizeof(text), v);
    buffer_.append(text, end);
  }
  void Append(uint64_t v) {
    char text[24];
    const auto [end, ec] = std::to_chars(text, text + sizeof(text), v);
    buffer_.append(text, end);
  }
  void MaybeFlush() {
    if (buffer_.size() >= kFlushBytes) Flush();
  }
  void Flush() {
    if (!buffer_.empty() &&
        std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
      failed_ = true;
    }
    buffer_.clear();
  }
  // Flushes and closes-checks; false if any write failed.
  bool Finish() {
    Flush();
    return !failed_ && std::fflush(file_) == 0;
  }

 private:
  static constexpr size_t kFlushBytes = size_t{1} << 22;
  std::FILE* file_;
  std::string buffer_;
  bool failed_ = false;
};

}  // namespace

Status ValidateSyntheticLassoOptions(const SyntheticLassoOptions& o) {
  if (o.rows == 0) return Status::InvalidArgument("rows must be positive");
  if (o.rows > kMaxIndex) {
    return Status::InvalidArgument("rows must be at most " + std::to_string(kMaxIndex));
  }
  if (o.features == 0) return Status::InvalidArgument("features must be positive");
  if (o.features > static_cast<uint64_t>(kMaxLibsvmFeatureId)) {
    return Status::InvalidArgument("features must be at most " +
                                   std::to_string(kMaxLibsvmFeatureId));
  }
  if (o.group_size == 0) return Status::InvalidArgument("group size must be positive");
  if (!(o.correlation >= 0.0 && o.correlation <= 1.0)) {
    return Status::InvalidArgument("correlation must be in [0, 1]");
  }
  if (!(o.density > 0.0 && o.density <= 1.0)) {
    return Status::InvalidArgument("density must be in (0, 1]");
  }
  // Before any entry is generated (GenerateDesign checks the count it drew, which can pass the
  // expectation by chance): a dense problem has rows x features entries, a sparse one about
  // density times that.
  const double expected = o.density * static_cast<double>(o.rows) * static_cast<double>(o.features);
  if (expected > static_cast<double>(kMaxIndex)) {
    return TooManyEntries("about ", static_cast<uint64_t>(expected),
                          " (" + std::to_string(o.rows) + " rows x " + std::to_string(o.features) +
                              " features x density)");
  }
  if (o.true_nonzeros > o.features) {
    return Status::InvalidArgument("true nonzeros (" + std::to_string(o.true_nonzeros) +
                                   ") exceed the features (" + std::to_string(o.features) + ")");
  }
  if (!(o.noise >= 0.0 && std::isfinite(o.noise))) {
    return Status::InvalidArgument("noise must be a finite number >= 0");
  }
  return Status::Ok();
}

namespace {

// Column j becomes column perm[j], and beta_true's ids with it.
void ShuffleColumns(const SyntheticLassoOptions& o, SyntheticLassoProblem& p) {
  std::vector<uint64_t> perm(o.features);
  for (uint64_t j = 0; j < o.features; ++j) perm[j] = j;
  std::mt19937_64 rng = StreamRng(o.seed, kShuffleStream);
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<uint64_t> from(o.features);  // from[perm[j]] = j
  for (uint64_t j = 0; j < o.features; ++j) from[perm[j]] = j;
  const SparseColMatrix& x = p.data.x;
  Eigen::VectorXi nnz(x.cols());
  for (int64_t k = 0; k < x.cols(); ++k) {
    const auto j = static_cast<int64_t>(from[static_cast<size_t>(k)]);
    nnz[k] = static_cast<int>(x.outerIndexPtr()[j + 1] - x.outerIndexPtr()[j]);
  }
  SparseColMatrix out(x.rows(), x.cols());
  out.reserve(nnz);
  for (int64_t k = 0; k < x.cols(); ++k) {
    const auto j = static_cast<int64_t>(from[static_cast<size_t>(k)]);
    for (SparseColMatrix::InnerIterator it(x, j); it; ++it) out.insert(it.index(), k) = it.value();
  }
  out.makeCompressed();
  p.data.x = std::move(out);
  for (auto& [j, beta] : p.beta_true) j = perm[j];
  std::sort(p.beta_true.begin(), p.beta_true.end());
}

}  // namespace

Result<SyntheticLassoProblem> GenerateSyntheticLasso(const SyntheticLassoOptions& o) {
  STRADS_RETURN_IF_ERROR(ValidateSyntheticLassoOptions(o));
  try {
    SyntheticLassoProblem p;
    p.beta_true = ChooseBeta(o);
    STRADS_RETURN_IF_ERROR(GenerateDesign(o, &p.data.x));
    const auto n = static_cast<int64_t>(o.rows);
    Eigen::VectorXd y = Eigen::VectorXd::Zero(n);
    for (const auto& [j, beta] : p.beta_true) {
      y += beta * p.data.x.col(static_cast<int64_t>(j));
    }
    std::mt19937_64 rng = StreamRng(o.seed, kNoiseStream);
    std::normal_distribution<double> normal(0.0, 1.0);
    for (int64_t i = 0; i < n; ++i) y[i] += o.noise * normal(rng);
    p.data.y = std::move(y);
    if (o.shuffle_columns) ShuffleColumns(o, p);
    p.data.first_row = 0;
    p.data.total_rows = o.rows;
    return p;
  } catch (const std::exception&) {  // bad_alloc, or length_error from a huge reserve
    return Status::Internal("synthetic Lasso problem does not fit in memory");
  }
}

Status WriteLibsvmFile(const Dataset& data, const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(File file, OpenForWriting(path));
  try {
    const Eigen::SparseMatrix<double, Eigen::RowMajor, int64_t> rows = data.x;
    BufferedWriter out(file.get());
    for (int64_t i = 0; i < rows.outerSize(); ++i) {
      out.Append(data.y[i]);
      for (decltype(rows)::InnerIterator it(rows, i); it; ++it) {
        out.Append(' ');
        out.Append(static_cast<uint64_t>(it.col() + 1));
        out.Append(':');
        out.Append(it.value());
      }
      out.Append('\n');
      out.MaybeFlush();
    }
    if (!out.Finish()) return Status::IoError(path + ": write failed");
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while writing");
  }
  if (std::fclose(file.release()) != 0) return Status::IoError(path + ": close failed");
  return Status::Ok();
}

Status WriteTruthFile(const SyntheticLassoProblem& problem, const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(File file, OpenForWriting(path));
  BufferedWriter out(file.get());
  for (const auto& [j, beta] : problem.beta_true) {
    out.Append(static_cast<uint64_t>(j + 1));
    out.Append('\t');
    out.Append(beta);
    out.Append('\n');
  }
  if (!out.Finish()) return Status::IoError(path + ": write failed");
  if (std::fclose(file.release()) != 0) return Status::IoError(path + ": close failed");
  return Status::Ok();
}

Status WriteSyntheticLasso(const SyntheticLassoOptions& options, const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(SyntheticLassoProblem problem, GenerateSyntheticLasso(options));
  return WriteLibsvmFile(problem.data, path);
}

}  // namespace strads
