// strads-lda-reference: runs a sequential collapsed Gibbs sampler for LDA
// (apps/lda/lda_reference.h: SparseLDA, or the plain O(K) sampler) on a UCI bag-of-words corpus.
// Writes the trace CSV
//   seconds,iteration,tokens,loglik_per_token
// one row for the initial state and one per sweep (seconds = sampling time since the start of the
// solve; loading and log-likelihood evaluation are excluded), and prints the sampling rate. The
// baseline of the static engine's LDA benchmark (deploy/bench-static.sh).
#include <chrono>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "apps/lda/corpus.h"
#include "apps/lda/lda_reference.h"
#include "common/option_default.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

constexpr char kTool[] = "strads-lda-reference";

int main(int argc, char** argv) {
  std::string data, vocab_path, sampler, trace_path, topics_path;
  strads::lda::LdaOptions options;
  po::options_description desc(
      "strads-lda-reference: sequential collapsed Gibbs sampling for LDA (SparseLDA or dense)");
  desc.add_options()("help,h", "show this help")("data", po::value(&data),
                                                 "UCI docword.txt (required)")(
      "vocab", po::value(&vocab_path), "vocab.txt (optional; needed for --topics-output)")(
      "topics", strads::ValueWithDefault(&options.topics, options.topics), "K")(
      "alpha", strads::ValueWithDefault(&options.alpha, options.alpha), "document-topic prior")(
      "beta", strads::ValueWithDefault(&options.beta, options.beta), "topic-word prior")(
      "iterations", strads::ValueWithDefault(&options.iterations, options.iterations),
      "Gibbs sweeps")("seed", strads::ValueWithDefault(&options.seed, options.seed), "random seed")(
      "sampler", po::value(&sampler)->default_value("sparse"),
      "sparse (SparseLDA, O(K_d + K_w) per token) | mh (LightLDA Metropolis-Hastings, O(1)) | "
      "dense (O(K))")("trace", po::value(&trace_path), "trace CSV to write (required)")(
      "topics-output", po::value(&topics_path), "topics.txt: top 20 words of every topic");
  po::variables_map vm;
  if (auto exit_code =
          strads::tools::ParseToolFlags(argc, argv, desc, "strads-lda-reference", "--help", &vm)) {
    return *exit_code;
  }
  if (data.empty() || trace_path.empty() ||
      (sampler != "sparse" && sampler != "dense" && sampler != "mh") ||
      (!topics_path.empty() && vocab_path.empty())) {
    std::cerr
        << "strads-lda-reference: --data and --trace are required, --sampler is sparse, mh or "
           "dense, --topics-output needs --vocab\n";
    return 2;
  }

  const auto load_start = std::chrono::steady_clock::now();
  strads::Result<strads::lda::Corpus> corpus = strads::lda::LoadUciBagOfWords(data);
  if (!corpus.ok()) return strads::tools::ToolFailure(kTool, corpus.status().message());
  std::vector<std::string> vocab;
  if (!vocab_path.empty()) {
    strads::Result<std::vector<std::string>> v = strads::lda::LoadVocab(vocab_path, corpus->words);
    if (!v.ok()) return strads::tools::ToolFailure(kTool, v.status().message());
    vocab = std::move(v).value();
  }
  std::cout << fmt::format(
      "loaded {} docs, {} words, {} tokens in {:.3f} s\n", corpus->docs, corpus->words,
      corpus->tokens,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_start).count());

  std::ofstream trace(trace_path);
  trace << "seconds,iteration,tokens,loglik_per_token\n";
  auto on_iteration = [&](const strads::lda::LdaTracePoint& p) {
    trace << fmt::format("{:.6f},{},{},{:.10g}\n", p.seconds, p.iteration, p.tokens,
                         p.loglik_per_token);
    trace.flush();
  };
  strads::Result<strads::lda::LdaResult> result =
      sampler == "sparse" ? strads::lda::SolveLdaReference(*corpus, options, on_iteration)
      : sampler == "mh"   ? strads::lda::SolveLdaMh(*corpus, options, on_iteration)
                          : strads::lda::SolveLdaDense(*corpus, options, on_iteration);
  if (!result.ok()) return strads::tools::ToolFailure(kTool, result.status().message());
  if (!trace) return strads::tools::ToolFailure(kTool, "cannot write " + trace_path);
  if (!topics_path.empty()) {
    if (strads::Status st = strads::lda::WriteTopics(topics_path, result->state, vocab); !st.ok()) {
      std::cerr << "strads-lda-reference: " << st.message() << "\n";
      return 1;
    }
  }
  std::cout << fmt::format(
      "{} sampler, K = {}: {} sweeps in {:.3f} s of sampling, {:.0f} tokens/s, final "
      "loglik_per_token {:.6f}\n",
      sampler, options.topics, options.iterations, result->seconds, result->tokens_per_second,
      result->loglik_per_token);
  return 0;
}
