#include "apps/mf/mf_reference.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "apps/mf/als_solve.h"
#include "apps/mf/sgd_kernel.h"
#include "apps/mf/split_mix.h"

namespace strads::mf {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Status ValidateCommon(const MfOptions& o, const char* algorithm) {
  const std::string a = algorithm;
  if (o.rank == 0) return Status::InvalidArgument("mf " + a + ": rank must be >= 1");
  if (!(o.lambda >= 0.0) || !std::isfinite(o.lambda)) {
    return Status::InvalidArgument("mf " + a + ": lambda must be finite and >= 0, got " +
                                   std::to_string(o.lambda));
  }
  return Status::Ok();
}

// Factors uniform in [0, scale) (W only when w_random; 0 otherwise).
MfModel UniformModel(const Ratings& r, const MfOptions& o, bool w_random, double scale) {
  MfModel m;
  m.W = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(r.rows), o.rank);
  m.H = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(r.cols), o.rank);
  // Rows and columns without ratings stay 0.
  for (uint32_t t = 0; t < o.rank; ++t) {
    if (w_random) {
      for (uint64_t i = 0; i < r.rows; ++i) {
        if (r.row_start[i] == r.row_start[i + 1]) continue;
        m.W(static_cast<Eigen::Index>(i), t) = scale * InitialUniform(o.seed, Factor::kW, i, t);
      }
    }
    for (uint64_t j = 0; j < r.cols; ++j) {
      if (r.col_start[j] == r.col_start[j + 1]) continue;
      m.H(static_cast<Eigen::Index>(j), t) = scale * InitialUniform(o.seed, Factor::kH, j, t);
    }
  }
  return m;
}

double Predict(const MfModel& m, uint32_t i, uint32_t j) { return m.W.row(i).dot(m.H.row(j)); }

double SquaredError(const Ratings& r, const MfModel& m) {
  double s = 0.0;
  for (uint64_t e = 0; e < r.nnz(); ++e) {
    const double d = r.value[e] - Predict(m, r.row[e], r.col[e]);
    s += d * d;
  }
  return s;
}

// c_i for every row (rows = true) or c^j for every column.
std::vector<double> PenaltyWeights(const Ratings& r, Regularization regularization, bool rows) {
  const std::vector<uint64_t>& start = rows ? r.row_start : r.col_start;
  std::vector<double> c(start.size() - 1);
  for (size_t i = 0; i < c.size(); ++i)
    c[i] = PenaltyWeight(regularization, start[i + 1] - start[i]);
  return c;
}

// lambda (sum_i c_i ||w_i||^2 + sum_j c^j ||h_j||^2).
double Penalty(const Ratings& r, const MfModel& m, double lambda, Regularization regularization) {
  if (regularization == Regularization::kPlain) {
    return lambda * (m.W.squaredNorm() + m.H.squaredNorm());
  }
  double s = 0.0;
  for (uint64_t i = 0; i < r.rows; ++i) {
    s += static_cast<double>(r.row_start[i + 1] - r.row_start[i]) *
         m.W.row(static_cast<Eigen::Index>(i)).squaredNorm();
  }
  for (uint64_t j = 0; j < r.cols; ++j) {
    s += static_cast<double>(r.col_start[j + 1] - r.col_start[j]) *
         m.H.row(static_cast<Eigen::Index>(j)).squaredNorm();
  }
  return lambda * s;
}

// Fills in the from-scratch figures of a finished solve.
MfResult Finish(MfModel model, const Ratings& r, const MfOptions& o, Clock::time_point start) {
  MfResult result;
  result.objective = MfObjective(r, model, o.lambda, o.regularization);
  result.train_rmse = Rmse(r, model);
  result.iterations = o.iterations;
  result.model = std::move(model);
  result.seconds = SecondsSince(start);
  return result;
}

}  // namespace

