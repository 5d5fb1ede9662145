// MhSampler: the per-token kernel of LightLDA's Metropolis-Hastings sampler (Yuan et al., WWW
// 2015), O(1) per token amortised and independent of K; AliasTable, the Walker/Vose alias method
// it draws its word proposals with.
//
// The target is collapsed Gibbs' full conditional, counts taken without the token:
//   p(k) ∝ (n_dk + a)(n_kw + b) / (n_k + W b).
// Each token runs `mh_steps` cycles of two MH steps from its current topic s:
//   word proposal q_w(k) ∝ (n'_kw + b) / (n'_k + W b), with n' the counts when the word tables were
//     last built (LoadWords: once per iteration, or per block visit). It is split as LightLDA's
//     implementation does: a sparse part n'_kw / (n'_k + W b) over the word's topics (one alias
//     table per word, O(K_w) to build) and a dense part b / (n'_k + W b) shared by all words (one
//     O(K) alias table), so building costs O(non-zeros + K), not O(W K). The proposal is stale
//     between builds, but the acceptance min(1, p(t) q_w(s) / (p(s) q_w(t))) evaluates q_w from
//     the same stale counts and p from the current ones, so each step targets the true p. (As in
//     LightLDA, the stale counts include the sweep-start topics, the token's own among them, so
//     the proposal is not strictly independent of the state it moves; the tests bound the effect
//     by the log-likelihood the chain reaches.)
//   doc proposal q_d(k) ∝ n_dk + a, counts with the token at its current state: a uniformly
//     random token of the document (its topic) with probability n_d / (n_d + K a), else a uniform
//     topic. O(1), and the acceptance reduces to (n_tw + b)(n_s + W b) / ((n_sw + b)(n_t + W b)).
// Target evaluations need n_kw for any k in O(1), so LoadWords scatters the sparse word rows into
// a dense table of (current, stale) counts, words x K cells of 8 bytes (a block's words in the
// engine, all words in the reference: 155 MB for 19 445 words at K = 1000); StoreWords gathers
// them back into sorted sparse rows and zeroes only the cells it used.
//
// Use: LoadWords(rows, totals) (the sampler reads and updates `totals` in place), then per
// document BeginDoc(row, topics of all its tokens), Resample per token, FinishDoc(row); finally
// StoreWords(rows). Deterministic for a given generator state.
//
// Thread-compatibility: a mutable value used by one thread.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

#include "apps/lda/sparse_sampler.h"

namespace strads::lda {

// Walker's alias method, built with Vose's algorithm: after Build(weights) in O(n), Draw returns
// index i with probability weights[i] / Σ weights in O(1) from one uniform.
class AliasTable {
 public:
  // REQUIRES: weights non-empty, finite, >= 0, with a positive sum.
  void Build(std::span<const double> weights);
  // REQUIRES: Build was called; 0 <= u01 < 1.
  uint32_t Draw(double u01) const {
    const double x = u01 * static_cast<double>(prob_.size());
    const auto i = std::min(static_cast<uint32_t>(x), static_cast<uint32_t>(prob_.size() - 1));
    return x - i < prob_[i] ? i : alias_[i];
  }
  size_t size() const { return prob_.size(); }

 private:
  std::vector<double> prob_;
  std::vector<uint32_t> alias_;
  std::vector<uint32_t> small_, large_;  // Build's work lists
};

class MhSampler {
 public:
  // REQUIRES: topics >= 1, alpha > 0, beta > 0, words >= 1, mh_steps >= 1.
  MhSampler(uint32_t topics, double alpha, double beta, uint64_t words, uint32_t mh_steps = 2);

  // Builds the word tables from `rows` (word j's row in WordRowBefore order, j local to the
  // range being sampled) and the topic totals `totals` (K entries, updated in place from now
  // on; must outlive the sweep). REQUIRES: no words loaded.
  void LoadWords(std::span<const std::vector<TopicCount>> rows, std::span<int64_t> totals);

  // Opens a document with counts `row` (sorted by topic) whose tokens' topics are `doc_topics`
  // (every token of the document, in any fixed order; Resample updates them).
  void BeginDoc(std::span<const TopicCount> row, std::span<uint32_t> doc_topics);

  // Resamples token `pos` of the open document, whose word is local word `word`. Returns the new
  // topic (also stored in doc_topics[pos]), or kMissing, changing nothing, when the word has no
  // count for the token's topic (corrupt input: callers report it).
  static constexpr uint32_t kMissing = UINT32_MAX;
  uint32_t Resample(uint32_t word, uint64_t pos, std::mt19937_64& rng);

  // Closes the open document, storing its counts in `row` sorted by topic.
  void FinishDoc(std::vector<TopicCount>& row);

  // Writes the current counts back into `rows` (the ones LoadWords read, in WordRowBefore order)
  // and unloads the words.
  void StoreWords(std::span<std::vector<TopicCount>> rows);

 private:
  struct Cell {
    int32_t now = 0;    // n_kw
    int32_t stale = 0;  // n'_kw: at LoadWords
  };
  struct WordAlias {
    uint64_t begin = 0, end = 0;  // entries [begin, end) of alias_
    double sparse_mass = 0;       // Σ_k n'_kw / (n'_k + W b)
  };
  struct AliasEntry {
    double prob = 0;
    uint32_t topic = 0, alias = 0;
  };

  Cell* Row(uint32_t word) { return &cells_[static_cast<uint64_t>(word) * k_]; }
  uint32_t DrawWord(uint32_t word, double u01) const;

  const uint32_t k_, steps_;
  const double alpha_, beta_, w_beta_;
  std::span<int64_t> totals_;
  std::vector<double> stale_inv_;    // 1 / (n'_k + W b)
  AliasTable dense_;                 // ∝ b / (n'_k + W b)
  double dense_mass_ = 0;            // Σ_k b / (n'_k + W b)
  std::vector<WordAlias> words_;     // per loaded word
  std::vector<AliasEntry> alias_;    // the words' sparse alias tables, concatenated
  std::vector<Cell> cells_;          // loaded words x K, row-major; zero outside the loaded rows
  std::vector<uint64_t> new_cells_;  // word * K + topic of cells that went 0 -> 1 with stale 0
  std::vector<int32_t> ndk_;         // the open document's counts, dense; zero outside it
  std::vector<uint32_t> doc_topics_list_;  // topics with ndk_ > 0 (maybe stale entries)
  std::span<uint32_t> doc_z_;
  // Build scratch.
  std::vector<double> weights_, prob_scratch_;
  std::vector<uint32_t> alias_scratch_, small_, large_;
};

}  // namespace strads::lda
