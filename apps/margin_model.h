// Shared machinery of the binary-classification apps (logistic, svm): label handling, the
// worker-side shard that keeps the margins m_i = x_i^T w, and the summary.json fields.
//
// Concept. A margin loss is F(w) = sum_i l(y_i, m_i) + penalty(w) with y_i in {-1, +1}. A Loss
// policy provides `static RowTerms Eval(double y, double m)`: l, dl/dm and d2l/dm2 (a generalised
// second derivative where l is not twice differentiable). MarginShard keeps, per row, the margin
// and those three numbers; Push for a parameter j returns {g_j, h_j} = {sum_i x_ij dl_i,
// sum_i x_ij^2 d2l_i} over the shard (so the coordinator's sums are the full partial gradient and
// curvature), Apply moves the margins of the rows of the changed columns and re-evaluates those
// rows.
//
// Labels. +1/-1 are used as they are; 0/1 labels are mapped 0 -> -1. Anything else, or 0 and -1 in
// the same shard (an ambiguous file), is an InvalidArgument naming the file and the 1-based row
// of the whole file. The mapping is reported through Metrics ("label_zeros", "label_minus_ones")
// and appears in summary.json as "label_mapping": "0/1 -> -1/+1" or "±1".
//
// Thread-safety: the free functions are pure; a MarginShard is owned by one worker thread.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/dynamic_app.h"

namespace strads::margin {

// Per-row loss and its first two derivatives with respect to the margin m.
struct RowTerms {
  double loss = 0;
  double d1 = 0;
  double d2 = 0;
};

struct LabelCounts {
  uint64_t zeros = 0;       // rows labelled 0 (mapped to -1)
  uint64_t minus_ones = 0;  // rows labelled -1
};

// Maps y in place to +/-1 (0 -> -1). `first_row` is the 0-based index in the file of y[0].
// Errors: InvalidArgument "PATH: label V at row N is not binary (use ±1 or 0/1)", or naming two
// rows when both 0 and -1 occur.
inline Result<LabelCounts> ToSignedLabels(Eigen::VectorXd& y, uint64_t first_row,
                                          const std::string& path) {
  LabelCounts counts;
  int64_t first_zero = -1, first_minus = -1;
  for (int64_t i = 0; i < y.size(); ++i) {
    const double v = y[i];
    if (v == 1.0) continue;
    if (v == -1.0) {
      if (first_minus < 0) first_minus = i;
      ++counts.minus_ones;
    } else if (v == 0.0) {
      if (first_zero < 0) first_zero = i;
      ++counts.zeros;
      y[i] = -1.0;
    } else {
      std::ostringstream s;
      s << path << ": label " << v << " at row " << first_row + static_cast<uint64_t>(i) + 1
        << " is not binary (use ±1 or 0/1)";
      return Status::InvalidArgument(s.str());
    }
  }
  if (counts.zeros > 0 && counts.minus_ones > 0) {
    return Status::InvalidArgument(
        path + ": labels 0 (row " + std::to_string(first_row + first_zero + 1) + ") and -1 (row " +
        std::to_string(first_row + first_minus + 1) + ") both occur; use ±1 or 0/1, not a mix");
  }
  return counts;
}

// The shard of a margin loss: margins and per-row terms, kept in step with the committed model.
template <class Loss>
class MarginShard : public ShardModel {
 public:
  // REQUIRES: data.y holds +/-1 (see ToSignedLabels).
  MarginShard(Dataset data, LabelCounts labels)
      : data_(std::move(data)),
        labels_(labels),
        w_(Eigen::VectorXd::Zero(data_.x.cols())),
        margin_(Eigen::VectorXd::Zero(data_.x.rows())),
        terms_(static_cast<size_t>(data_.x.rows())),
        dirty_(static_cast<size_t>(data_.x.rows()), 0) {
    data_.x.makeCompressed();
    ExactLoss();
  }

