#include "apps/lda/lda_reference.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <utility>

#include "apps/lda/mh_sampler.h"
#include "apps/lda/sparse_sampler.h"
#include "apps/lda/topic_output.h"

// Why SparseLDA and not an alias-table / Metropolis-Hastings sampler (LightLDA, AliasLDA):
//  * The reference is an oracle, so every draw should come from the exact full conditional.
//    SparseLDA is exact; MH samplers only approach the conditional through a short chain per
//    token and (in LightLDA) from alias tables that go stale between rebuilds.
//  * Its cost per token is O(K_d + K_w): the topics present in the document and for the word. Both
//    are bounded by lengths and vocabulary usage, not by K, so once the chain has left its random
//    start, K = 1000 costs about what K = 100 does. Only the smoothing bucket s is O(K), and a
//    draw lands there with probability s / (s + r + q), which is small when alpha * beta is.
//  * It is simple and shares the dense sampler's count tables exactly, which keeps the
//    comparison between the two honest.
// LightLDA's O(1) amortised draws matter for very large K and for a distributed engine that
// already works on stale word-topic tables; that is a choice for the engine, not the oracle.

namespace strads::lda {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

Status ValidateOptions(const Corpus& corpus, const LdaOptions& o) {
  if (o.topics == 0) return Status::InvalidArgument("lda: --topics must be at least 1");
  if (!(std::isfinite(o.alpha) && o.alpha > 0)) {
    return Status::InvalidArgument("lda: --alpha must be a finite number > 0");
  }
  if (!(std::isfinite(o.beta) && o.beta > 0)) {
    return Status::InvalidArgument("lda: --beta must be a finite number > 0");
  }
  if (corpus.words == 0) return Status::InvalidArgument("lda: the corpus has no words");
  if (corpus.doc_begin.size() != corpus.docs + 1 || corpus.token_words.size() != corpus.tokens) {
    return Status::InvalidArgument("lda: malformed corpus");
  }
  return Status::Ok();
}

// Fills the per-document table of document d from its dense counts and its topic list.
void StoreDocRow(const std::vector<int32_t>& ndk, std::vector<uint32_t>& doc_topics,
                 std::vector<TopicCount>& row) {
  std::sort(doc_topics.begin(), doc_topics.end());
  row.clear();
  for (uint32_t k : doc_topics) row.push_back({k, ndk[k]});
}

// The random initial state: every token gets a uniform topic, drawn in token order.
LdaState InitialState(const Corpus& corpus, uint32_t topics, std::mt19937_64& rng) {
  LdaState s;
  s.topics = topics;
  s.assignment.resize(corpus.tokens);
  s.doc_topic.resize(corpus.docs);
  s.word_topic.resize(corpus.words);
  s.topic_total.assign(topics, 0);
  std::vector<int32_t> ndk(topics, 0);
  std::vector<uint32_t> doc_topics;
  for (uint64_t d = 0; d < corpus.docs; ++d) {
    doc_topics.clear();
    for (uint64_t i = corpus.doc_begin[d]; i < corpus.doc_begin[d + 1]; ++i) {
      const auto k = static_cast<uint32_t>(rng() % topics);
      s.assignment[i] = k;
      if (ndk[k]++ == 0) doc_topics.push_back(k);
      ++s.topic_total[k];
      WordIncrement(s.word_topic[corpus.token_words[i]], k);
    }
    StoreDocRow(ndk, doc_topics, s.doc_topic[d]);
    for (uint32_t k : doc_topics) ndk[k] = 0;
  }
  return s;
}

// Drives a sampler's sweeps, timing them and recording the trace. `sweep` runs one iteration and
// leaves `state` up to date.
template <typename Sweep>
LdaResult RunSweeps(const Corpus& corpus, const LdaOptions& o, LdaState state, Sweep&& sweep,
                    const std::function<void(const LdaTracePoint&)>& on_iteration) {
  LdaResult result;
  double sampling = 0;
  auto record = [&](uint32_t iteration) {
    LdaTracePoint p;
    p.seconds = sampling;
    p.iteration = iteration;
    p.tokens = iteration * corpus.tokens;
    p.loglik_per_token = LogLikelihoodPerToken(corpus, state, o.alpha, o.beta);
    p.state = &state;
    if (on_iteration) on_iteration(p);
    p.state = nullptr;
    result.trace.push_back(p);
  };
  record(0);
  for (uint32_t it = 1; it <= o.iterations; ++it) {
    const Clock::time_point start = Clock::now();
    sweep(state);
    sampling += Seconds(start);
    record(it);
  }
  result.seconds = sampling;
  result.tokens_per_second =
      sampling > 0 ? static_cast<double>(o.iterations) * corpus.tokens / sampling : 0;
  result.loglik_per_token = result.trace.back().loglik_per_token;
  result.state = std::move(state);
  return result;
}

// SparseLDA: one sweep over all tokens, documents in order, with the shared per-token kernel.
class SparseSweeper {
 public:
  SparseSweeper(const Corpus& corpus, const LdaOptions& o, std::mt19937_64& rng)
      : corpus_(corpus), rng_(rng), kernel_(o.topics, o.alpha, o.beta, corpus.words) {}

