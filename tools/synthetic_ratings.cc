#include "tools/synthetic_ratings.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <unordered_set>

#include "tools/stream_rng.h"

namespace strads {
namespace {

// The random streams of a problem (tools/stream_rng.h).
enum Stream : uint64_t { kCellStream = 1, kSplitStream = 2, kModelStream = 3, kShuffleStream = 4 };

// Uniform in [0, 1) from the top 53 bits (portable, unlike std::uniform_real_distribution).
double Uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Draws i in [0, n) with probability ∝ 1 / (i + 1)^s by inverting the cumulative weights.
class ZipfSampler {
 public:
  ZipfSampler(uint64_t n, double s) : cdf_(n) {
    double sum = 0;
    for (uint64_t i = 0; i < n; ++i) cdf_[i] = sum += std::pow(static_cast<double>(i + 1), -s);
    for (double& c : cdf_) c /= sum;
  }
  uint32_t operator()(std::mt19937_64& rng) const {
    const auto it = std::upper_bound(cdf_.begin(), cdf_.end(), Uniform(rng));
    return static_cast<uint32_t>(std::min<size_t>(it - cdf_.begin(), cdf_.size() - 1));
  }

 private:
  std::vector<double> cdf_;
};

struct Cell {
  uint32_t row;
  uint32_t col;
  bool covering;
};

// The distinct cells, in the order drawn: the covering set first.
Result<std::vector<Cell>> DrawCells(const SyntheticRatingsOptions& o) {
  std::mt19937_64 rng = StreamRng(o.seed, kCellStream);
  const ZipfSampler row_sampler(o.rows, o.zipf);
  const ZipfSampler col_sampler(o.cols, o.zipf);
  std::unordered_set<uint64_t> seen;
  seen.reserve(o.ratings);
  std::vector<Cell> cells;
  cells.reserve(o.ratings);
  auto add = [&](uint32_t i, uint32_t j, bool covering) {
    if (!seen.insert(uint64_t{i} * o.cols + j).second) return false;
    cells.push_back({i, j, covering});
    return true;
  };
  std::vector<bool> col_used(o.cols, false);
  for (uint64_t i = 0; i < o.rows; ++i) {
    const uint32_t j = col_sampler(rng);
    add(static_cast<uint32_t>(i), j, true);  // rows are distinct, so never a repeat
    col_used[j] = true;
  }
  for (uint64_t j = 0; j < o.cols; ++j) {
    if (col_used[j]) continue;
    // Row i already holds one covering cell, in another column, so (i, j) is new.
    add(row_sampler(rng), static_cast<uint32_t>(j), true);
  }
  // Repeats are redrawn; give up when they dominate rather than loop for ever.
  const uint64_t max_draws = 64 * o.ratings + 1000000;
  for (uint64_t draws = 0; cells.size() < o.ratings; ++draws) {
    if (draws == max_draws) {
      return Status::FailedPrecondition(
          "only " + std::to_string(cells.size()) + " distinct cells after " +
          std::to_string(draws) + " draws: the Zipf exponent " + std::to_string(o.zipf) +
          " concentrates the ratings on too few cells; lower --zipf or --ratings");
    }
    add(row_sampler(rng), col_sampler(rng), false);
  }
  return cells;
}

// A random permutation of [0, n).
std::vector<uint32_t> Permutation(uint64_t n, std::mt19937_64& rng) {
  std::vector<uint32_t> p(n);
  std::iota(p.begin(), p.end(), 0u);
  for (uint64_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng() % i]);
  return p;
}

void SortByRowCol(RatingEntries* e) {
  std::vector<uint64_t> order(e->size());
  std::iota(order.begin(), order.end(), uint64_t{0});
  std::sort(order.begin(), order.end(), [&](uint64_t a, uint64_t b) {
    return e->row[a] != e->row[b] ? e->row[a] < e->row[b] : e->col[a] < e->col[b];
  });
  RatingEntries sorted;
  sorted.row.reserve(order.size());
  sorted.col.reserve(order.size());
  sorted.value.reserve(order.size());
  for (uint64_t k : order) {
    sorted.row.push_back(e->row[k]);
    sorted.col.push_back(e->col[k]);
    sorted.value.push_back(e->value[k]);
  }
  *e = std::move(sorted);
}

}  // namespace

