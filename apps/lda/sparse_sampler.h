// SparseSampler: the per-token kernel of SparseLDA collapsed Gibbs sampling (Yao, Mimno,
// McCallum, KDD 2009), shared by the sequential reference (lda_reference.h) and the static
// engine's app (lda_app.h), and the sparse count rows both keep.
//
// The full conditional of a token's topic, with the counts taken without the token,
//   (n_dk + a)(n_kw + b) / (n_k + W b) =  a b / (n_k + W b)              s: all k
//                                       + n_dk b / (n_k + W b)            r: topics of the doc
//                                       + (n_dk + a) n_kw / (n_k + W b)   q: topics of the word
// is drawn from three buckets. s is a global sum and r a per-document sum, both kept up to date
// in O(1) per count change; q is recomputed per token over the word's non-zero topics only. So a
// token costs O(K_d + K_w), not O(K): only the rare draws that land in s (mass a b Σ_k 1/(n_k+Wb),
// small for small a b) walk all K topics. The same decomposition gives the smoothed likelihood
// of a token, Σ_k θ_dk φ_kw = (s + r + q) / (n_d + K a), in O(K_d + K_w) (LogMass).
//
// Use: Reset(totals) once per sweep (the sampler then reads and updates `totals` in place); per
// document BeginDoc(row), then Resample or LogMass per token, then FinishDoc(row) (write the
// counts back) or ClearDoc() (leave the row as it was). The word rows belong to the caller; the
// sampler keeps them in WordRowBefore order.
//
// Thread-compatibility: a SparseSampler is a mutable value used by one thread.
#pragma once

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace strads::lda {

// One non-zero count of a sparse row.
struct TopicCount {
  uint32_t topic = 0;  // 0-based
  int32_t count = 0;   // > 0 in a valid state (signed so invariant checks can see corruption)
};

// The word-topic row order: descending count, then ascending topic.
inline bool WordRowBefore(const TopicCount& a, const TopicCount& b) {
  return a.count > b.count || (a.count == b.count && a.topic < b.topic);
}

// Adds one to topic k of a word row, keeping the row in WordRowBefore order.
void WordIncrement(std::vector<TopicCount>& row, uint32_t k);

// Takes one from topic k of a word row, dropping the entry at zero. Returns false, changing
// nothing, when k is not in the row.
bool WordDecrement(std::vector<TopicCount>& row, uint32_t k);

// A uniform double in [0, 1) from 53 random bits: the same on every standard library.
inline double Uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

class SparseSampler {
 public:
  // REQUIRES: topics >= 1, alpha > 0, beta > 0, words >= 1.
  SparseSampler(uint32_t topics, double alpha, double beta, uint64_t words);

  // Starts a sweep against the topic totals n_k (`totals`, K entries), which the sampler updates
  // in place and which must outlive the sweep. The cached per-topic terms are rebuilt here, so
  // rounding drift in the running sums stays small. REQUIRES: no document is open.
  void Reset(std::span<int64_t> totals);

  // Opens a document with counts `row` (sorted by topic, as FinishDoc stores them).
  void BeginDoc(std::span<const TopicCount> row);

  // Resamples one token of the open document: takes topic `old` out of the document, the word's
  // row and the totals, draws a new topic from the full conditional with the uniform `u01` in
  // [0, 1), and adds it back everywhere. Returns the new topic, or kMissing, changing nothing,
  // when `word_row` has no count for `old` (a corrupt row: callers report it).
  // REQUIRES: `old` is counted in the document and the totals.
  static constexpr uint32_t kMissing = UINT32_MAX;
  uint32_t Resample(uint32_t old, std::vector<TopicCount>& word_row, double u01);

  // log((s + r + q) for a token of the open document with word row `word_row`), the counts taken
  // with every token included: log Σ_k θ_dk φ_kw + log(n_d + K alpha).
  double LogMass(std::span<const TopicCount> word_row) const;

  // Closes the open document, storing its counts in `row` sorted by topic.
  void FinishDoc(std::vector<TopicCount>& row);
  // Closes the open document without storing its counts.
  void ClearDoc();

 private:
  void Unaccount(uint32_t k);
  void Account(uint32_t k);
  uint32_t Draw(const std::vector<TopicCount>& row, double u01);

  const uint32_t k_;
  const double alpha_, beta_, w_beta_;
  std::span<int64_t> totals_;
  std::vector<int32_t> ndk_;          // the open document's counts, dense; zero outside it
  std::vector<uint32_t> doc_topics_;  // topics with ndk_ > 0
  std::vector<double> inv_;           // 1 / (n_k + W beta)
  std::vector<double> coef_;          // (ndk_ + alpha) inv_: the q bucket's per-topic factor
  std::vector<double> q_terms_;
  double s_ = 0;  // Σ_k alpha beta inv_k
  double r_ = 0;  // Σ_k ndk_k beta inv_k over the open document
};

}  // namespace strads::lda