  void Sweep(LdaState& st) {
    kernel_.Reset(st.topic_total);
    for (uint64_t d = 0; d < corpus_.docs; ++d) {
      kernel_.BeginDoc(st.doc_topic[d]);
      for (uint64_t i = corpus_.doc_begin[d]; i < corpus_.doc_begin[d + 1]; ++i) {
        st.assignment[i] = kernel_.Resample(st.assignment[i], st.word_topic[corpus_.token_words[i]],
                                            Uniform01(rng_));
      }
      kernel_.FinishDoc(st.doc_topic[d]);
    }
  }

 private:
  const Corpus& corpus_;
  std::mt19937_64& rng_;
  SparseSampler kernel_;
};

// LightLDA: one sweep over all tokens, documents in order, the word tables built once per sweep.
class MhSweeper {
 public:
  MhSweeper(const Corpus& corpus, const LdaOptions& o, std::mt19937_64& rng)
      : corpus_(corpus), rng_(rng), kernel_(o.topics, o.alpha, o.beta, corpus.words, o.mh_steps) {}

  void Sweep(LdaState& st) {
    kernel_.LoadWords(st.word_topic, st.topic_total);
    for (uint64_t d = 0; d < corpus_.docs; ++d) {
      const uint64_t begin = corpus_.doc_begin[d];
      kernel_.BeginDoc(st.doc_topic[d], std::span<uint32_t>(st.assignment.data() + begin,
                                                            corpus_.doc_begin[d + 1] - begin));
      for (uint64_t i = begin; i < corpus_.doc_begin[d + 1]; ++i) {
        kernel_.Resample(corpus_.token_words[i], i - begin, rng_);
      }
      kernel_.FinishDoc(st.doc_topic[d]);
    }
    kernel_.StoreWords(st.word_topic);
  }

 private:
  const Corpus& corpus_;
  std::mt19937_64& rng_;
  MhSampler kernel_;
};

// The plain O(K) sampler over dense tables.
class DenseSampler {
 public:
  DenseSampler(const Corpus& corpus, const LdaOptions& o, const LdaState& initial,
               std::mt19937_64& rng)
      : corpus_(corpus),
        k_(o.topics),
        alpha_(o.alpha),
        beta_(o.beta),
        w_beta_(static_cast<double>(corpus.words) * o.beta),
        rng_(rng),
        nwk_(corpus.words * o.topics, 0),
        ndk_(o.topics, 0),
        p_(o.topics) {
    for (uint64_t w = 0; w < corpus.words; ++w) {
      for (const TopicCount& tc : initial.word_topic[w]) nwk_[w * k_ + tc.topic] = tc.count;
    }
  }