Status ValidateSyntheticRatingsOptions(const SyntheticRatingsOptions& o) {
  if (o.rows == 0 || o.cols == 0) return Status::InvalidArgument("rows and cols must be positive");
  if (o.rows > UINT32_MAX || o.cols > UINT32_MAX) {
    return Status::InvalidArgument("rows and cols must fit in 32 bits");
  }
  if (o.ratings < o.rows + o.cols) {
    return Status::InvalidArgument(
        "ratings (" + std::to_string(o.ratings) + ") must be at least rows + cols (" +
        std::to_string(o.rows + o.cols) + "), so that every row and column can be non-empty");
  }
  if (static_cast<double>(o.ratings) > 0.5 * static_cast<double>(o.rows) * o.cols) {
    return Status::InvalidArgument("ratings must be at most half of rows x cols");
  }
  if (o.rank == 0) return Status::InvalidArgument("rank must be positive");
  if (!(o.zipf >= 0.0 && std::isfinite(o.zipf))) {
    return Status::InvalidArgument("zipf must be a finite number >= 0");
  }
  if (!(o.test_fraction >= 0.0 && o.test_fraction < 1.0)) {
    return Status::InvalidArgument("test fraction must be in [0, 1)");
  }
  if (!(o.noise >= 0.0 && std::isfinite(o.noise))) {
    return Status::InvalidArgument("noise must be a finite number >= 0");
  }
  return Status::Ok();
}

Result<SyntheticRatings> GenerateSyntheticRatings(const SyntheticRatingsOptions& o) {
  STRADS_RETURN_IF_ERROR(ValidateSyntheticRatingsOptions(o));
  try {
    STRADS_ASSIGN_OR_RETURN(std::vector<Cell> cells, DrawCells(o));

    // The planted model, row-major: factor entries for row i are w[i * k .. i * k + k).
    std::mt19937_64 model_rng = StreamRng(o.seed, kModelStream);
    std::normal_distribution<double> normal(0.0, 1.0);
    const double scale = std::pow(static_cast<double>(o.rank), -0.25);
    std::vector<double> w(o.rows * o.rank), h(o.cols * o.rank);
    for (double& v : w) v = scale * normal(model_rng);
    for (double& v : h) v = scale * normal(model_rng);

    std::vector<uint32_t> row_id, col_id;
    if (o.shuffle) {
      std::mt19937_64 shuffle_rng = StreamRng(o.seed, kShuffleStream);
      row_id = Permutation(o.rows, shuffle_rng);
      col_id = Permutation(o.cols, shuffle_rng);
    }

    std::mt19937_64 split_rng = StreamRng(o.seed, kSplitStream);
    SyntheticRatings out;
    out.rows = o.rows;
    out.cols = o.cols;
    for (const Cell& c : cells) {
      double a = 0;
      for (uint32_t t = 0; t < o.rank; ++t) {
        a += w[uint64_t{c.row} * o.rank + t] * h[uint64_t{c.col} * o.rank + t];
      }
      a += o.noise * normal(split_rng);
      const bool test = !c.covering && Uniform(split_rng) < o.test_fraction;
      RatingEntries& e = test ? out.test : out.train;
      e.row.push_back(o.shuffle ? row_id[c.row] : c.row);
      e.col.push_back(o.shuffle ? col_id[c.col] : c.col);
      e.value.push_back(a);
    }
    SortByRowCol(&out.train);
    SortByRowCol(&out.test);
    return out;
  } catch (const std::exception&) {  // bad_alloc, or length_error from a huge reserve
    return Status::Internal("synthetic ratings do not fit in memory");
  }
}

Status WriteRatingsMatrixMarket(const RatingEntries& entries, uint64_t rows, uint64_t cols,
                                const std::string& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "w"), std::fclose);
  if (!file) return Status::IoError(path + ": cannot open for writing");
  std::string buffer = "%%MatrixMarket matrix coordinate real general\n" + std::to_string(rows) +
                       " " + std::to_string(cols) + " " + std::to_string(entries.size()) + "\n";
  bool ok = true;
  char number[64];
  auto append = [&](auto v) {
    const auto r = std::to_chars(number, number + sizeof number, v);
    buffer.append(number, r.ptr);
  };
  for (uint64_t e = 0; e < entries.size(); ++e) {
    append(uint64_t{entries.row[e]} + 1);
    buffer += ' ';
    append(uint64_t{entries.col[e]} + 1);
    buffer += ' ';
    append(entries.value[e]);
    buffer += '\n';
    if (buffer.size() > (size_t{1} << 22)) {
      ok = ok && std::fwrite(buffer.data(), 1, buffer.size(), file.get()) == buffer.size();
      buffer.clear();
    }
  }
  ok = ok && std::fwrite(buffer.data(), 1, buffer.size(), file.get()) == buffer.size();
  if (std::fclose(file.release()) != 0) ok = false;
  return ok ? Status::Ok() : Status::IoError(path + ": write failed");
}

}  // namespace strads
