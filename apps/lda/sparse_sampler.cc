#include "apps/lda/sparse_sampler.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace strads::lda {

void WordIncrement(std::vector<TopicCount>& row, uint32_t k) {
  size_t i = 0;
  while (i < row.size() && row[i].topic != k) ++i;
  if (i == row.size()) row.push_back({k, 0});
  ++row[i].count;
  while (i > 0 && WordRowBefore(row[i], row[i - 1])) {
    std::swap(row[i], row[i - 1]);
    --i;
  }
}

bool WordDecrement(std::vector<TopicCount>& row, uint32_t k) {
  size_t i = 0;
  while (i < row.size() && row[i].topic != k) ++i;
  if (i == row.size()) return false;
  --row[i].count;
  while (i + 1 < row.size() && WordRowBefore(row[i + 1], row[i])) {
    std::swap(row[i], row[i + 1]);
    ++i;
  }
  // A zero count sorts after every positive one, so it is last now.
  if (row.back().count == 0) row.pop_back();
  return true;
}

SparseSampler::SparseSampler(uint32_t topics, double alpha, double beta, uint64_t words)
    : k_(topics),
      alpha_(alpha),
      beta_(beta),
      w_beta_(static_cast<double>(words) * beta),
      ndk_(topics, 0),
      inv_(topics),
      coef_(topics) {}

void SparseSampler::Reset(std::span<int64_t> totals) {
  totals_ = totals;
  s_ = 0;
  for (uint32_t k = 0; k < k_; ++k) {
    inv_[k] = 1.0 / (static_cast<double>(totals_[k]) + w_beta_);
    coef_[k] = alpha_ * inv_[k];
    s_ += alpha_ * beta_ * inv_[k];
  }
}

// Moves topic k's terms out of s, r and coef before its counts change, and back in after.
void SparseSampler::Unaccount(uint32_t k) {
  s_ -= alpha_ * beta_ * inv_[k];
  r_ -= ndk_[k] * beta_ * inv_[k];
}

void SparseSampler::Account(uint32_t k) {
  inv_[k] = 1.0 / (static_cast<double>(totals_[k]) + w_beta_);
  s_ += alpha_ * beta_ * inv_[k];
  r_ += ndk_[k] * beta_ * inv_[k];
  coef_[k] = (ndk_[k] + alpha_) * inv_[k];
}

void SparseSampler::BeginDoc(std::span<const TopicCount> row) {
  doc_topics_.clear();
  r_ = 0;
  for (const TopicCount& tc : row) {
    ndk_[tc.topic] = tc.count;
    doc_topics_.push_back(tc.topic);
    r_ += tc.count * beta_ * inv_[tc.topic];
    coef_[tc.topic] = (tc.count + alpha_) * inv_[tc.topic];
  }
}

uint32_t SparseSampler::Resample(uint32_t old, std::vector<TopicCount>& word_row, double u01) {
  if (!WordDecrement(word_row, old)) return kMissing;
  Unaccount(old);
  --ndk_[old];
  --totals_[old];
  Account(old);
  if (ndk_[old] == 0) {
    *std::find(doc_topics_.begin(), doc_topics_.end(), old) = doc_topics_.back();
    doc_topics_.pop_back();
  }

  const uint32_t k = Draw(word_row, u01);

  Unaccount(k);
  if (ndk_[k]++ == 0) doc_topics_.push_back(k);
  ++totals_[k];
  WordIncrement(word_row, k);
  Account(k);
  return k;
}

double SparseSampler::LogMass(std::span<const TopicCount> word_row) const {
  double q = 0;
  for (const TopicCount& tc : word_row) q += coef_[tc.topic] * tc.count;
  return std::log(s_ + r_ + q);
}

void SparseSampler::FinishDoc(std::vector<TopicCount>& row) {
  std::sort(doc_topics_.begin(), doc_topics_.end());
  row.clear();
  for (uint32_t k : doc_topics_) row.push_back({k, ndk_[k]});
  ClearDoc();
}

void SparseSampler::ClearDoc() {
  for (uint32_t k : doc_topics_) {
    ndk_[k] = 0;
    coef_[k] = alpha_ * inv_[k];
  }
  doc_topics_.clear();
}

// A topic from the full conditional, the counts already excluding the token.
uint32_t SparseSampler::Draw(const std::vector<TopicCount>& row, double u01) {
  q_terms_.resize(row.size());
  double q = 0;
  for (size_t j = 0; j < row.size(); ++j) {
    q_terms_[j] = coef_[row[j].topic] * row[j].count;
    q += q_terms_[j];
  }
  double u = u01 * (s_ + std::max(r_, 0.0) + q);
  if (u < q) {
    for (size_t j = 0; j < row.size(); ++j) {
      u -= q_terms_[j];
      if (u < 0) return row[j].topic;
    }
    return row.back().topic;  // rounding
  }
  u -= q;
  if (u < r_) {
    for (uint32_t k : doc_topics_) {
      u -= ndk_[k] * beta_ * inv_[k];
      if (u < 0) return k;
    }
    if (!doc_topics_.empty()) return doc_topics_.back();
  } else {
    u -= std::max(r_, 0.0);
  }
  // The smoothing bucket: rare, O(K).
  for (uint32_t k = 0; k < k_; ++k) {
    u -= alpha_ * beta_ * inv_[k];
    if (u < 0) return k;
  }
  return k_ - 1;
}

}  // namespace strads::lda