  void Sweep(LdaState& st) {
    for (uint64_t d = 0; d < corpus_.docs; ++d) {
      for (const TopicCount& tc : st.doc_topic[d]) ndk_[tc.topic] = tc.count;
      for (uint64_t i = corpus_.doc_begin[d]; i < corpus_.doc_begin[d + 1]; ++i) {
        int32_t* nw = &nwk_[corpus_.token_words[i] * k_];
        const uint32_t old = st.assignment[i];
        --ndk_[old];
        --nw[old];
        --st.topic_total[old];
        double total = 0;
        for (uint32_t k = 0; k < k_; ++k) {
          total += (ndk_[k] + alpha_) * (nw[k] + beta_) /
                   (static_cast<double>(st.topic_total[k]) + w_beta_);
          p_[k] = total;
        }
        const double u = Uniform01(rng_) * total;
        const auto k = static_cast<uint32_t>(
            std::min<size_t>(std::upper_bound(p_.begin(), p_.end(), u) - p_.begin(), k_ - 1));
        ++ndk_[k];
        ++nw[k];
        ++st.topic_total[k];
        st.assignment[i] = k;
      }
      // Write the document's row back; the dense buffer is cleared for the next document.
      std::vector<TopicCount>& row = st.doc_topic[d];
      row.clear();
      for (uint32_t k = 0; k < k_; ++k) {
        if (ndk_[k] != 0) row.push_back({k, ndk_[k]});
        ndk_[k] = 0;
      }
    }
    for (uint64_t w = 0; w < corpus_.words; ++w) {
      std::vector<TopicCount>& row = st.word_topic[w];
      row.clear();
      const int32_t* nw = &nwk_[w * k_];
      for (uint32_t k = 0; k < k_; ++k) {
        if (nw[k] != 0) row.push_back({k, nw[k]});
      }
      std::sort(row.begin(), row.end(), WordRowBefore);
    }
  }

 private:
  const Corpus& corpus_;
  const uint64_t k_;
  const double alpha_, beta_, w_beta_;
  std::mt19937_64& rng_;
  std::vector<int32_t> nwk_;  // W x K, row-major
  std::vector<int32_t> ndk_;
  std::vector<double> p_;  // cumulative conditional
};

// A FILE* that closes itself; Close() reports write errors.
class OutFile {
 public:
  static Result<OutFile> Open(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return Status::IoError(path + ": cannot create: " + std::strerror(errno));
    return OutFile(path, f);
  }
  std::FILE* get() { return f_.get(); }
  Status Close() {
    const bool bad = std::ferror(f_.get()) != 0;
    const bool close_failed = std::fclose(f_.release()) != 0;
    if (bad || close_failed) return Status::IoError(path_ + ": write failed");
    return Status::Ok();
  }

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  OutFile(std::string path, std::FILE* f) : path_(std::move(path)), f_(f) {}
  std::string path_;
  std::unique_ptr<std::FILE, Closer> f_;
};

Status WriteText(const std::string& path, const std::string& text) {
  STRADS_ASSIGN_OR_RETURN(OutFile out, OutFile::Open(path));
  std::fwrite(text.data(), 1, text.size(), out.get());
  return out.Close();
}

// A reference run, whatever the sampler: validates the options, draws the initial state from
// options.seed, then sweeps with the sampler `make(initial, rng)` builds on the same stream.
template <typename MakeSampler>
Result<LdaResult> SolveWith(const Corpus& corpus, const LdaOptions& options,
                            const std::function<void(const LdaTracePoint&)>& on_iteration,
                            MakeSampler make) {
  STRADS_RETURN_IF_ERROR(ValidateOptions(corpus, options));
  std::mt19937_64 rng(options.seed);
  LdaState initial = InitialState(corpus, options.topics, rng);
  auto sampler = make(std::as_const(initial), rng);
  return RunSweeps(
      corpus, options, std::move(initial), [&](LdaState& s) { sampler.Sweep(s); }, on_iteration);
}

}  // namespace

Result<LdaResult> SolveLdaReference(const Corpus& corpus, const LdaOptions& options,
                                    std::function<void(const LdaTracePoint&)> on_iteration) {
  return SolveWith(corpus, options, on_iteration, [&](const LdaState&, std::mt19937_64& rng) {
    return SparseSweeper(corpus, options, rng);
  });
}

Result<LdaResult> SolveLdaMh(const Corpus& corpus, const LdaOptions& options,
                             std::function<void(const LdaTracePoint&)> on_iteration) {
  STRADS_RETURN_IF_ERROR(ValidateOptions(corpus, options));
  if (options.mh_steps == 0) return Status::InvalidArgument("lda: mh_steps must be at least 1");
  return SolveWith(corpus, options, on_iteration, [&](const LdaState&, std::mt19937_64& rng) {
    return MhSweeper(corpus, options, rng);
  });
}

