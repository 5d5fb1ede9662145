// LdaApp: collapsed Gibbs LDA on the static engine.
//
// Documents are sharded across the P workers; the word-topic table is cut into B vocabulary
// blocks balanced by token count, which rotate among the workers (engine/rotation_plan.h), so a
// block's counts are only ever changed by the one worker holding it. The K topic totals n_k are
// the engine's aggregates, all-reduced between sub-rounds. Each token is sampled with SparseLDA
// (apps/lda/sparse_sampler.h; why in lda_static.cc), in O(K_d + K_w) rather than O(K). The
// layout, block encoding, shard and home are in lda_static.h.
//
// An iteration is two passes: pass 0 samples every token once; pass 1 (the evaluation pass)
// measures loglik_per_token, the reference's definition (lda_reference.h), without changing
// anything. Output: doc_topic.mtx, word_topic.mtx and topics.txt, byte for byte in the formats of
// the reference's writers (apps/lda/topic_output.h).
#include "apps/lda/lda_app.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include <fmt/format.h>

#include "apps/lda/lda_static.h"
#include "apps/lda/topic_output.h"
#include "engine/app_params.h"
#include "engine/rotation_plan.h"

namespace strads::lda {
namespace {

// The (row, topic, count) triplets of the pieces named `name` as a table; the pieces' ranges
// [first, first + width) must tile 0..rows without gaps, which gives `rows`.
Result<std::vector<std::vector<TopicCount>>> GatherTable(
    const std::vector<proto::OutputPiece>& pieces, const std::string& name, uint32_t topics) {
  std::vector<const proto::OutputPiece*> mine;
  for (const proto::OutputPiece& p : pieces) {
    if (p.name() == name) mine.push_back(&p);
  }
  std::sort(mine.begin(), mine.end(), [](const proto::OutputPiece* a, const proto::OutputPiece* b) {
    return a->first() < b->first();
  });
  std::vector<std::vector<TopicCount>> table;
  for (const proto::OutputPiece* p : mine) {
    if (p->first() != table.size()) {
      return Status::Internal(fmt::format("lda: {} pieces leave a gap or overlap at row {}", name,
                                          std::min<uint64_t>(p->first(), table.size())));
    }
    const uint64_t end = p->first() + p->width();
    table.resize(end);
    if (p->ints_size() % 3 != 0) return Status::Internal("lda: " + name + " piece not triplets");
    for (int j = 0; j < p->ints_size(); j += 3) {
      const int64_t row = p->ints(j), topic = p->ints(j + 1), count = p->ints(j + 2);
      if (row < static_cast<int64_t>(p->first()) || row >= static_cast<int64_t>(end) || topic < 0 ||
          topic >= topics || count < 1 || count > INT32_MAX) {
        return Status::Internal(
            fmt::format("lda: {} piece has a bad entry ({}, {}, {})", name, row, topic, count));
      }
      table[row].push_back({static_cast<uint32_t>(topic), static_cast<int32_t>(count)});
    }
  }
  return table;
}

// topics.txt from the homes' per-topic candidates (each home's top words among its own words: the
// global top words of a topic are among them).
Result<std::string> AssembleTopics(const std::vector<proto::OutputPiece>& pieces, uint32_t topics) {
  std::vector<std::vector<WordCount>> by_topic(topics);
  std::unordered_map<uint32_t, std::string> names;
  for (const proto::OutputPiece& p : pieces) {
    if (p.name() != "topic_words") continue;
    const int n = p.ints_size() / 3;
    std::vector<std::string> lines;
    if (!p.text().empty()) {
      size_t at = 0;
      while (at < p.text().size()) {
        const size_t nl = p.text().find('\n', at);
        if (nl == std::string::npos) break;
        lines.push_back(p.text().substr(at, nl - at));
        at = nl + 1;
      }
      if (lines.size() != static_cast<size_t>(n)) {
        return Status::Internal("lda: topic_words piece has names for not every word");
      }
    }
    if (p.ints_size() % 3 != 0) return Status::Internal("lda: topic_words piece not triplets");
    for (int j = 0; j < n; ++j) {
      const int64_t topic = p.ints(3 * j), word = p.ints(3 * j + 1), count = p.ints(3 * j + 2);
      if (topic < 0 || topic >= topics || word < 0 || word > UINT32_MAX || count < 1 ||
          count > INT32_MAX) {
        return Status::Internal("lda: topic_words piece has a bad entry");
      }
      by_topic[topic].push_back({static_cast<int32_t>(count), static_cast<uint32_t>(word)});
      if (!lines.empty()) names[static_cast<uint32_t>(word)] = lines[j];
    }
  }
  std::vector<std::vector<uint32_t>> top(topics);
  for (uint32_t k = 0; k < topics; ++k) {
    KeepTopWords(by_topic[k], kTopWords);
    for (const WordCount& wc : by_topic[k]) top[k].push_back(wc.second);
  }
  return FormatTopics(top, [&](uint32_t w) {
    const auto it = names.find(w);
    return it != names.end() ? it->second : std::to_string(w + 1);
  });
}

double Get(const std::map<std::string, double>& metrics, const std::string& key) {
  const auto it = metrics.find(key);
  return it == metrics.end() ? 0.0 : it->second;
}

}  // namespace

std::string LdaApp::summary() const {
  return "topic model (LDA), collapsed Gibbs: SparseLDA or LightLDA MH";
}

boost::program_options::options_description LdaApp::Options() const {
  namespace po = boost::program_options;
  po::options_description d("lda");
  d.add_options()("vocab", po::value<std::string>()->default_value(""),
                  "vocabulary, one word per line (for topics.txt; default: word ids)")(
      "topics", po::value<uint32_t>()->default_value(100), "K: number of topics (at most 100000)")(
      "alpha", po::value<double>()->default_value(0.1, "0.1"), "document-topic prior (per topic)")(
      "beta", po::value<double>()->default_value(0.01, "0.01"), "topic-word prior (per word)")(
      "sampler", po::value<std::string>()->default_value("sparse"),
      "sparse (SparseLDA Gibbs) | mh (LightLDA Metropolis-Hastings, alias tables)");
  return d;
}

Status LdaApp::FromOptions(const boost::program_options::variables_map& vm,
                           proto::JobSpec& spec) const {
  proto::LdaSpec lda;
  lda.set_vocab_path(AbsolutePath(vm["vocab"].as<std::string>()));
  lda.set_topics(vm["topics"].as<uint32_t>());
  lda.set_alpha(vm["alpha"].as<double>());
  lda.set_beta(vm["beta"].as<double>());
  lda.set_sampler(vm["sampler"].as<std::string>());
  SetAppParams(lda, spec);
  return Status::Ok();
}

std::vector<std::string> LdaApp::InputFiles(const proto::JobSpec& spec) const {
  // --vocab; JobSpecPaths leaves it out when empty. A spec Validate refuses has none.
  Result<proto::LdaSpec> lda = AppParams<proto::LdaSpec>(spec);
  return {lda.ok() ? lda->vocab_path() : ""};
}

void LdaApp::MapInputFiles(proto::JobSpec& spec,
                           const std::function<std::string(const std::string&)>& map) const {
  Result<proto::LdaSpec> params = AppParams<proto::LdaSpec>(spec);
  if (!params.ok() || params->vocab_path().empty()) return;
  params->set_vocab_path(map(params->vocab_path()));
  SetAppParams(*params, spec);
}

std::vector<std::string> LdaApp::OutputFiles() const {
  return {"doc_topic.mtx", "word_topic.mtx", "topics.txt"};
}

Status LdaApp::Validate(const proto::JobSpec& spec) const {
  Result<proto::LdaSpec> params = AppParams<proto::LdaSpec>(spec);
  if (!params.ok()) return Status::InvalidArgument("lda: " + params.status().message());
  const proto::LdaSpec& lda = *params;
  if (spec.data_path().empty()) return Status::InvalidArgument("lda: --data FILE is required");
  // The topic totals go dense in every SubRoundStart and SubRoundDone, and the coordinator holds
  // them before any member loads: a K of billions (--topics -1 parses as 2^32 - 1) would fail
  // there, not here.
  if (lda.topics() == 0 || lda.topics() > kMaxTopics) {
    return Status::InvalidArgument(fmt::format(
        "lda: --topics must be in [1, {}], got {} (a draw may walk all K topics: a larger K makes "
        "no progress)",
        kMaxTopics, lda.topics()));
  }
  if (!(std::isfinite(lda.alpha()) && lda.alpha() > 0)) {
    return Status::InvalidArgument("lda: --alpha must be a finite number > 0");
  }
  if (!(std::isfinite(lda.beta()) && lda.beta() > 0)) {
    return Status::InvalidArgument("lda: --beta must be a finite number > 0");
  }
  if (!lda.sampler().empty() && lda.sampler() != "sparse" && lda.sampler() != "mh") {
    return Status::InvalidArgument("lda: --sampler must be sparse or mh, not '" + lda.sampler() +
                                   "'");
  }
  if (!spec.static_engine().balance().empty()) {
    const Result<Balance> balance = ParseBalance(spec.static_engine().balance());
    if (!balance.ok())
      return Status::InvalidArgument("lda: --balance: " + balance.status().message());
  }
  return Status::Ok();
}

uint32_t LdaApp::NumAggregates(const proto::JobSpec& spec) const {
  Result<proto::LdaSpec> lda = AppParams<proto::LdaSpec>(spec);
  return lda.ok() ? lda->topics() : 0;  // 0: a spec Validate refuses
}

uint32_t LdaApp::PassesPerIteration(const proto::JobSpec& spec) const { return 2; }

Result<std::unique_ptr<StaticShard>> LdaApp::LoadShard(const proto::JobSpec& spec, uint32_t rank,
                                                       uint32_t workers, uint32_t blocks) const {
  STRADS_RETURN_IF_ERROR(Validate(spec));
  STRADS_ASSIGN_OR_RETURN(const proto::LdaSpec lda, AppParams<proto::LdaSpec>(spec));
  if (workers == 0 || blocks == 0 || rank >= workers) {
    return Status::InvalidArgument(
        fmt::format("lda: shard {} of {} workers, {} blocks", rank, workers, blocks));
  }
  STRADS_ASSIGN_OR_RETURN(StaticLayout layout, LoadStaticLayout(spec, workers, blocks));
  return std::unique_ptr<StaticShard>(std::make_unique<LdaShard>(spec, lda, layout, rank));
}

Result<std::unique_ptr<StaticHome>> LdaApp::LoadHome(const proto::JobSpec& spec, uint32_t rank,
                                                     uint32_t schedulers, uint32_t workers,
                                                     uint32_t blocks) const {
  STRADS_RETURN_IF_ERROR(Validate(spec));
  STRADS_ASSIGN_OR_RETURN(const proto::LdaSpec lda, AppParams<proto::LdaSpec>(spec));
  if (schedulers == 0 || blocks == 0 || rank >= schedulers) {
    return Status::InvalidArgument(
        fmt::format("lda: home {} of {} schedulers, {} blocks", rank, schedulers, blocks));
  }
  // The shards' cut is irrelevant to a home; one shard keeps the layout cheap.
  STRADS_ASSIGN_OR_RETURN(StaticLayout layout, LoadStaticLayout(spec, 1, blocks));
  std::vector<std::string> vocab;
  if (!lda.vocab_path().empty()) {
    STRADS_ASSIGN_OR_RETURN(std::vector<std::string> loaded,
                            LoadVocab(lda.vocab_path(), layout.corpus.words));
    vocab = std::move(loaded);
  }
  return std::unique_ptr<StaticHome>(
      std::make_unique<LdaHome>(spec, lda, layout, rank, schedulers, std::move(vocab)));
}

std::string LdaApp::TraceHeader() const { return "seconds,iteration,tokens,loglik_per_token"; }

std::string LdaApp::TraceRow(double seconds, uint64_t iteration, uint64_t work,
                             const std::map<std::string, double>& metrics) const {
  return fmt::format("{:.6f},{},{},{:.10g}", seconds, iteration, work, Objective(metrics));
}

double LdaApp::Objective(const std::map<std::string, double>& metrics) const {
  const double tokens = Get(metrics, "tokens");
  return tokens > 0 ? Get(metrics, "loglik_sum") / tokens : 0.0;
}

std::string LdaApp::ObjectiveName() const { return "loglik_per_token"; }

Result<std::vector<proto::ResultFile>> LdaApp::Assemble(
    const proto::JobSpec& spec, const std::vector<proto::OutputPiece>& pieces) const {
  for (const proto::OutputPiece& p : pieces) {
    if (p.name() != "doc_topic" && p.name() != "word_topic" && p.name() != "topic_words") {
      return Status::Internal("lda: unknown output piece '" + p.name() + "'");
    }
  }
  STRADS_ASSIGN_OR_RETURN(const proto::LdaSpec lda, AppParams<proto::LdaSpec>(spec));
  const uint32_t topics = lda.topics();
  std::vector<proto::ResultFile> files;
  for (const char* name : {"doc_topic", "word_topic"}) {
    STRADS_ASSIGN_OR_RETURN(auto table, GatherTable(pieces, name, topics));
    proto::ResultFile& file = files.emplace_back();
    file.set_name(std::string(name) + ".mtx");
    file.set_content(FormatTopicMtx(table.size(), topics, table));
  }
  STRADS_ASSIGN_OR_RETURN(std::string text, AssembleTopics(pieces, topics));
  proto::ResultFile& file = files.emplace_back();
  file.set_name("topics.txt");
  file.set_content(std::move(text));
  return files;
}

void LdaApp::Summarize(const std::map<std::string, double>& metrics,
                       nlohmann::ordered_json& summary) const {
  summary["topics"] = static_cast<uint64_t>(Get(metrics, "topics"));
  summary["tokens"] = static_cast<uint64_t>(Get(metrics, "tokens"));
  summary["documents"] = static_cast<uint64_t>(Get(metrics, "documents"));
  summary["words"] = static_cast<uint64_t>(Get(metrics, "words"));
  summary["loglik_per_token"] = Objective(metrics);
  summary["alpha"] = Get(metrics, "alpha");
  summary["beta"] = Get(metrics, "beta");
}

}  // namespace strads::lda
