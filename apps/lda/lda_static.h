// The pieces of the static engine's LDA app (lda_app.h): the layout every member derives from the
// data, the word-topic block's wire encoding, the worker's shard and the scheduler's home, and an
// invariant check over all of them for tests.
//
// Layout. Every member loads the corpus and cuts it identically (a pure function of data and
// spec): documents into P contiguous shards and words into B contiguous blocks, both with
// BlockBoundaries (engine/rotation_plan.h) by `--balance` — work = tokens per document / per
// word, + 1 so an empty item still costs something — or by count. The initial topic of global
// token i (Corpus::token_words order) is InitialTopic(seed, i, K), a pure hash, so a home computes
// its blocks' word-topic counts and a worker its doc-topic counts without talking.
//
// Block encoding (StaticBlock::ints) of block b = words [first, end):
//   first, end, then for each word in order: n, then its n entries, topic << 32 | count,
// with the row in WordRowBefore order (count descending, then topic), every count >= 1 and a
// row's counts summing to the word's tokens in the corpus. BlockCodec::Decode checks all of this
// and returns InvalidArgument naming the block on any deviation, so a bad block fails the job
// instead of corrupting (or crashing) the sampler.
//
// Checkpoints (StaticShard/StaticHome::SaveState, RestoreState), by global ids so that a run
// with other P and S can take its part: a shard saves one "z" piece, first = its first global
// token (Corpus::token_words order), ints = every token's topic in that order; a home saves one
// "word_topic_rows" piece per owned block, first = the block's first word, ints = the block's
// encoding as above (first, end, rows). A restored shard takes the topics of its tokens and
// recounts its doc-topic rows; a restored home takes the rows of its blocks' words and encodes
// (and decodes, so checks) them. Both fail with InvalidArgument when a token or word is missing
// from the pieces or a value is out of range. Pieces hold about kStatePieceInts ints at most (a
// z piece that many tokens, a word-topic piece the rows of consecutive words of one block), so
// they travel in messages of bounded size (engine/static_wire.h).
//
// Thread-compatibility: every class here is owned by one thread (see engine/static_app.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "apps/lda.pb.h"
#include "apps/lda/corpus.h"
#include "apps/lda/mh_sampler.h"
#include "apps/lda/sparse_sampler.h"
#include "common/status.h"
#include "engine/static_app.h"

namespace strads::lda {

// The most ints a checkpoint piece holds (about; a word-topic piece ends at a word's row): 2 M,
// at most ~16 MB on the wire (8 bytes for a packed word-topic entry, 3 for a topic).
inline constexpr size_t kStatePieceInts = size_t{1} << 21;

// The topic of global token `token` in the initial state: a SplitMix64 hash of (seed, token)
// reduced mod `topics`. REQUIRES: topics >= 1.
uint32_t InitialTopic(uint64_t seed, uint64_t token, uint32_t topics);

// The cut of the corpus every member derives.
struct StaticLayout {
  Corpus corpus;
  std::vector<uint64_t> doc_bounds;   // P + 1: shard p holds documents [doc_bounds[p], [p + 1])
  std::vector<uint64_t> word_bounds;  // B + 1: block b holds words [word_bounds[b], [b + 1])
};

// Loads spec.data_path() (errors name file:line) and cuts it for `workers` shards and `blocks`
// blocks by spec.static_engine().balance(). REQUIRES: workers >= 1, blocks >= 1.
Result<StaticLayout> LoadStaticLayout(const proto::JobSpec& spec, uint32_t workers,
                                      uint32_t blocks);

// Encodes and decodes word-topic blocks (format above). Holds a scratch buffer: one per owner.
class BlockCodec {
 public:
  BlockCodec(const StaticLayout& layout, uint32_t topics);

  uint32_t blocks() const { return static_cast<uint32_t>(word_bounds_.size() - 1); }
  uint64_t first_word(uint32_t block) const { return word_bounds_[block]; }
  uint64_t end_word(uint32_t block) const { return word_bounds_[block + 1]; }
  // The most words a block has.
  uint64_t max_width() const { return max_width_; }
  uint32_t topics() const { return topics_; }

  // Writes rows[j] (the row of word first_word(id) + j, WordRowBefore order) into `out`.
  // REQUIRES: rows.size() >= end_word(id) - first_word(id).
  void Encode(uint32_t id, std::span<const std::vector<TopicCount>> rows, StaticBlock& out) const;

  // Fills rows[j] for word first_word(block.id) + j; `rows` is grown as needed, never shrunk
  // (its entries beyond the block are left alone). InvalidArgument on any deviation from the
  // format, naming the block.
  Status Decode(const StaticBlock& block, std::vector<std::vector<TopicCount>>& rows);