Result<LdaResult> SolveLdaDense(const Corpus& corpus, const LdaOptions& options,
                                std::function<void(const LdaTracePoint&)> on_iteration) {
  return SolveWith(corpus, options, on_iteration,
                   [&](const LdaState& initial, std::mt19937_64& rng) {
                     return DenseSampler(corpus, options, initial, rng);
                   });
}

double LogLikelihoodPerToken(const Corpus& corpus, const LdaState& state, double alpha,
                             double beta) {
  if (corpus.tokens == 0) return 0;
  std::vector<int64_t> totals = state.topic_total;
  SparseSampler kernel(state.topics, alpha, beta, corpus.words);
  kernel.Reset(totals);
  // Σ_k θ_dk φ_kw = (s + r_d + q_dw) / (n_d + K alpha), the sampler's decomposition.
  double sum = 0;
  for (uint64_t d = 0; d < corpus.docs; ++d) {
    kernel.BeginDoc(state.doc_topic[d]);
    const auto nd = static_cast<double>(corpus.doc_begin[d + 1] - corpus.doc_begin[d]);
    const double log_norm = std::log(nd + state.topics * alpha);
    for (uint32_t w : corpus.Doc(d)) sum += kernel.LogMass(state.word_topic[w]) - log_norm;
    kernel.ClearDoc();
  }
  return sum / static_cast<double>(corpus.tokens);
}

Status CheckInvariants(const LdaState& state) {
  const uint32_t topics = state.topics;
  if (state.topic_total.size() != topics) {
    return Status::FailedPrecondition("lda state: topic_total has " +
                                      std::to_string(state.topic_total.size()) +
                                      " entries, not K = " + std::to_string(topics));
  }
  auto check_table = [&](const std::vector<std::vector<TopicCount>>& table, const char* name,
                         bool by_count) -> Status {
    std::vector<int64_t> column(topics, 0);
    int64_t sum = 0;
    for (size_t r = 0; r < table.size(); ++r) {
      const std::vector<TopicCount>& row = table[r];
      for (size_t j = 0; j < row.size(); ++j) {
        const TopicCount& tc = row[j];
        const std::string where = std::string(name) + " row " + std::to_string(r);
        if (tc.topic >= topics) {
          return Status::FailedPrecondition(where + ": topic " + std::to_string(tc.topic) +
                                            " >= K = " + std::to_string(topics));
        }
        if (tc.count <= 0) {
          return Status::FailedPrecondition(where + ": count " + std::to_string(tc.count) +
                                            " for topic " + std::to_string(tc.topic) +
                                            " is not positive");
        }
        if (j > 0 && (by_count ? !WordRowBefore(row[j - 1], tc) : row[j - 1].topic >= tc.topic)) {
          return Status::FailedPrecondition(where + ": entries out of order or repeated");
        }
        column[tc.topic] += tc.count;
        sum += tc.count;
      }
    }
    const auto tokens = static_cast<int64_t>(state.assignment.size());
    if (sum != tokens) {
      return Status::FailedPrecondition(std::string(name) + " sums to " + std::to_string(sum) +
                                        ", not the token count " + std::to_string(tokens));
    }
    for (uint32_t k = 0; k < topics; ++k) {
      if (column[k] != state.topic_total[k]) {
        return Status::FailedPrecondition(std::string(name) + " topic " + std::to_string(k) +
                                          " sums to " + std::to_string(column[k]) +
                                          ", not topic_total " +
                                          std::to_string(state.topic_total[k]));
      }
    }
    return Status::Ok();
  };
  for (uint32_t k = 0; k < topics; ++k) {
    if (state.topic_total[k] < 0) {
      return Status::FailedPrecondition("lda state: topic_total[" + std::to_string(k) +
                                        "] is negative");
    }
  }
  STRADS_RETURN_IF_ERROR(check_table(state.doc_topic, "doc_topic", false));
  return check_table(state.word_topic, "word_topic", true);
}

