// The sequential LDA solvers: the oracle the distributed engine's LDA app is checked against, and
// the single-process baselines its benchmarks compare with.
//
// Model: latent Dirichlet allocation with a symmetric Dirichlet(alpha) prior on every document's
// topic mixture (the same alpha for each of the K topics, so K * alpha in total) and a symmetric
// Dirichlet(beta) prior on every topic's word distribution. Inference is collapsed Gibbs
// sampling of the topic z_i of every token; the full conditional is
//   p(z_i = k | rest) ∝ (n_dk + alpha) (n_kw + beta) / (n_k + W beta)
// with the counts n taken without token i.
//
// SolveLdaReference uses the SparseLDA decomposition (Yao, Mimno, McCallum, KDD 2009):
//   (n_dk + a)(n_kw + b)/(n_k + Wb) =  a b / (n_k + Wb)          s: smoothing only, all k
//                                    + n_dk b / (n_k + Wb)        r: topics of the document
//                                    + (n_dk + a) n_kw / (n_k + Wb)  q: topics of the word
// s is a global sum kept up to date in O(1) per count change, r a per-document sum likewise, and
// q is recomputed per token by walking only the word's non-zero topics (kept as a vector sorted
// by descending count, so the walk usually stops early). A uniform draw falls in q most of the
// time, in r most of the rest, and only rarely (mass s, tiny for small a b) in the O(K) s bucket.
// So a token costs O(K_d + K_w) (topics present in its document / for its word), not O(K): why
// this sampler rather than an alias/Metropolis-Hastings one (LightLDA) is in the .cc.
//
// SolveLdaDense is the textbook O(K) collapsed Gibbs sampler over dense count tables: the
// baseline for "K = 1000 costs about as much per token as K = 100".
//
// Both are deterministic for a given seed (std::mt19937_64, consumed in a fixed order) and start
// from the same random initial assignment, so they differ only in how they sample.
//
// Trace, after every iteration (one sweep over all tokens):
//   loglik_per_token = (1/N) Σ_{tokens i in doc d with word w} log Σ_k θ_dk φ_kw,
//   θ_dk = (n_dk + alpha) / (n_d + K alpha),  φ_kw = (n_kw + beta) / (n_k + W beta),
// the smoothed point estimates from the current counts (every token included). It is computed
// sparsely, in O(K_d + K_w) per token, by the same s + r + q decomposition
// (apps/lda/sparse_sampler.h holds the kernel, shared with the static engine's app). `seconds`
// counts sampling time only: evaluating the log-likelihood and running the callback are excluded,
// so traces compare samplers.
//
// Thread-safety: the functions are reentrant; the Corpus is only read.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/lda/corpus.h"
#include "apps/lda/sparse_sampler.h"
#include "common/status.h"

namespace strads::lda {

struct LdaOptions {
  uint32_t topics = 100;     // K >= 1
  double alpha = 0.1;        // > 0: symmetric, per topic (each θ_d ~ Dirichlet(alpha, ..., alpha))
  double beta = 0.01;        // > 0: symmetric, per word
  uint32_t iterations = 50;  // sweeps over all tokens; 0 = just the random initial state
  uint64_t seed = 1;
  uint32_t mh_steps = 2;  // SolveLdaMh: word + doc proposal cycles per token, >= 1
};

// The sampler state: the topic of every token and the count tables derived from it.
struct LdaState {
  uint32_t topics = 0;
  std::vector<uint32_t> assignment;  // z: the topic of every token, in Corpus::token_words order
  // Per document (0-based), its non-zero topic counts sorted by topic.
  std::vector<std::vector<TopicCount>> doc_topic;
  // Per word (0-based), its non-zero topic counts sorted by descending count (ties: by topic).
  std::vector<std::vector<TopicCount>> word_topic;
  std::vector<int64_t> topic_total;  // n_k, K entries
};

struct LdaTracePoint {
  double seconds = 0;      // sampling time since the start of the solve (see above)
  uint32_t iteration = 0;  // sweeps done; 0 = the initial random state
  uint64_t tokens = 0;     // token samples drawn so far (iteration * corpus tokens)
  double loglik_per_token = 0;
  // The state after this iteration; valid only during the callback.
  const LdaState* state = nullptr;
};

struct LdaResult {
  LdaState state;
  std::vector<LdaTracePoint> trace;  // iteration 0..iterations (state pointers cleared)
  double seconds = 0;                // sampling time
  double tokens_per_second = 0;      // token samples per second of sampling time
  double loglik_per_token = 0;       // of the final state
};

// Runs options.iterations sweeps of SparseLDA Gibbs sampling on `corpus`. on_iteration, if set,
// is called for the initial state and after every sweep.
// Errors: InvalidArgument if topics == 0, alpha or beta is not finite and > 0, or the corpus has
// no words.
Result<LdaResult> SolveLdaReference(const Corpus& corpus, const LdaOptions& options,
                                    std::function<void(const LdaTracePoint&)> on_iteration = {});

// The same with the plain O(K) sampler. Same errors; same seed -> same initial state.
Result<LdaResult> SolveLdaDense(const Corpus& corpus, const LdaOptions& options,
                                std::function<void(const LdaTracePoint&)> on_iteration = {});

// The same with LightLDA's Metropolis-Hastings sampler (apps/lda/mh_sampler.h), O(1) per token:
// the word proposals' alias tables are rebuilt once per sweep. Same errors, and InvalidArgument
// if mh_steps == 0; same seed -> same initial state.
Result<LdaResult> SolveLdaMh(const Corpus& corpus, const LdaOptions& options,
                             std::function<void(const LdaTracePoint&)> on_iteration = {});

// The trace's loglik_per_token of `state` (definition above). REQUIRES: state matches corpus.
double LogLikelihoodPerToken(const Corpus& corpus, const LdaState& state, double alpha,
                             double beta);

// Internal consistency of a state: every count is positive and its topic < topics; rows are
// sorted as documented; the doc-topic table, the word-topic table and topic_total all sum to the
// number of tokens; each topic's total equals its column sums in both tables. FailedPrecondition
// naming the first violation.
Status CheckInvariants(const LdaState& state);

// Also checks that the tables are exactly the counts of `state.assignment` over `corpus`.
Status CheckInvariants(const Corpus& corpus, const LdaState& state);

// doc_topic.mtx: MatrixMarket "coordinate integer general", D rows x K columns, one line per
// non-zero "doc topic count" with the 1-based doc id of the input file and 1-based topic.
Status WriteDocTopicMtx(const std::string& path, const Corpus& corpus, const LdaState& state);

// word_topic.mtx: the same for words, W rows x K columns, 1-based word ids as in the input.
Status WriteWordTopicMtx(const std::string& path, const Corpus& corpus, const LdaState& state);

// The `top` most frequent words of every topic by n_kw (ties: lower word id first); a topic has
// fewer when fewer words have non-zero counts in it.
std::vector<std::vector<uint32_t>> TopWords(const LdaState& state, uint32_t top);

// topics.txt: one line per topic, "topic<TAB>w1 w2 ... w20" with the 1-based topic and the top
// `top` words of TopWords from vocab. REQUIRES: vocab.size() == corpus words.
Status WriteTopics(const std::string& path, const LdaState& state,
                   const std::vector<std::string>& vocab, uint32_t top = 20);

}  // namespace strads::lda
