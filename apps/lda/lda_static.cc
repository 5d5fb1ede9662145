#include "apps/lda/lda_static.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "apps/lda/topic_output.h"
#include "engine/rotation_plan.h"

// Why SparseLDA here too (see also lda_reference.cc): a token's cost is O(K_d + K_w), the topics
// present in its document and for its word, instead of the O(K) of the textbook sampler, so
// K = 1000 costs about what K = 100 does once the chain has left its random start. Alias/MH
// samplers (LightLDA) would make draws O(1) amortised but need alias tables per word rebuilt from
// the travelling block and only approximate the conditional; SparseLDA is exact, needs nothing but
// the sparse rows the block carries anyway, and keeps the engine comparable with the reference:
// with P = 1 it runs the reference's chain (the same kernel, only another random start and draws).

namespace strads::lda {
namespace {

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

// SplitMix64's step and finaliser: a bijective 64-bit mix.
uint64_t Mix(uint64_t z) {
  z += kGolden;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The seed of the generator a shard samples block `block` with in `iteration`.
uint64_t StreamSeed(uint64_t seed, uint64_t iteration, uint32_t rank, uint32_t block) {
  return Mix(Mix(Mix(Mix(seed ^ 0x4c4441ULL) ^ iteration) ^ rank) ^ block);
}

// A row entry as one int: topic in the high 32 bits, count (>= 1) in the low 32.
int64_t PackEntry(const TopicCount& tc) {
  return static_cast<int64_t>((uint64_t{tc.topic} << 32) | static_cast<uint32_t>(tc.count));
}

Status Corrupt(const std::string& what) { return Status::FailedPrecondition("lda: " + what); }

}  // namespace

uint32_t InitialTopic(uint64_t seed, uint64_t token, uint32_t topics) {
  return static_cast<uint32_t>(Mix(Mix(seed) + token * kGolden) % topics);
}

Result<StaticLayout> LoadStaticLayout(const proto::JobSpec& spec, uint32_t workers,
                                      uint32_t blocks) {
  const Result<Balance> balance = ParseBalance(
      spec.static_engine().balance().empty() ? "work" : spec.static_engine().balance());
  if (!balance.ok()) return Status::InvalidArgument("--balance: " + balance.status().message());
  STRADS_ASSIGN_OR_RETURN(Corpus corpus, LoadUciBagOfWords(spec.data_path()));
  StaticLayout layout;
  layout.corpus = std::move(corpus);
  const Corpus& c = layout.corpus;
  std::vector<uint64_t> work(c.docs);
  for (uint64_t d = 0; d < c.docs; ++d) work[d] = c.doc_begin[d + 1] - c.doc_begin[d] + 1;
  layout.doc_bounds = BlockBoundaries(work, workers, balance.value());
  work.assign(c.words, 1);
  for (uint32_t w : c.token_words) ++work[w];
  layout.word_bounds = BlockBoundaries(work, blocks, balance.value());
  return layout;
}

// --- BlockCodec ---

BlockCodec::BlockCodec(const StaticLayout& layout, uint32_t topics)
    : topics_(topics),
      word_bounds_(layout.word_bounds),
      word_tokens_(layout.corpus.words, 0),
      stamp_(topics, 0) {
  for (uint32_t w : layout.corpus.token_words) ++word_tokens_[w];
  for (uint32_t b = 0; b < blocks(); ++b)
    max_width_ = std::max(max_width_, end_word(b) - first_word(b));
}

void BlockCodec::Encode(uint32_t id, std::span<const std::vector<TopicCount>> rows,
                        StaticBlock& out) const {
  const uint64_t width = end_word(id) - first_word(id);
  out.id = id;
  out.ints.clear();
  out.doubles.clear();
  out.ints.push_back(static_cast<int64_t>(first_word(id)));
  out.ints.push_back(static_cast<int64_t>(end_word(id)));
  for (uint64_t j = 0; j < width; ++j) {
    out.ints.push_back(static_cast<int64_t>(rows[j].size()));
    for (const TopicCount& tc : rows[j]) out.ints.push_back(PackEntry(tc));
  }
}

Status BlockCodec::Decode(const StaticBlock& block, std::vector<std::vector<TopicCount>>& rows) {
  const std::string name = fmt::format("word-topic block {}", block.id);
  if (block.id >= blocks()) {
    return Status::InvalidArgument(fmt::format("{}: no such block (there are {})", name, blocks()));
  }
  const std::vector<int64_t>& in = block.ints;
  const uint64_t first = first_word(block.id), end = end_word(block.id);
  if (in.size() < 2 || in[0] != static_cast<int64_t>(first) || in[1] != static_cast<int64_t>(end)) {
    return Status::InvalidArgument(
        fmt::format("{}: does not start with its word range {} {}", name, first, end));
  }
  if (rows.size() < end - first) rows.resize(end - first);
  size_t at = 2;
  for (uint64_t w = first; w < end; ++w) {
    std::vector<TopicCount>& row = rows[w - first];
    row.clear();
    if (at >= in.size() || in[at] < 0 || static_cast<uint64_t>(in[at]) > in.size() - at - 1) {
      return Status::InvalidArgument(fmt::format("{}: bad length of word {}'s row", name, w));
    }
    const auto n = static_cast<size_t>(in[at++]);
    ++row_serial_;
    int64_t sum = 0;
    for (size_t j = 0; j < n; ++j, ++at) {
      const int64_t topic = in[at] >> 32, count = in[at] & 0xffffffff;
      if (in[at] < 0 || topic >= topics_ || count < 1 || count > word_tokens_[w] ||
          stamp_[topic] == row_serial_) {
        return Status::InvalidArgument(
            fmt::format("{}: word {} has a bad entry (topic {}, count {})", name, w, topic, count));
      }
      stamp_[topic] = row_serial_;
      const TopicCount tc{static_cast<uint32_t>(topic), static_cast<int32_t>(count)};
      if (!row.empty() && !WordRowBefore(row.back(), tc)) {
        return Status::InvalidArgument(fmt::format("{}: word {}'s row is out of order", name, w));
      }
      row.push_back(tc);
      sum += count;
    }
    if (sum != word_tokens_[w]) {
      return Status::InvalidArgument(fmt::format(
          "{}: word {}'s counts sum to {}, not its {} tokens", name, w, sum, word_tokens_[w]));
    }
  }
  if (at != in.size()) {
    return Status::InvalidArgument(fmt::format("{}: {} ints too many", name, in.size() - at));
  }
  return Status::Ok();
}

// --- LdaShard ---

LdaShard::LdaShard(const proto::JobSpec& spec, const proto::LdaSpec& lda,
                   const StaticLayout& layout, uint32_t rank)
    : rank_(rank),
      topics_(lda.topics()),
      alpha_(lda.alpha()),
      beta_(lda.beta()),
      seed_(spec.seed()),
      first_doc_(layout.doc_bounds[rank]),
      first_token_(layout.corpus.doc_begin[layout.doc_bounds[rank]]),
      words_in_corpus_(layout.corpus.words),
      codec_(layout, lda.topics()),
      sampler_(lda.topics(), lda.alpha(), lda.beta(), layout.corpus.words),
      seen_(lda.topics(), 0),
      totals_(lda.topics(), 0) {
  const Corpus& c = layout.corpus;
  const uint64_t end_doc = layout.doc_bounds[rank + 1];
  const uint32_t blocks = codec_.blocks();
  std::vector<uint32_t> block_of_word(c.words);
  for (uint32_t b = 0; b < blocks; ++b) {
    std::fill(block_of_word.begin() + codec_.first_word(b),
              block_of_word.begin() + codec_.end_word(b), b);
  }
  // Counting sort of the shard's tokens by block; stable, so by document within a block.
  const uint64_t end_token = c.doc_begin[end_doc];
  std::vector<uint64_t> start(blocks + 1, 0);
  for (uint64_t i = first_token_; i < end_token; ++i) ++start[block_of_word[c.token_words[i]] + 1];
  for (uint32_t b = 0; b < blocks; ++b) start[b + 1] += start[b];
  words_.resize(end_token - first_token_);
  z_.resize(words_.size());
  std::vector<uint32_t> token_doc(words_.size());
  if (lda.sampler() == "mh") mh_ = std::make_unique<MhSampler>(topics_, alpha_, beta_, c.words);
  doc_start_.resize(end_doc - first_doc_);
  doc_pos_.resize(words_.size());
  doc_len_.resize(end_doc - first_doc_);
  for (uint64_t d = first_doc_; d < end_doc; ++d) {
    const auto local = static_cast<uint32_t>(d - first_doc_);
    doc_len_[local] = c.doc_begin[d + 1] - c.doc_begin[d];
    doc_start_[local] = c.doc_begin[d] - first_token_;
    for (uint64_t i = c.doc_begin[d]; i < c.doc_begin[d + 1]; ++i) {
      const uint32_t w = c.token_words[i], k = InitialTopic(seed_, i, topics_);
      const uint64_t at = start[block_of_word[w]]++;
      words_[at] = w;
      z_[at] = k;
      token_doc[at] = local;
      doc_pos_[at] = static_cast<uint32_t>(i - c.doc_begin[d]);
    }
  }
  // Segments: maximal runs of one document within one block. start[b] is now block b's end.
  block_seg_.assign(1, 0);
  uint64_t begin = 0;
  for (uint32_t b = 0; b < blocks; ++b) {
    for (uint64_t i = begin; i < start[b]; ++i) {
      if (i == begin || token_doc[i] != token_doc[i - 1]) {
        seg_begin_.push_back(i);
        seg_doc_.push_back(token_doc[i]);
      }
    }
    block_seg_.push_back(seg_doc_.size());
    begin = start[b];
  }
  seg_begin_.push_back(words_.size());
  rows_.resize(codec_.max_width());
  token_doc = {};
  if (mh_ != nullptr) doc_z_.resize(z_.size());
  CountDocRows();
}

void LdaShard::CountDocRows() {
  // z_ in document order: each token at doc_start_ of its document + its position there.
  std::vector<uint32_t> zdoc;
  if (mh_ == nullptr) zdoc.resize(z_.size());
  std::vector<uint32_t>& by_doc = mh_ != nullptr ? doc_z_ : zdoc;
  ForEachDocPlace([&](uint64_t i, uint64_t t) { by_doc[t] = z_[i]; });
  doc_rows_.assign(doc_len_.size(), {});
  std::vector<int32_t> ndk(topics_, 0);
  std::vector<uint32_t> present;
  for (uint64_t d = 0; d < doc_len_.size(); ++d) {
    present.clear();
    for (uint64_t t = doc_start_[d]; t < doc_start_[d] + doc_len_[d]; ++t) {
      if (ndk[by_doc[t]]++ == 0) present.push_back(by_doc[t]);
    }
    std::sort(present.begin(), present.end());
    for (uint32_t k : present) {
      doc_rows_[d].push_back({k, ndk[k]});
      ndk[k] = 0;
    }
  }
}

void LdaShard::SaveState(std::vector<proto::OutputPiece>& out) const {
  std::vector<uint32_t> zdoc(z_.size());  // the topics in document order
  ForEachDocPlace([&](uint64_t i, uint64_t t) { zdoc[t] = z_[i]; });
  for (uint64_t from = 0; from < zdoc.size(); from += state_piece_ints_) {
    const uint64_t to = std::min<uint64_t>(zdoc.size(), from + state_piece_ints_);
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name("z");
    piece.set_first(first_token_ + from);
    piece.set_width(1);
    piece.mutable_ints()->Add(zdoc.begin() + static_cast<int64_t>(from),
                              zdoc.begin() + static_cast<int64_t>(to));
  }
}

bool LdaShard::KeepsForRestore(const proto::OutputPiece& piece) const {
  const uint64_t p0 = piece.first(), p1 = p0 + static_cast<uint64_t>(piece.ints_size());
  return piece.name() == "z" && p0 < first_token_ + z_.size() && first_token_ < p1;
}

Status LdaShard::RestoreState(const StatePieces& pieces) {
  const uint64_t n = z_.size(), end = first_token_ + n;
  constexpr uint32_t kUnset = UINT32_MAX;  // topics are < K <= LdaApp::kMaxTopics
  std::vector<uint32_t> zdoc(n, kUnset);
  uint64_t covered = 0;
  for (const auto& piece : pieces) {
    if (piece.name() != "z") continue;
    if (piece.width() != 1) {
      return Status::InvalidArgument(
          fmt::format("lda checkpoint: a z piece has width {}, not 1", piece.width()));
    }
    const uint64_t p0 = piece.first(), p1 = p0 + static_cast<uint64_t>(piece.ints_size());
    if (p1 < p0) return Status::InvalidArgument("lda checkpoint: a z piece's range overflows");
    for (uint64_t i = std::max(p0, first_token_); i < std::min(p1, end); ++i) {
      const int64_t k = piece.ints(static_cast<int>(i - p0));
      if (k < 0 || k >= topics_) {
        return Status::InvalidArgument(
            fmt::format("lda checkpoint: token {} has topic {}, K = {}", i, k, topics_));
      }
      if (zdoc[i - first_token_] != kUnset) {
        return Status::InvalidArgument(
            fmt::format("lda checkpoint: token {} is in two z pieces", i));
      }
      zdoc[i - first_token_] = static_cast<uint32_t>(k);
      ++covered;
    }
  }
  if (covered != n) {
    return Status::InvalidArgument(fmt::format(
        "lda checkpoint: {} of the {} tokens from {} are there", covered, n, first_token_));
  }
  ForEachDocPlace([&](uint64_t i, uint64_t t) { z_[i] = zdoc[t]; });
  CountDocRows();
  return Status::Ok();
}

std::vector<double> LdaShard::InitialAggregates() const {
  std::vector<double> n(topics_, 0.0);
  for (const auto& row : doc_rows_) {
    for (const TopicCount& tc : row) n[tc.topic] += tc.count;
  }
  return n;
}

Result<uint64_t> LdaShard::Process(const StaticStep& step, std::span<const double> aggregates,
                                   StaticBlock& block, std::span<double> delta) {
  if (aggregates.size() != topics_ || delta.size() != topics_) {
    return Status::Internal(fmt::format("lda shard {}: {} aggregates, expected K = {}", rank_,
                                        aggregates.size(), topics_));
  }
  STRADS_RETURN_IF_ERROR(codec_.Decode(block, rows_));
  for (uint32_t k = 0; k < topics_; ++k) {
    totals_[k] = std::llround(aggregates[k]);
    if (totals_[k] < 0) return Status::Internal(fmt::format("lda: topic total {} < 0", k));
  }
  seen_ = totals_;
  const uint32_t b = block.id;
  const uint64_t tokens = seg_begin_[block_seg_[b + 1]] - seg_begin_[block_seg_[b]];
  if (step.evaluation) {
    Evaluate(step, b);
  } else {
    STRADS_RETURN_IF_ERROR(Sample(step, block, delta));
  }
  return tokens;
}

Status LdaShard::Sample(const StaticStep& step, StaticBlock& block, std::span<double> delta) {
  if (mh_ != nullptr) return SampleMh(step, block, delta);
  const uint32_t b = block.id;
  const uint64_t first = codec_.first_word(b);
  std::mt19937_64 rng(StreamSeed(seed_, step.iteration, rank_, b));
  sampler_.Reset(totals_);
  for (uint64_t s = block_seg_[b]; s < block_seg_[b + 1]; ++s) {
    std::vector<TopicCount>& doc_row = doc_rows_[seg_doc_[s]];
    sampler_.BeginDoc(doc_row);
    for (uint64_t i = seg_begin_[s]; i < seg_begin_[s + 1]; ++i) {
      const uint32_t k = sampler_.Resample(z_[i], rows_[words_[i] - first], Uniform01(rng));
      if (k == SparseSampler::kMissing) {
        sampler_.FinishDoc(doc_row);
        return Status::InvalidArgument(
            fmt::format("word-topic block {}: word {} has no count for topic {} of a token of "
                        "shard {}",
                        b, words_[i], z_[i], rank_));
      }
      z_[i] = k;
    }
    sampler_.FinishDoc(doc_row);
  }
  codec_.Encode(b, rows_, block);
  for (uint32_t k = 0; k < topics_; ++k) delta[k] = static_cast<double>(totals_[k] - seen_[k]);
  return Status::Ok();
}

Status LdaShard::SampleMh(const StaticStep& step, StaticBlock& block, std::span<double> delta) {
  const uint32_t b = block.id;
  const uint64_t first = codec_.first_word(b), width = codec_.end_word(b) - first;
  std::mt19937_64 rng(StreamSeed(seed_, step.iteration, rank_, b));
  mh_->LoadWords(std::span<const std::vector<TopicCount>>(rows_.data(), width), totals_);
  Status status = Status::Ok();
  for (uint64_t s = block_seg_[b]; s < block_seg_[b + 1] && status.ok(); ++s) {
    const uint32_t d = seg_doc_[s];
    mh_->BeginDoc(doc_rows_[d], std::span<uint32_t>(doc_z_.data() + doc_start_[d], doc_len_[d]));
    for (uint64_t i = seg_begin_[s]; i < seg_begin_[s + 1]; ++i) {
      const uint32_t k = mh_->Resample(static_cast<uint32_t>(words_[i] - first), doc_pos_[i], rng);
      if (k == MhSampler::kMissing) {
        status = Status::InvalidArgument(
            fmt::format("word-topic block {}: word {} has no count for topic {} of a token of "
                        "shard {}",
                        b, words_[i], z_[i], rank_));
        break;
      }
      z_[i] = k;
    }
    mh_->FinishDoc(doc_rows_[d]);
  }
  // Stored even on error, so the sampler is ready for the next block.
  mh_->StoreWords(std::span<std::vector<TopicCount>>(rows_.data(), width));
  STRADS_RETURN_IF_ERROR(status);
  codec_.Encode(b, rows_, block);
  for (uint32_t k = 0; k < topics_; ++k) delta[k] = static_cast<double>(totals_[k] - seen_[k]);
  return Status::Ok();
}

void LdaShard::Evaluate(const StaticStep& step, uint32_t b) {
  if (step.iteration != eval_iteration_) {
    eval_iteration_ = step.iteration;
    loglik_sum_ = 0;
    eval_tokens_ = 0;
  }
  const uint64_t first = codec_.first_word(b);
  sampler_.Reset(totals_);
  for (uint64_t s = block_seg_[b]; s < block_seg_[b + 1]; ++s) {
    const uint32_t d = seg_doc_[s];
    sampler_.BeginDoc(doc_rows_[d]);
    const double log_norm = std::log(static_cast<double>(doc_len_[d]) + topics_ * alpha_);
    for (uint64_t i = seg_begin_[s]; i < seg_begin_[s + 1]; ++i) {
      loglik_sum_ += sampler_.LogMass(rows_[words_[i] - first]) - log_norm;
    }
    sampler_.ClearDoc();
  }
  eval_tokens_ += seg_begin_[block_seg_[b + 1]] - seg_begin_[block_seg_[b]];
}

void LdaShard::Metrics(std::map<std::string, double>& out) const {
  out["loglik_sum"] += loglik_sum_;
  out["tokens"] += static_cast<double>(eval_tokens_);
  out["documents"] += static_cast<double>(doc_len_.size());
  if (rank_ == 0) {
    out["topics"] += topics_;
    out["alpha"] += alpha_;
    out["beta"] += beta_;
  }
}

void LdaShard::Output(std::vector<proto::OutputPiece>& out) const {
  proto::OutputPiece& piece = out.emplace_back();
  piece.set_name("doc_topic");
  piece.set_first(first_doc_);
  piece.set_width(static_cast<uint32_t>(doc_len_.size()));
  for (uint64_t d = 0; d < doc_rows_.size(); ++d) {
    for (const TopicCount& tc : doc_rows_[d]) {
      piece.add_ints(static_cast<int64_t>(first_doc_ + d));
      piece.add_ints(tc.topic);
      piece.add_ints(tc.count);
    }
  }
}

// --- LdaHome ---

LdaHome::LdaHome(const proto::JobSpec& spec, const proto::LdaSpec& lda, const StaticLayout& layout,
                 uint32_t rank, uint32_t schedulers, std::vector<std::string> vocab)
    : rank_(rank),
      schedulers_(schedulers),
      codec_(layout, lda.topics()),
      vocab_(std::move(vocab)),
      blocks_(codec_.blocks()) {
  const Corpus& c = layout.corpus;
  const uint32_t topics = lda.topics();
  // The owned words' tokens, grouped by word (a counting sort), then counted per word.
  std::vector<uint64_t> start(c.words + 1, 0);
  std::vector<bool> owned(c.words, false);
  for (uint32_t b = 0; b < codec_.blocks(); ++b) {
    if (!Owns(b)) continue;
    std::fill(owned.begin() + codec_.first_word(b), owned.begin() + codec_.end_word(b), true);
  }
  for (uint32_t w : c.token_words) {
    if (owned[w]) ++start[w + 1];
  }
  for (uint64_t w = 0; w < c.words; ++w) start[w + 1] += start[w];
  std::vector<uint32_t> topic_of(start[c.words]);
  std::vector<uint64_t> next(start.begin(), start.end() - 1);
  for (uint64_t i = 0; i < c.tokens; ++i) {
    const uint32_t w = c.token_words[i];
    if (owned[w]) topic_of[next[w]++] = InitialTopic(spec.seed(), i, topics);
  }
  std::vector<int32_t> nk(topics, 0);
  std::vector<std::vector<TopicCount>> rows(codec_.max_width());
  for (uint32_t b = 0; b < codec_.blocks(); ++b) {
    if (!Owns(b)) continue;
    const uint64_t first = codec_.first_word(b);
    for (uint64_t w = first; w < codec_.end_word(b); ++w) {
      std::vector<TopicCount>& row = rows[w - first];
      row.clear();
      for (uint64_t t = start[w]; t < start[w + 1]; ++t) {
        if (nk[topic_of[t]]++ == 0) row.push_back({topic_of[t], 0});
      }
      for (TopicCount& tc : row) {
        tc.count = nk[tc.topic];
        nk[tc.topic] = 0;
      }
      std::sort(row.begin(), row.end(), WordRowBefore);
    }
    blocks_[b] = std::make_unique<StaticBlock>();
    codec_.Encode(b, rows, *blocks_[b]);
  }
}

Result<StaticBlock> LdaHome::TakeBlock(uint32_t block, const StaticStep& step) {
  if (!Owns(block)) {
    return Status::Internal(fmt::format("lda home {}: block {} is not mine", rank_, block));
  }
  if (blocks_[block] == nullptr) {
    return Status::Internal(fmt::format("lda home {}: block {} is already out", rank_, block));
  }
  StaticBlock out = std::move(*blocks_[block]);
  blocks_[block].reset();
  return out;
}

Status LdaHome::ReturnBlock(StaticBlock block, const StaticStep& step) {
  if (!Owns(block.id) || blocks_[block.id] != nullptr) {
    return Status::Internal(
        fmt::format("lda home {}: block {} returned but not taken from here", rank_, block.id));
  }
  std::vector<std::vector<TopicCount>> rows;
  STRADS_RETURN_IF_ERROR(codec_.Decode(block, rows));
  blocks_[block.id] = std::make_unique<StaticBlock>(std::move(block));
  return Status::Ok();
}

void LdaHome::SaveState(std::vector<proto::OutputPiece>& out) const {
  for (uint32_t b = 0; b < codec_.blocks(); ++b) {
    if (blocks_[b] == nullptr) continue;
    // The block's rows from word `first`, row by row, cut into pieces of about kStatePieceInts.
    const std::vector<int64_t>& in = blocks_[b]->ints;
    uint64_t first = codec_.first_word(b);
    size_t at = 2, start = 2;
    for (uint64_t w = first; w < codec_.end_word(b); ++w) {
      at += 1 + static_cast<size_t>(in[at]);
      if (at - start < state_piece_ints_ && w + 1 < codec_.end_word(b)) continue;
      proto::OutputPiece& piece = out.emplace_back();
      piece.set_name("word_topic_rows");
      piece.set_first(first);
      piece.set_width(static_cast<uint32_t>(w + 1 - first));
      auto& ints = *piece.mutable_ints();
      ints.Reserve(static_cast<int>(at - start + 2));
      ints.Add(static_cast<int64_t>(first));
      ints.Add(static_cast<int64_t>(w + 1));
      ints.Add(in.begin() + static_cast<int64_t>(start), in.begin() + static_cast<int64_t>(at));
      first = w + 1;
      start = at;
    }
  }
}

bool LdaHome::KeepsForRestore(const proto::OutputPiece& piece) const {
  if (piece.name() != "word_topic_rows") return false;
  const uint64_t p0 = piece.first(), p1 = p0 + piece.width();
  for (uint32_t b = rank_; b < codec_.blocks(); b += schedulers_) {
    if (p0 < codec_.end_word(b) && codec_.first_word(b) < p1) return true;
  }
  return false;
}

Status LdaHome::RestoreState(const StatePieces& pieces) {
  // Every saved word's row, by word: where it starts in which piece (its length first).
  struct RowAt {
    const proto::OutputPiece* piece = nullptr;
    int at = 0;
  };
  uint64_t words = 0;
  for (uint32_t b = 0; b < codec_.blocks(); ++b) words = std::max(words, codec_.end_word(b));
  std::vector<RowAt> row_at(words);
  for (const auto& piece : pieces) {
    if (piece.name() != "word_topic_rows") continue;
    const auto& in = piece.ints();
    if (in.size() < 2 || in[0] < 0 || in[1] < in[0] || static_cast<uint64_t>(in[1]) > words) {
      return Status::InvalidArgument("lda checkpoint: a word-topic piece has a bad word range");
    }
    int at = 2;
    for (auto w = static_cast<uint64_t>(in[0]); w < static_cast<uint64_t>(in[1]); ++w) {
      if (at >= in.size() || in[at] < 0 || in[at] > in.size() - at - 1) {
        return Status::InvalidArgument(
            fmt::format("lda checkpoint: bad length of word {}'s row", w));
      }
      if (row_at[w].piece != nullptr) {
        return Status::InvalidArgument(
            fmt::format("lda checkpoint: word {} is in two word-topic pieces", w));
      }
      row_at[w] = {&piece, at};
      at += 1 + static_cast<int>(in[at]);
    }
    if (at != in.size()) {
      return Status::InvalidArgument(fmt::format(
          "lda checkpoint: a word-topic piece has {} ints past its last row", in.size() - at));
    }
  }
  std::vector<std::vector<TopicCount>> rows(codec_.max_width());
  for (uint32_t b = 0; b < codec_.blocks(); ++b) {
    if (!Owns(b)) continue;
    const uint64_t first = codec_.first_word(b);
    for (uint64_t w = first; w < codec_.end_word(b); ++w) {
      if (row_at[w].piece == nullptr) {
        return Status::InvalidArgument(fmt::format("lda checkpoint: word {} is not there", w));
      }
      const auto& in = row_at[w].piece->ints();
      std::vector<TopicCount>& row = rows[w - first];
      row.clear();
      for (int j = 0; j < in[row_at[w].at]; ++j) {
        const int64_t e = in[row_at[w].at + 1 + j];
        row.push_back({static_cast<uint32_t>(e >> 32), static_cast<int32_t>(e & 0xffffffff)});
      }
    }
    auto block = std::make_unique<StaticBlock>();
    codec_.Encode(b, rows, *block);
    // Decode checks what Encode took on trust: topics, counts, order, sums per word.
    STRADS_RETURN_IF_ERROR(codec_.Decode(*block, rows));
    blocks_[b] = std::move(block);
  }
  return Status::Ok();
}

const StaticBlock* LdaHome::AtHome(uint32_t block) const {
  return block < blocks_.size() ? blocks_[block].get() : nullptr;
}

void LdaHome::Metrics(std::map<std::string, double>& out) const {
  double words = 0;
  for (uint32_t b = 0; b < codec_.blocks(); ++b) {
    if (Owns(b)) words += static_cast<double>(codec_.end_word(b) - codec_.first_word(b));
  }
  out["words"] += words;
}

void LdaHome::Output(std::vector<proto::OutputPiece>& out) const {
  std::vector<std::vector<WordCount>> by_topic(codec_.topics());
  // Output runs with every block at home; Decode cannot fail on blocks ReturnBlock accepted.
  BlockCodec codec = codec_;
  std::vector<std::vector<TopicCount>> rows;
  for (uint32_t b = 0; b < codec.blocks(); ++b) {
    if (blocks_[b] == nullptr || !codec.Decode(*blocks_[b], rows).ok()) continue;
    proto::OutputPiece& piece = out.emplace_back();
    piece.set_name("word_topic");
    const uint64_t first = codec.first_word(b);
    piece.set_first(first);
    piece.set_width(static_cast<uint32_t>(codec.end_word(b) - first));
    for (uint64_t w = first; w < codec.end_word(b); ++w) {
      for (const TopicCount& tc : rows[w - first]) {
        piece.add_ints(static_cast<int64_t>(w));
        piece.add_ints(tc.topic);
        piece.add_ints(tc.count);
        by_topic[tc.topic].push_back({tc.count, static_cast<uint32_t>(w)});
      }
    }
  }
  proto::OutputPiece& top = out.emplace_back();
  top.set_name("topic_words");
  std::string text;
  for (uint32_t k = 0; k < by_topic.size(); ++k) {
    KeepTopWords(by_topic[k], kTopWords);
    for (const auto& [count, w] : by_topic[k]) {
      top.add_ints(k);
      top.add_ints(w);
      top.add_ints(count);
      if (!vocab_.empty()) text += vocab_[w] + "\n";
    }
  }
  top.set_text(std::move(text));
}

// --- CheckStaticInvariants ---

Status CheckStaticInvariants(const std::vector<StaticShard*>& shard_ptrs,
                             const std::vector<StaticHome*>& home_ptrs,
                             const std::vector<StaticBlock*>& held) {
  std::vector<const LdaShard*> shards;
  for (StaticShard* s : shard_ptrs) {
    const auto* lda = dynamic_cast<const LdaShard*>(s);
    if (lda == nullptr) return Corrupt("a shard is not an LdaShard");
    shards.push_back(lda);
  }
  if (shards.empty()) return Corrupt("no shards");
  BlockCodec codec = shards[0]->codec();
  const uint32_t K = codec.topics(), B = codec.blocks();

  // Doc side: rows against the tokens' topics; column sums against the totals.
  std::vector<int64_t> doc_cols(K, 0), totals = shards[0]->seen_totals();
  std::vector<int64_t> dense(K, 0);
  uint64_t tokens = 0;
  std::map<std::pair<uint32_t, uint32_t>, int64_t> word_topic;  // (word, topic) -> tokens
  for (const LdaShard* shard : shards) {
    const auto& rows = shard->doc_rows();
    std::vector<std::vector<int64_t>> counts(rows.size());
    shard->ForEachToken([&](uint32_t doc, uint32_t word, uint32_t topic) {
      if (counts[doc].empty()) counts[doc].assign(K, 0);
      ++counts[doc][topic];
      ++word_topic[{word, topic}];
    });
    for (uint64_t d = 0; d < rows.size(); ++d) {
      const std::string where = fmt::format("doc_topic row {}", shard->first_doc() + d);
      int64_t sum = 0;
      for (size_t j = 0; j < rows[d].size(); ++j) {
        const TopicCount& tc = rows[d][j];
        if (tc.topic >= K || tc.count <= 0 || (j > 0 && rows[d][j - 1].topic >= tc.topic)) {
          return Corrupt(
              fmt::format("{}: bad entry (topic {}, count {})", where, tc.topic, tc.count));
        }
        if (counts[d].empty() || counts[d][tc.topic] != tc.count) {
          return Corrupt(fmt::format("{}: topic {} has count {}, its tokens say {}", where,
                                     tc.topic, tc.count,
                                     counts[d].empty() ? 0 : counts[d][tc.topic]));
        }
        doc_cols[tc.topic] += tc.count;
        sum += tc.count;
      }
      if (sum != static_cast<int64_t>(shard->doc_length(d))) {
        return Corrupt(
            fmt::format("{} sums to {}, not its {} tokens", where, sum, shard->doc_length(d)));
      }
    }
    tokens += shard->work();
    if (shard->seen_totals() != shards[0]->seen_totals()) {
      return Corrupt("shards saw different aggregates in one sub-round");
    }
    for (uint32_t k = 0; k < K; ++k) {
      totals[k] += shard->private_totals()[k] - shard->seen_totals()[k];
    }
  }
  for (uint32_t k = 0; k < K; ++k) {
    if (totals[k] != doc_cols[k] || totals[k] < 0) {
      return Corrupt(fmt::format("topic {}: aggregates + deltas = {}, doc-topic column sum {}", k,
                                 totals[k], doc_cols[k]));
    }
  }

  // Word side: every visible block, exactly once.
  std::vector<const StaticBlock*> visible(B, nullptr);
  auto see = [&](const StaticBlock* block) -> Status {
    if (block->id >= B) return Corrupt(fmt::format("block id {} out of range", block->id));
    if (visible[block->id] != nullptr) return Corrupt(fmt::format("block {} twice", block->id));
    visible[block->id] = block;
    return Status::Ok();
  };
  for (const StaticBlock* block : held) STRADS_RETURN_IF_ERROR(see(block));
  for (StaticHome* h : home_ptrs) {
    const auto* home = dynamic_cast<const LdaHome*>(h);
    if (home == nullptr) return Corrupt("a home is not an LdaHome");
    for (uint32_t b = 0; b < B; ++b) {
      if (const StaticBlock* block = home->AtHome(b)) STRADS_RETURN_IF_ERROR(see(block));
    }
  }
  std::vector<int64_t> word_cols(K, 0);
  std::vector<std::vector<TopicCount>> rows;
  bool all_visible = true;
  for (uint32_t b = 0; b < B; ++b) {
    if (visible[b] == nullptr) {
      all_visible = false;
      continue;
    }
    const Status decoded = codec.Decode(*visible[b], rows);
    if (!decoded.ok()) return Corrupt(decoded.message());
    for (uint64_t w = codec.first_word(b); w < codec.end_word(b); ++w) {
      int64_t entries = 0;
      for (const TopicCount& tc : rows[w - codec.first_word(b)]) {
        const auto it = word_topic.find({static_cast<uint32_t>(w), tc.topic});
        if (it == word_topic.end() || it->second != tc.count) {
          return Corrupt(fmt::format("word_topic word {} topic {}: count {}, its tokens say {}", w,
                                     tc.topic, tc.count, it == word_topic.end() ? 0 : it->second));
        }
        word_cols[tc.topic] += tc.count;
        ++entries;
      }
      // Every (w, topic) of the tokens must have been an entry of the row.
      const auto lo = word_topic.lower_bound({static_cast<uint32_t>(w), 0});
      const auto hi = word_topic.lower_bound({static_cast<uint32_t>(w) + 1, 0});
      if (std::distance(lo, hi) != entries) {
        return Corrupt(fmt::format("word_topic word {} misses a topic of its tokens", w));
      }
    }
  }
  if (all_visible) {
    int64_t sum = 0;
    for (uint32_t k = 0; k < K; ++k) {
      if (word_cols[k] != doc_cols[k]) {
        return Corrupt(fmt::format("topic {}: word-topic column sum {}, doc-topic {}", k,
                                   word_cols[k], doc_cols[k]));
      }
      sum += word_cols[k];
    }
    if (sum != static_cast<int64_t>(tokens)) {
      return Corrupt(fmt::format("word-topic tables sum to {}, not {} tokens", sum, tokens));
    }
  }
  return Status::Ok();
}

}  // namespace strads::lda