double InitialUniform(uint64_t seed, Factor factor, uint64_t index, uint32_t t) {
  uint64_t h = Mix(seed);
  h = Mix(h ^ static_cast<uint64_t>(factor));
  h = Mix(h ^ index);
  h = Mix(h ^ t);
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

MfModel InitialCcdModel(const Ratings& ratings, const MfOptions& options) {
  return UniformModel(ratings, options, /*w_random=*/false, CcdInitialScale(options.rank));
}

MfModel InitialSgdModel(const Ratings& ratings, const MfOptions& options) {
  return UniformModel(ratings, options, /*w_random=*/true,
                      SgdInitialScale(RatingScale(ratings), options.rank));
}

double RatingScale(const Ratings& ratings) {
  double sum = 0.0, sum_sq = 0.0;
  for (double v : ratings.value) {
    sum += v;
    sum_sq += v * v;
  }
  const double n = static_cast<double>(std::max<uint64_t>(1, ratings.nnz()));
  const double mean = sum / n;
  return std::max(1e-4, std::sqrt(std::max(0.0, sum_sq / n - mean * mean)));
}

double CcdInitialScale(uint32_t rank) { return 1.0 / std::sqrt(static_cast<double>(rank)); }

double SgdInitialScale(double rating_scale, uint32_t rank) {
  return std::sqrt(rating_scale / static_cast<double>(rank));
}

std::vector<SgdRating> SgdRowOrder(const Ratings& ratings, uint64_t seed, uint64_t first,
                                   uint64_t end, uint32_t col0) {
  std::vector<SgdRating> out;
  out.reserve(end - first);
  for (uint64_t e = first; e < end; ++e) {
    out.push_back({ratings.col[e] - col0, static_cast<float>(ratings.value[e])});
  }
  std::sort(out.begin(), out.end(), [&](const SgdRating& a, const SgdRating& b) {
    return ColumnOrderKey(seed, a.col + col0) < ColumnOrderKey(seed, b.col + col0);
  });
  return out;
}

Result<Regularization> ParseRegularization(const std::string& name) {
  if (name.empty() || name == "weighted") return Regularization::kWeighted;
  if (name == "plain") return Regularization::kPlain;
  return Status::InvalidArgument("unknown regularization '" + name + "' (weighted or plain)");
}

const char* RegularizationName(Regularization regularization) {
  return regularization == Regularization::kWeighted ? "weighted" : "plain";
}

double MfObjective(const Ratings& ratings, const MfModel& model, double lambda,
                   Regularization regularization) {
  return SquaredError(ratings, model) + Penalty(ratings, model, lambda, regularization);
}

double ImplicitObjective(const Ratings& ratings, const MfModel& model, double lambda,
                         Regularization regularization, double alpha) {
  const uint32_t k = static_cast<uint32_t>(model.W.cols());
  // Row-major copies for Gram.
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> w = model.W,
                                                                               h = model.H;
  Eigen::MatrixXd gw(k, k), gh(k, k);
  Gram(w.data(), ratings.rows, k, gw.data());
  Gram(h.data(), ratings.cols, k, gh.data());
  double s = 0.0;
  for (uint64_t e = 0; e < ratings.nnz(); ++e) {
    const double y = Predict(model, ratings.row[e], ratings.col[e]);
    const double a = ratings.value[e], d = Preference(a) - y;
    s += Confidence(alpha, a) * d * d - y * y;
  }
  double all = 0.0;  // sum over every pair of (w_i^T h_j)^2
  for (uint64_t t = 0; t < uint64_t{k} * k; ++t) all += gw.data()[t] * gh.data()[t];
  return s + all + Penalty(ratings, model, lambda, regularization);
}

double PreferenceRmse(const Ratings& ratings, const MfModel& model) {
  if (ratings.nnz() == 0) return std::numeric_limits<double>::quiet_NaN();
  double s = 0.0;
  for (uint64_t e = 0; e < ratings.nnz(); ++e) {
    const double d = Preference(ratings.value[e]) - Predict(model, ratings.row[e], ratings.col[e]);
    s += d * d;
  }
  return std::sqrt(s / static_cast<double>(ratings.nnz()));
}

double Rmse(const Ratings& ratings, const MfModel& model) {
  if (ratings.nnz() == 0) return std::numeric_limits<double>::quiet_NaN();
  return std::sqrt(SquaredError(ratings, model) / static_cast<double>(ratings.nnz()));
}

double HeldOutRmse(const Ratings& ratings, const MfModel& model, const Coverage& coverage) {
  if (ratings.nnz() == 0) return std::numeric_limits<double>::quiet_NaN();
  double s = 0.0;
  for (uint64_t e = 0; e < ratings.nnz(); ++e) {
    const uint32_t i = ratings.row[e], j = ratings.col[e];
    const double d =
        ratings.value[e] - (coverage.Covers(i, j) ? Predict(model, i, j) : coverage.mean);
    s += d * d;
  }
  return std::sqrt(s / static_cast<double>(ratings.nnz()));
}

Result<MfResult> SolveCcdReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration) {
  STRADS_RETURN_IF_ERROR(ValidateCommon(options, "ccd"));
  if (options.ccd_inner == 0) return Status::InvalidArgument("mf ccd: ccd_inner must be >= 1");
  const Clock::time_point start = Clock::now();
  const Ratings& r = ratings;
  const uint64_t nnz = r.nnz();
  const double lambda = options.lambda;
  MfModel model = InitialCcdModel(r, options);
  // lambda c_i and lambda c^j: where the denominators start.
  std::vector<double> row_den = PenaltyWeights(r, options.regularization, /*rows=*/true);
  std::vector<double> col_den = PenaltyWeights(r, options.regularization, /*rows=*/false);
  for (double& d : row_den) d *= lambda;
  for (double& d : col_den) d *= lambda;

  // R = A - W H^T on Omega; W = 0 at the start.
  std::vector<double> res(r.value);
  for (uint64_t e = 0; e < nnz; ++e) res[e] -= Predict(model, r.row[e], r.col[e]);

  auto report = [&](uint32_t iteration) {
    if (!on_iteration) return;
    double sq = 0.0;
    for (double d : res) sq += d * d;
    MfTracePoint p;
    p.seconds = SecondsSince(start);
    p.iteration = iteration;
    p.objective = sq + Penalty(r, model, lambda, options.regularization);
    p.train_rmse = nnz == 0 ? std::numeric_limits<double>::quiet_NaN()
                            : std::sqrt(sq / static_cast<double>(nnz));
    p.model = &model;
    on_iteration(p);
  };
  report(0);

  const uint32_t* row = r.row.data();
  const uint32_t* col = r.col.data();
  for (uint32_t it = 1; it <= options.iterations; ++it) {
    for (uint32_t t = 0; t < options.rank; ++t) {
      double* w = model.W.col(t).data();
      double* h = model.H.col(t).data();
      for (uint64_t e = 0; e < nnz; ++e) res[e] += w[row[e]] * h[col[e]];  // R^
      for (uint32_t s = 0; s < options.ccd_inner; ++s) {
        for (uint64_t i = 0; i < r.rows; ++i) {
          double num = 0.0, den = row_den[i];
          for (uint64_t e = r.row_start[i]; e < r.row_start[i + 1]; ++e) {
            const double hj = h[col[e]];
            num += res[e] * hj;
            den += hj * hj;
          }
          w[i] = den > 0.0 ? num / den : 0.0;
        }
        for (uint64_t j = 0; j < r.cols; ++j) {
          double num = 0.0, den = col_den[j];
          for (uint64_t k = r.col_start[j]; k < r.col_start[j + 1]; ++k) {
            const uint64_t e = r.col_entry[k];
            const double wi = w[row[e]];
            num += res[e] * wi;
            den += wi * wi;
          }
          h[j] = den > 0.0 ? num / den : 0.0;
        }
      }
      for (uint64_t e = 0; e < nnz; ++e) res[e] -= w[row[e]] * h[col[e]];  // R = R^ - w_t h_t^T
    }
    report(it);
  }
  return Finish(std::move(model), r, options, start);
}

