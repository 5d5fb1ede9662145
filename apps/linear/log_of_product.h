// LogOfProduct: sum_i log(f_i) for factors f_i in [1/2, 2], with one log per 512 factors.
//
// The logistic loss is a log per row, log(1 + e) with e = exp(-|y m|) in (0, 1]; a sum of such
// logs over a margin vector's rows (the coordinator's objective, a worker's line search) spent as
// long in log1p as in exp. A sum of logs is the log of a product, and a product of 512 factors in
// [1/2, 2] lies in [2^-512, 2^512], well inside a double's range, so the factors are multiplied
// and the product's log is taken once per 512 of them.
//
// Accuracy: each multiplication rounds by at most half an ulp, i.e. adds at most 2^-53 (absolute)
// to the log: n * 1.2e-16 for n factors. Each chunk's log (at most 512 ln 2 = 355) and its
// addition to the running sum round as well, by up to ~1e-13 per chunk once the sum reaches a few
// thousand: ~3e-11 in all for 20,000 rows, at worst. A running sum of per-row log1p terms does no
// better: it rounds by as much at every row's addition, not every 512th.
// Thread-compatible; a value type.
#pragma once

#include <cmath>

namespace strads::logistic {

class LogOfProduct {
 public:
  // Adds log(f). REQUIRES: f in [1/2, 2] (so no chunk's product over- or underflows).
  void Add(double f) {
    product_ *= f;
    if (++count_ == kChunk) {
      logs_ += std::log(product_);
      product_ = 1.0;
      count_ = 0;
    }
  }

  // The sum of the logs of every factor added.
  double Sum() const { return logs_ + std::log(product_); }

 private:
  static constexpr int kChunk = 512;
  double product_ = 1.0;  // of the factors since the last log
  int count_ = 0;
  double logs_ = 0.0;  // the logs of the earlier chunks' products
};

}  // namespace strads::logistic