 private:
  uint32_t topics_;
  std::vector<uint64_t> word_bounds_;
  std::vector<uint32_t> word_tokens_;  // tokens of each word in the corpus
  uint64_t max_width_ = 0;
  std::vector<uint64_t> stamp_;  // per topic: the row that last used it (duplicate check)
  uint64_t row_serial_ = 0;
};

// Worker side: documents [first_doc, end_doc) with their tokens' topics and doc-topic counts.
//
// Tokens are stored grouped by block and, within a block, by document (in document order), so a
// sub-round walks a contiguous range and opens each document once per block. Process samples
// (pass 0) or measures (pass 1, the evaluation pass) the tokens whose words are in the block:
//   sampling: the block is decoded, the SparseSampler runs against a private copy of the topic
//     totals (the sub-round's aggregates plus this shard's own changes, so with P = 1 it is exact
//     collapsed Gibbs; with P > 1 other shards' changes of the same sub-round are seen one
//     sub-round later), the block is encoded back, and the changes to the totals go to `delta`.
//     Randomness comes from a generator seeded by (seed, iteration, rank, block). With
//     LdaSpec.sampler "mh" the MhSampler (LightLDA) replaces the SparseSampler: its word
//     tables (dense counts of the block's words, alias tables) are built on each block visit, and
//     the shard keeps a copy of every document's token topics in document order for its doc
//     proposal.
//   evaluation: Σ log Σ_k θ_dk φ_kw over the tokens (lda_reference.h's definition), added to the
//     shard's loglik_sum for this iteration; nothing changes.
class LdaShard final : public StaticShard {
 public:
  // `lda`: the spec's parameters (LdaApp::Validate has accepted them).
  LdaShard(const proto::JobSpec& spec, const proto::LdaSpec& lda, const StaticLayout& layout,
           uint32_t rank);

  uint64_t rows() const override { return doc_len_.size(); }
  uint64_t items() const override { return words_in_corpus_; }
  uint64_t work() const override { return words_.size(); }
  std::vector<double> InitialAggregates() const override;
  Result<uint64_t> Process(const StaticStep& step, std::span<const double> aggregates,
                           StaticBlock& block, std::span<double> delta) override;
  // Adds loglik_sum and tokens of the last evaluation, documents; rank 0 also adds topics, alpha
  // and beta (so that the engine's sum over members holds each of them once, for Summarize).
  void Metrics(std::map<std::string, double>& out) const override;
  // One "doc_topic" piece: first = first_doc, width = documents, ints = (doc, topic, count)
  // triplets with 0-based global doc ids.
  void Output(std::vector<proto::OutputPiece>& out) const override;
  // The "z" pieces (see the top of this file), and the shard's tokens' topics taken from them;
  // it keeps the z pieces that overlap its tokens.
  void SaveState(std::vector<proto::OutputPiece>& out) const override;
  Status RestoreState(const StatePieces& pieces) override;
  bool KeepsForRestore(const proto::OutputPiece& piece) const override;
  // SaveState's piece size (kStatePieceInts; tests make it small).
  void set_state_piece_ints(size_t n) { state_piece_ints_ = std::max<size_t>(1, n); }

  // Inspection, for invariant checks.
  uint64_t first_doc() const { return first_doc_; }
  uint64_t doc_length(uint64_t local_doc) const { return doc_len_[local_doc]; }
  const std::vector<std::vector<TopicCount>>& doc_rows() const { return doc_rows_; }
  // The aggregates the last Process saw, and the shard's private totals after it (seen + delta).
  const std::vector<int64_t>& seen_totals() const { return seen_; }
  const std::vector<int64_t>& private_totals() const { return totals_; }
  // Calls f(local_doc, word, topic) for every token of the shard.
  template <typename F>
  void ForEachToken(F&& f) const {
    for (size_t s = 0; s + 1 < seg_begin_.size(); ++s) {
      for (uint64_t i = seg_begin_[s]; i < seg_begin_[s + 1]; ++i) f(seg_doc_[s], words_[i], z_[i]);
    }
  }
  const BlockCodec& codec() const { return codec_; }

 private:
  // Recounts doc_rows_ (and, for mh, doc_z_) from z_.
  void CountDocRows();
  // Calls f(i, t) for every token of the shard: i its place in z_ (block order), t its place in
  // the shard's document order.
  template <typename F>
  void ForEachDocPlace(F&& f) const {
    for (size_t s = 0; s + 1 < seg_begin_.size(); ++s) {
      const uint64_t base = doc_start_[seg_doc_[s]];
      for (uint64_t i = seg_begin_[s]; i < seg_begin_[s + 1]; ++i) f(i, base + doc_pos_[i]);
    }
  }
  Status Sample(const StaticStep& step, StaticBlock& block, std::span<double> delta);
  Status SampleMh(const StaticStep& step, StaticBlock& block, std::span<double> delta);
  void Evaluate(const StaticStep& step, uint32_t block);