Result<MfResult> SolveAlsReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration) {
  STRADS_RETURN_IF_ERROR(ValidateCommon(options, "als"));
  if (options.cg_steps == 0) return Status::InvalidArgument("mf als: cg_steps must be >= 1");
  const bool implicit = options.implicit;
  const double alpha = options.alpha;
  if (implicit && (!(alpha >= 0.0) || !std::isfinite(alpha))) {
    return Status::InvalidArgument("mf als: alpha must be finite and >= 0, got " +
                                   std::to_string(alpha));
  }
  const Clock::time_point start = Clock::now();
  const Ratings& r = ratings;
  const uint32_t k = options.rank;
  const double lambda = options.lambda;
  MfModel model = InitialCcdModel(r, options);
  // Row-major copies: w_i and h_j contiguous.
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> w = model.W, h = model.H;
  std::vector<double> row_reg = PenaltyWeights(r, options.regularization, /*rows=*/true);
  std::vector<double> col_reg = PenaltyWeights(r, options.regularization, /*rows=*/false);
  for (double& c : row_reg) c *= lambda;
  for (double& c : col_reg) c *= lambda;

  auto report = [&](uint32_t iteration) {
    if (!on_iteration) return;
    model.W = w;
    model.H = h;
    MfTracePoint p;
    p.seconds = SecondsSince(start);
    p.iteration = iteration;
    p.objective = implicit ? ImplicitObjective(r, model, lambda, options.regularization, alpha)
                           : MfObjective(r, model, lambda, options.regularization);
    p.train_rmse = implicit ? PreferenceRmse(r, model) : Rmse(r, model);
    p.model = &model;
    on_iteration(p);
  };
  report(0);

  auto dot = [k](const double* a, const double* b) {
    double d = 0.0;
    for (uint32_t t = 0; t < k; ++t) d += a[t] * b[t];
    return d;
  };
  AlsNormalEquations equations(k);
  std::vector<double> res(k), p(k), q(k), gx(k);
  Eigen::MatrixXd gram = Eigen::MatrixXd::Zero(k, k);  // implicit: G_H, then G_W
  for (uint32_t it = 1; it <= options.iterations; ++it) {
    if (implicit) Gram(h.data(), r.cols, k, gram.data());
    for (uint64_t i = 0; i < r.rows; ++i) {
      if (r.row_start[i] == r.row_start[i + 1]) continue;  // w_i stays 0
      if (implicit) {
        equations.Start(gram);
      } else {
        equations.Clear();
      }
      for (uint64_t e = r.row_start[i]; e < r.row_start[i + 1]; ++e) {
        const double a = r.value[e];
        if (implicit) {
          const double c = Confidence(alpha, a);
          equations.Add(h.row(r.col[e]).data(), c - 1.0, c * Preference(a));
        } else {
          equations.Add(h.row(r.col[e]).data(), a);
        }
      }
      equations.Solve(row_reg[i], w.row(static_cast<Eigen::Index>(i)).data());
    }
    if (implicit) Gram(w.data(), r.rows, k, gram.data());
    for (uint64_t j = 0; j < r.cols; ++j) {
      double* x = h.row(static_cast<Eigen::Index>(j)).data();
      // r = b - A x.
      std::fill(res.begin(), res.end(), 0.0);
      for (uint64_t n = r.col_start[j]; n < r.col_start[j + 1]; ++n) {
        const uint64_t e = r.col_entry[n];
        const double* wi = w.row(r.row[e]).data();
        const double a = r.value[e], d = dot(wi, x);
        double c = a - d;
        if (implicit) {
          const double conf = Confidence(alpha, a);
          c = conf * Preference(a) - (conf - 1.0) * d;
        }
        for (uint32_t t = 0; t < k; ++t) res[t] += c * wi[t];
      }
      if (implicit) {
        GramTimes(gram.data(), x, k, gx.data());
        for (uint32_t t = 0; t < k; ++t) res[t] -= gx[t];
      }
      for (uint32_t t = 0; t < k; ++t) res[t] -= col_reg[j] * x[t];
      p = res;
      double rs = dot(res.data(), res.data());
      for (uint32_t s = 0; s < options.cg_steps; ++s) {
        std::fill(q.begin(), q.end(), 0.0);
        for (uint64_t n = r.col_start[j]; n < r.col_start[j + 1]; ++n) {
          const uint64_t e = r.col_entry[n];
          const double* wi = w.row(r.row[e]).data();
          double c = dot(wi, p.data());
          if (implicit) c *= Confidence(alpha, r.value[e]) - 1.0;
          for (uint32_t t = 0; t < k; ++t) q[t] += c * wi[t];
        }
        if (implicit) {
          GramTimes(gram.data(), p.data(), k, gx.data());
          for (uint32_t t = 0; t < k; ++t) q[t] += gx[t];
        }
        for (uint32_t t = 0; t < k; ++t) q[t] += col_reg[j] * p[t];
        const double pq = dot(p.data(), q.data());
        if (!(rs > 0.0 && pq > 0.0)) continue;
        const double alpha = rs / pq;
        for (uint32_t t = 0; t < k; ++t) {
          x[t] += alpha * p[t];
          res[t] -= alpha * q[t];
        }
        const double rs_next = dot(res.data(), res.data());
        for (uint32_t t = 0; t < k; ++t) p[t] = res[t] + (rs_next / rs) * p[t];
        rs = rs_next;
      }
    }
    report(it);
  }
  model.W = w;
  model.H = h;
  MfResult result = Finish(std::move(model), r, options, start);
  if (implicit) {
    result.objective =
        ImplicitObjective(r, result.model, lambda, options.regularization, options.alpha);
    result.train_rmse = PreferenceRmse(r, result.model);
  }
  return result;
}