  void Push(std::span<const uint64_t> ids, std::vector<double>& out) const override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    for (uint64_t j : ids) {
      double g = 0.0, h = 0.0;
      if (j < cols) {
        for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
          const RowTerms& t = terms_[static_cast<size_t>(it.index())];
          g += it.value() * t.d1;
          h += it.value() * it.value() * t.d2;
        }
      }
      out.push_back(g);
      out.push_back(h);
    }
  }

  void Apply(std::span<const uint64_t> ids, std::span<const double> deltas) override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    touched_.clear();
    for (size_t k = 0; k < ids.size(); ++k) {
      if (ids[k] >= cols || deltas[k] == 0.0) continue;
      const auto j = static_cast<int64_t>(ids[k]);
      w_[j] += deltas[k];
      for (SparseColMatrix::InnerIterator it(data_.x, j); it; ++it) {
        margin_[it.index()] += it.value() * deltas[k];
        const auto i = static_cast<size_t>(it.index());
        if (!dirty_[i]) {
          dirty_[i] = 1;
          touched_.push_back(i);
        }
      }
    }
    for (size_t i : touched_) {
      dirty_[i] = 0;
      const double old = terms_[i].loss;
      terms_[i] = Loss::Eval(data_.y[static_cast<int64_t>(i)], margin_[static_cast<int64_t>(i)]);
      loss_ += terms_[i].loss - old;
    }
  }

  double Loss() const override { return loss_; }

  // Recomputes the margins X w and every row's terms from scratch.
  double ExactLoss() override {
    margin_ = data_.x * w_;
    loss_ = 0.0;
    for (int64_t i = 0; i < margin_.size(); ++i) {
      terms_[static_cast<size_t>(i)] = Loss::Eval(data_.y[i], margin_[i]);
      loss_ += terms_[static_cast<size_t>(i)].loss;
    }
    return loss_;
  }

  void Gradient(uint64_t first, uint64_t end, std::span<double> out) const override {
    const auto cols = static_cast<uint64_t>(data_.x.cols());
    for (uint64_t j = first; j < end; ++j) {
      double g = 0.0;
      if (j < cols) {
        for (SparseColMatrix::InnerIterator it(data_.x, static_cast<int64_t>(j)); it; ++it) {
          g += it.value() * terms_[static_cast<size_t>(it.index())].d1;
        }
      }
      out[j - first] = g;
    }
  }

  void Metrics(std::map<std::string, double>& out) const override {
    double correct = 0.0;
    for (int64_t i = 0; i < margin_.size(); ++i) correct += data_.y[i] * margin_[i] > 0.0;
    out["correct"] = correct;
    out["rows"] = static_cast<double>(margin_.size());
    out["label_zeros"] = static_cast<double>(labels_.zeros);
    out["label_minus_ones"] = static_cast<double>(labels_.minus_ones);
  }

 private:
  Dataset data_;
  LabelCounts labels_;
  Eigen::VectorXd w_;       // the committed model restricted to this shard's columns
  Eigen::VectorXd margin_;  // X w
  std::vector<RowTerms> terms_;
  std::vector<uint8_t> dirty_;  // scratch of Apply
  std::vector<size_t> touched_;
  double loss_ = 0.0;
};

// Converts the shard's labels and builds its MarginShard.
template <class Loss>
Result<std::unique_ptr<ShardModel>> MakeMarginShard(Dataset shard) {
  auto labels = ToSignedLabels(shard.y, shard.first_row, shard.path);
  if (!labels.ok()) return labels.status();
  return std::unique_ptr<ShardModel>(
      std::make_unique<MarginShard<Loss>>(std::move(shard), *labels));
}

// "training_accuracy" and "label_mapping" from the summed Metrics of MarginShard.
inline void SummarizeBinary(const std::map<std::string, double>& metrics,
                            nlohmann::ordered_json& summary) {
  auto get = [&](const char* key) {
    auto it = metrics.find(key);
    return it == metrics.end() ? 0.0 : it->second;
  };
  if (get("rows") > 0) summary["training_accuracy"] = get("correct") / get("rows");
  const bool zeros = get("label_zeros") > 0, minus = get("label_minus_ones") > 0;
  if (zeros && minus) {
    summary["label_mapping"] = "mixed: -1 in some shards, 0 -> -1 in others";
  } else {
    summary["label_mapping"] = zeros ? "0/1 -> -1/+1" : "±1";
  }
}

}  // namespace strads::margin