Status CheckInvariants(const Corpus& corpus, const LdaState& state) {
  if (state.assignment.size() != corpus.tokens || state.doc_topic.size() != corpus.docs ||
      state.word_topic.size() != corpus.words) {
    return Status::FailedPrecondition("lda state: dimensions do not match the corpus");
  }
  STRADS_RETURN_IF_ERROR(CheckInvariants(state));
  std::vector<int64_t> dense(state.topics, 0);
  for (uint64_t d = 0; d < corpus.docs; ++d) {
    for (uint64_t i = corpus.doc_begin[d]; i < corpus.doc_begin[d + 1]; ++i) {
      if (state.assignment[i] >= state.topics) {
        return Status::FailedPrecondition("lda state: token " + std::to_string(i) +
                                          " has topic out of range");
      }
      ++dense[state.assignment[i]];
    }
    for (const TopicCount& tc : state.doc_topic[d]) {
      if (dense[tc.topic] != tc.count) {
        return Status::FailedPrecondition("lda state: doc_topic row " + std::to_string(d) +
                                          " disagrees with the assignments");
      }
      dense[tc.topic] = 0;
    }
    if (std::any_of(dense.begin(), dense.end(), [](int64_t c) { return c != 0; })) {
      return Status::FailedPrecondition("lda state: doc_topic row " + std::to_string(d) +
                                        " misses a topic of its assignments");
    }
  }
  // Word rows: count (word, topic) pairs by sorting them.
  std::vector<std::pair<uint32_t, uint32_t>> pairs(corpus.tokens);
  for (uint64_t i = 0; i < corpus.tokens; ++i) {
    pairs[i] = {corpus.token_words[i], state.assignment[i]};
  }
  std::sort(pairs.begin(), pairs.end());
  std::vector<std::vector<TopicCount>> expected(corpus.words);
  for (const auto& [w, k] : pairs) {
    auto& row = expected[w];
    if (row.empty() || row.back().topic != k) row.push_back({k, 0});
    ++row.back().count;
  }
  for (uint64_t w = 0; w < corpus.words; ++w) {
    std::vector<TopicCount> row = state.word_topic[w];
    std::sort(row.begin(), row.end(),
              [](const TopicCount& a, const TopicCount& b) { return a.topic < b.topic; });
    const bool same = std::equal(row.begin(), row.end(), expected[w].begin(), expected[w].end(),
                                 [](const TopicCount& a, const TopicCount& b) {
                                   return a.topic == b.topic && a.count == b.count;
                                 });
    if (!same) {
      return Status::FailedPrecondition("lda state: word_topic row " + std::to_string(w) +
                                        " disagrees with the assignments");
    }
  }
  return Status::Ok();
}

Status WriteDocTopicMtx(const std::string& path, const Corpus& corpus, const LdaState& state) {
  return WriteText(path, FormatTopicMtx(corpus.docs, state.topics, state.doc_topic));
}

Status WriteWordTopicMtx(const std::string& path, const Corpus& corpus, const LdaState& state) {
  return WriteText(path, FormatTopicMtx(corpus.words, state.topics, state.word_topic));
}

std::vector<std::vector<uint32_t>> TopWords(const LdaState& state, uint32_t top) {
  std::vector<std::vector<WordCount>> by_topic(state.topics);
  for (uint32_t w = 0; w < state.word_topic.size(); ++w) {
    for (const TopicCount& tc : state.word_topic[w]) by_topic[tc.topic].push_back({tc.count, w});
  }
  std::vector<std::vector<uint32_t>> result(state.topics);
  for (uint32_t k = 0; k < state.topics; ++k) {
    KeepTopWords(by_topic[k], top);
    for (const WordCount& wc : by_topic[k]) result[k].push_back(wc.second);
  }
  return result;
}

Status WriteTopics(const std::string& path, const LdaState& state,
                   const std::vector<std::string>& vocab, uint32_t top) {
  return WriteText(path, FormatTopics(TopWords(state, top), [&](uint32_t w) {
                     return w < vocab.size() ? vocab[w] : std::to_string(w + 1);
                   }));
}

}  // namespace strads::lda