Result<MfResult> SolveSgdReference(const Ratings& ratings, const MfOptions& options,
                                   std::function<void(const MfTracePoint&)> on_iteration) {
  STRADS_RETURN_IF_ERROR(ValidateCommon(options, "sgd"));
  if (!(options.learning_rate > 0.0) || !std::isfinite(options.learning_rate)) {
    return Status::InvalidArgument("mf sgd: learning rate must be finite and > 0, got " +
                                   std::to_string(options.learning_rate));
  }
  if (!(options.decay >= 0.0) || !std::isfinite(options.decay)) {
    return Status::InvalidArgument("mf sgd: decay must be finite and >= 0, got " +
                                   std::to_string(options.decay));
  }
  const Clock::time_point start = Clock::now();
  const Ratings& r = ratings;
  const uint32_t k = options.rank, kp = PaddedRank(k);
  const double lambda = options.lambda;
  const double scale = RatingScale(r);
  MfModel model = InitialSgdModel(r, options);
  // The iterate in single precision, rows padded to kp (sgd_kernel.h), and its accumulators.
  std::vector<float> w(r.rows * kp, 0.0f), h(r.cols * kp, 0.0f);
  for (uint64_t i = 0; i < r.rows; ++i) {
    for (uint32_t t = 0; t < k; ++t) w[i * kp + t] = static_cast<float>(model.W(i, t));
  }
  for (uint64_t j = 0; j < r.cols; ++j) {
    for (uint32_t t = 0; t < k; ++t) h[j * kp + t] = static_cast<float>(model.H(j, t));
  }
  std::vector<float> gw(r.rows, static_cast<float>(scale * scale));
  std::vector<float> gh(r.cols, static_cast<float>(scale * scale));

  // lambda c_i / |Omega_i| and lambda c^j / |Omega^j|: the per-rating penalty's coefficients.
  auto per_rating = [&](uint64_t n) {
    return n == 0 ? 0.0f
                  : static_cast<float>(lambda * PenaltyWeight(options.regularization, n) /
                                       static_cast<double>(n));
  };
  std::vector<float> row_reg(r.rows), col_reg(r.cols);
  for (uint64_t i = 0; i < r.rows; ++i)
    row_reg[i] = per_rating(r.row_start[i + 1] - r.row_start[i]);
  for (uint64_t j = 0; j < r.cols; ++j)
    col_reg[j] = per_rating(r.col_start[j + 1] - r.col_start[j]);

  // Each row's ratings in SgdRowOrder, and the rows that have any.
  std::vector<SgdRating> packed;
  packed.reserve(r.nnz());
  std::vector<uint32_t> rows;
  for (uint64_t i = 0; i < r.rows; ++i) {
    if (r.row_start[i] == r.row_start[i + 1]) continue;
    rows.push_back(static_cast<uint32_t>(i));
    std::vector<SgdRating> row =
        SgdRowOrder(r, options.seed, r.row_start[i], r.row_start[i + 1], 0);
    packed.insert(packed.end(), row.begin(), row.end());
  }

  // Copies the iterate into `model` and computes F (also the divergence check).
  double objective = 0.0;
  auto report = [&](uint32_t iteration) {
    for (uint64_t i = 0; i < r.rows; ++i) {
      for (uint32_t t = 0; t < k; ++t) model.W(i, t) = w[i * kp + t];
    }
    for (uint64_t j = 0; j < r.cols; ++j) {
      for (uint32_t t = 0; t < k; ++t) model.H(j, t) = h[j * kp + t];
    }
    objective = MfObjective(r, model, lambda, options.regularization);
    if (!on_iteration) return;
    MfTracePoint p;
    p.seconds = SecondsSince(start);
    p.iteration = iteration;
    p.objective = objective;
    p.train_rmse = Rmse(r, model);
    p.model = &model;
    on_iteration(p);
  };
  report(0);

  std::vector<uint32_t> order(rows.size());
  SgdRates rates;
  rates.g_scale = static_cast<float>(1.0 / (scale * k));
  for (uint32_t epoch = 0; epoch < options.iterations; ++epoch) {
    // The rows' order in epoch t is a pure function of (seed, t): Fisher-Yates on them.
    std::iota(order.begin(), order.end(), uint32_t{0});
    SplitMix64 rng(SgdOrderSeed(options.seed, epoch + 1, 0, 0));
    for (uint64_t n = order.size(); n > 1; --n) std::swap(order[n - 1], order[rng.Below(n)]);
    rates.eta = static_cast<float>(options.learning_rate / (1.0 + options.decay * epoch));
    float errors = 0.0f;
    for (size_t o = 0; o < order.size(); ++o) {
      const uint32_t i = rows[order[o]];
      if (o + 1 < order.size()) __builtin_prefetch(&w[uint64_t{rows[order[o + 1]]} * kp], 1);
      rates.row_reg = row_reg[i];
      errors += SgdRow(&w[uint64_t{i} * kp], &gw[i], packed.data() + r.row_start[i],
                       r.row_start[i + 1] - r.row_start[i], h.data(), gh.data(), col_reg.data(), kp,
                       rates);
    }
    report(epoch + 1);
    if (!std::isfinite(objective) || !std::isfinite(errors)) {
      return Status::FailedPrecondition("mf sgd: diverged in epoch " + std::to_string(epoch + 1) +
                                        " (objective not finite); lower the learning rate");
    }
  }
  return Finish(std::move(model), r, options, start);
}

}  // namespace strads::mf