  const uint32_t rank_, topics_;
  const double alpha_, beta_;
  const uint64_t seed_, first_doc_, first_token_, words_in_corpus_;
  BlockCodec codec_;
  SparseSampler sampler_;
  std::unique_ptr<MhSampler> mh_;                  // set iff LdaSpec.sampler is "mh"
  std::vector<uint64_t> doc_len_;                  // per local document
  std::vector<std::vector<TopicCount>> doc_rows_;  // per local document, sorted by topic
  std::vector<uint32_t> words_;                    // per token, grouped as described above
  std::vector<uint32_t> z_;                        // per token: its topic
  std::vector<uint64_t> seg_begin_;  // segments (one document in one block): token ranges
  std::vector<uint32_t> seg_doc_;    // per segment: its local document
  std::vector<uint64_t> block_seg_;  // B + 1: block b's segments [block_seg_[b], [b + 1])
  // Where each local document's tokens start in the shard's document order, and per token (z_
  // order) its position within its document (for checkpoints and mh); mh only: the tokens'
  // topics in document order (a copy of z_).
  std::vector<uint64_t> doc_start_;
  std::vector<uint32_t> doc_pos_;
  std::vector<uint32_t> doc_z_;
  std::vector<std::vector<TopicCount>> rows_;  // the decoded block being worked on
  std::vector<int64_t> seen_, totals_;
  size_t state_piece_ints_ = kStatePieceInts;
  uint64_t eval_iteration_ = UINT64_MAX;  // iteration whose evaluation loglik_sum_ holds
  double loglik_sum_ = 0;
  uint64_t eval_tokens_ = 0;
};

// Scheduler side: the blocks b with b mod S == rank, kept encoded while at home. TakeBlock moves
// a block out; ReturnBlock decodes it (so a malformed block is an error here too) and keeps it.
class LdaHome final : public StaticHome {
 public:
  // `lda`: the spec's parameters, as LdaShard. `vocab` may be empty (topics.txt then shows
  // 1-based word ids).
  LdaHome(const proto::JobSpec& spec, const proto::LdaSpec& lda, const StaticLayout& layout,
          uint32_t rank, uint32_t schedulers, std::vector<std::string> vocab);

  Result<StaticBlock> TakeBlock(uint32_t block, const StaticStep& step) override;
  Status ReturnBlock(StaticBlock block, const StaticStep& step) override;
  // Adds words: the words of the owned blocks.
  void Metrics(std::map<std::string, double>& out) const override;
  // One "word_topic" piece per owned block (first = its first word, width = its words, ints =
  // (word, topic, count) triplets, 0-based) and one "topic_words" piece: per topic its top
  // kTopWords (topic, word, count) triplets among the owned words, and in `text` the vocabulary
  // string of each triplet's word, one a line (empty without a vocabulary).
  void Output(std::vector<proto::OutputPiece>& out) const override;

  // "word_topic_rows" pieces of the owned blocks (see the top of this file), and the owned
  // blocks' rows taken from such pieces; it keeps those that overlap its blocks. REQUIRES for
  // SaveState: every owned block at home.
  void SaveState(std::vector<proto::OutputPiece>& out) const override;
  Status RestoreState(const StatePieces& pieces) override;
  bool KeepsForRestore(const proto::OutputPiece& piece) const override;
  // SaveState's piece size (kStatePieceInts; tests make it small).
  void set_state_piece_ints(size_t n) { state_piece_ints_ = std::max<size_t>(1, n); }

  // Inspection: the block if it is at home (owned and not taken), else nullptr.
  const StaticBlock* AtHome(uint32_t block) const;
  const BlockCodec& codec() const { return codec_; }

 private:
  bool Owns(uint32_t block) const {
    return block < codec_.blocks() && block % schedulers_ == rank_;
  }

  const uint32_t rank_, schedulers_;
  BlockCodec codec_;
  std::vector<std::string> vocab_;
  std::vector<std::unique_ptr<StaticBlock>> blocks_;  // by block id; null if not owned or taken
  size_t state_piece_ints_ = kStatePieceInts;
};

// Words per topic in topics.txt.
inline constexpr uint32_t kTopWords = 20;

// The count invariants of a run of LdaApp between sub-rounds (RunStaticLocally's hook): every
// doc-topic row has positive counts in topic order that are exactly its tokens' topics; all shards
// saw the same aggregates, and those plus every shard's changes are the column sums of the
// doc-topic tables; every block in `held` or at a home decodes (so its rows have positive counts
// summing to their words' token counts) and its rows are exactly the counts of its words' tokens'
// topics over all shards; each block is in one place; when every block is visible the word-topic
// column sums equal the doc-topic ones. FailedPrecondition naming the first violation.
Status CheckStaticInvariants(const std::vector<StaticShard*>& shards,
                             const std::vector<StaticHome*>& homes,
                             const std::vector<StaticBlock*>& held);

}  // namespace strads::lda
