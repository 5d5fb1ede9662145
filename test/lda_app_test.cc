// The static engine's LDA app (apps/lda/lda_app.h) run through RunStaticLocally: count invariants
// after every sub-round, planted-topic recovery, agreement with the sequential reference, output
// formats, reproducibility, and the errors bad input and bad blocks get.
#include "apps/lda/lda_app.h"
#include "apps/lda.pb.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test/status_testing.h"
#include "test/temp_dir.h"

#include "apps/lda/corpus.h"
#include "apps/lda/lda_reference.h"
#include "apps/lda/lda_static.h"
#include "engine/static_driver.h"
#include "lda_test_corpus.h"
#include "test/app_params_edit.h"

namespace strads::lda {
namespace {

using strads::testing::EditAppParams;
using strads::testing::TempDir;

using test_corpus::Docword;
using test_corpus::PlantedDocs;
using test_corpus::Spec;

Result<StaticLocalResult> Run(const proto::JobSpec& spec, uint32_t workers, uint32_t schedulers,
                              StaticLocalOptions options = {}) {
  options.workers = workers;
  options.schedulers = schedulers;
  return RunStaticLocally(LdaApp(), spec, options);
}

std::string File(const StaticLocalResult& r, const std::string& name) {
  for (const auto& f : r.files) {
    if (f.name() == name) return f.content();
  }
  FAIL("no result file " << name);
  return "";
}

std::vector<double> Trajectory(const StaticLocalResult& r) {
  std::vector<double> out;
  for (const auto& m : r.metrics) out.push_back(LdaApp().Objective(m));
  return out;
}

// The encoded rows of a block (format in apps/lda/lda_static.h): offsets of each row's length.
std::vector<size_t> RowOffsets(const StaticBlock& block) {
  std::vector<size_t> at;
  for (size_t i = 2; i < block.ints.size(); i += 1 + block.ints[i]) at.push_back(i);
  return at;
}

TEST_CASE("lda_app: every sub-round leaves doc-topic, word-topic and topic totals consistent",
          "[lda_app]") {
  TempDir dir;
  const auto docs = PlantedDocs(1, 4, 15, 60, 30);
  proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(60, docs)), 6, 3);
  for (uint32_t per_worker : {1u, 2u}) {
    spec.mutable_static_engine()->set_blocks_per_worker(per_worker);
    int checks = 0;
    StaticLocalOptions options;
    options.after_sub_round = [&](const StaticStep&, const std::vector<StaticShard*>& shards,
                                  const std::vector<StaticHome*>& homes,
                                  const std::vector<StaticBlock*>& held) {
      ++checks;
      return CheckStaticInvariants(shards, homes, held);
    };
    auto r = Run(spec, 3, 2, options);
    INFO("blocks per worker " << per_worker);
    REQUIRE(r.ok());
    // Iteration 0: one evaluation pass; then 3 iterations of two passes; B sub-rounds each.
    CHECK(checks == 7 * 3 * static_cast<int>(per_worker));
    CHECK(r->work == 3 * 60 * 30);
  }
}

TEST_CASE(
    "lda_app: a word-topic row that disagrees with the tokens fails the check and is not sampled",
    "[lda_app]") {
  TempDir dir;
  const auto docs = PlantedDocs(2, 3, 10, 30, 20);
  const proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(30, docs)), 4, 2);
  std::string check_error;
  StaticLocalOptions options;
  options.after_sub_round = [&](const StaticStep& step, const std::vector<StaticShard*>& shards,
                                const std::vector<StaticHome*>& homes,
                                const std::vector<StaticBlock*>& held) -> Status {
    if (!check_error.empty()) return Status::Ok();  // tampered with already
    REQUIRE(CheckStaticInvariants(shards, homes, held).ok());
    if (step.iteration != 1 || step.pass != 0) return Status::Ok();
    // Move every count of a row with one topic to another topic: a well-formed block whose
    // counts no longer match the tokens' topics.
    StaticBlock& block = *held[0];
    for (size_t at : RowOffsets(block)) {
      if (block.ints[at] == 1) {
        const int64_t topic = block.ints[at + 1] >> 32, count = block.ints[at + 1] & 0xffffffff;
        block.ints[at + 1] = ((topic + 1) % 4) << 32 | count;
        break;
      }
    }
    const Status st = CheckStaticInvariants(shards, homes, held);
    check_error = st.message();
    return Status::Ok();  // run on: the next Process of this block must fail by itself
  };
  auto r = Run(spec, 2, 1, options);
  CHECK_THAT(check_error, Catch::Contains("word_topic word"));
  REQUIRE_FALSE(r.ok());
  CHECK_THAT(r.status().message(), Catch::Contains("has no count for topic"));
}

TEST_CASE("lda_app: planted topics are recovered with 2 and 3 workers", "[lda_app]") {
  TempDir dir;
  constexpr uint32_t kPlanted = 5, kWidth = 20;
  const auto docs = PlantedDocs(3, kPlanted, kWidth, 200, 50);
  proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(kPlanted * kWidth, docs)), 5, 40);
  for (uint32_t workers : {2u, 3u}) {
    auto r = Run(spec, workers, 2);
    REQUIRE(r.ok());
    const std::string topics = File(*r, "topics.txt");
    INFO(workers << " workers:\n" << topics);
    CHECK(std::count(topics.begin(), topics.end(), '\n') == 5);  // a line a topic
    CHECK(test_corpus::ClaimedTopics(topics, kPlanted, kWidth).size() == kPlanted);
    const double final_ll = Trajectory(*r).back();
    CHECK(final_ll > Trajectory(*r).front() + 0.5);
  }
}

TEST_CASE("lda_app: the loglik trajectory follows the sequential reference with 1 and 2 workers",
          "[lda_app]") {
  TempDir dir;
  // A structureless corpus: single chains on it climb smoothly, so one seed's trajectory is a fair
  // sample (planted corpora make chains jump between modes at seed-dependent iterations).
  const std::string path =
      dir.Write("docword.txt", Docword(1000, test_corpus::SkewedDocs(4, 400, 1000)));
  Result<Corpus> corpus = LoadUciBagOfWords(path);
  REQUIRE(corpus.ok());
  constexpr uint32_t kIterations = 10;
  LdaOptions options;
  options.topics = 20;
  options.iterations = kIterations;
  options.seed = 7;
  Result<LdaResult> reference = SolveLdaReference(*corpus, options);
  REQUIRE(reference.ok());
  // Measured on this corpus over seeds 1..10: |engine - reference| <= 0.011 (P = 1) and <= 0.016
  // (P = 2) nats per token at every iteration, while both climb from -6.06 to -5.82. The chains
  // differ in their random start and draws (and, for P = 2, in seeing the other shard's changes
  // of the topic totals one sub-round late), not in what they sample.
  proto::JobSpec spec = Spec(path, 20, kIterations);
  // Measured (seeds 7, this corpus): |engine - reference| <= 0.03 nats per token at every
  // iteration for P = 1 and P = 2, from -6.2 at the random start to about -5.1; the chains differ
  // in their random start and draws, not in what they sample.
  for (uint32_t workers : {1u, 2u}) {
    auto r = Run(spec, workers, 1);
    REQUIRE(r.ok());
    const std::vector<double> engine = Trajectory(*r);
    REQUIRE(engine.size() == kIterations + 1);
    for (uint32_t i = 0; i <= kIterations; ++i) {
      INFO("P = " << workers << ", iteration " << i);
      CHECK(engine[i] == Approx(reference->trace[i].loglik_per_token).margin(0.025));
    }
  }
}

TEST_CASE("lda_app: output files are byte for byte the reference writers' files of the same state",
          "[lda_app]") {
  TempDir dir;
  const auto docs = PlantedDocs(5, 3, 7, 25, 12);
  const std::string path = dir.Write("docword.txt", Docword(21, docs));
  std::string vocab;
  for (int w = 0; w < 21; ++w) vocab += "word" + std::to_string(w) + "\n";
  proto::JobSpec spec = Spec(path, 4, 0);  // iterations 0: the initial state, known exactly
  EditAppParams<proto::LdaSpec>(spec,
                                [&](auto& p) { p.set_vocab_path(dir.Write("vocab.txt", vocab)); });
  auto r = Run(spec, 3, 2);
  REQUIRE(r.ok());

  // The same state built with the reference's types, from InitialTopic.
  Result<Corpus> corpus = LoadUciBagOfWords(path);
  REQUIRE(corpus.ok());
  LdaState state;
  state.topics = 4;
  state.doc_topic.resize(corpus->docs);
  state.word_topic.resize(corpus->words);
  state.topic_total.assign(4, 0);
  for (uint64_t d = 0; d < corpus->docs; ++d) {
    std::vector<int32_t> n(4, 0);
    for (uint64_t i = corpus->doc_begin[d]; i < corpus->doc_begin[d + 1]; ++i) {
      const uint32_t k = InitialTopic(7, i, 4);
      ++n[k];
      WordIncrement(state.word_topic[corpus->token_words[i]], k);
      state.assignment.push_back(k);
    }
    for (uint32_t k = 0; k < 4; ++k) {
      if (n[k] > 0) state.doc_topic[d].push_back({k, n[k]});
    }
  }
  Result<std::vector<std::string>> words =
      LoadVocab(AppParams<proto::LdaSpec>(spec)->vocab_path(), 21);
  REQUIRE(words.ok());
  REQUIRE(WriteDocTopicMtx(dir.Path("d.mtx"), *corpus, state).ok());
  REQUIRE(WriteWordTopicMtx(dir.Path("w.mtx"), *corpus, state).ok());
  REQUIRE(WriteTopics(dir.Path("t.txt"), state, *words).ok());
  auto read = [&](const std::string& name) {
    std::ifstream in(dir.Path(name), std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK(File(*r, "doc_topic.mtx") == read("d.mtx"));
  CHECK(File(*r, "word_topic.mtx") == read("w.mtx"));
  CHECK(File(*r, "topics.txt") == read("t.txt"));
  CHECK_THAT(File(*r, "topics.txt"), Catch::StartsWith("1\tword"));

  nlohmann::ordered_json summary;
  LdaApp().Summarize(r->metrics.back(), summary);
  CHECK(summary["topics"] == 4);
  CHECK(summary["tokens"] == 25 * 12);
  CHECK(summary["documents"] == 25);
  CHECK(summary["words"] == 21);
  CHECK(summary["alpha"] == 0.1);
  CHECK(summary["beta"] == 0.01);
  CHECK(r->trace[0] == "seconds,iteration,tokens,loglik_per_token");
  CHECK_THAT(r->trace[1], Catch::Matches(R"(0\.000000,0,0,-[0-9.]+)"));
}

TEST_CASE("lda_app: a seed and P determine the run, and work and uniform balance both run",
          "[lda_app]") {
  TempDir dir;
  // Skewed word frequencies so the two balances cut differently.
  std::mt19937_64 rng(6);
  std::vector<std::vector<uint32_t>> docs(80);
  for (auto& doc : docs) {
    for (int i = 0; i < 25; ++i)
      doc.push_back(static_cast<uint32_t>((rng() % 50) * (rng() % 50) / 50));
  }
  proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(50, docs)), 5, 4);
  spec.mutable_static_engine()->set_blocks_per_worker(2);
  auto a = Run(spec, 2, 2);
  auto b = Run(spec, 2, 2);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(a->metrics == b->metrics);
  for (const char* name : {"doc_topic.mtx", "word_topic.mtx", "topics.txt"}) {
    CHECK(File(*a, name) == File(*b, name));
  }
  spec.set_seed(8);
  auto other = Run(spec, 2, 2);
  REQUIRE(other.ok());
  CHECK(File(*other, "doc_topic.mtx") != File(*a, "doc_topic.mtx"));
  spec.set_seed(7);
  spec.mutable_static_engine()->set_balance("uniform");
  auto uniform = Run(spec, 2, 2);
  REQUIRE(uniform.ok());
  CHECK(uniform->work == a->work);
  CHECK(File(*uniform, "doc_topic.mtx") != File(*a, "doc_topic.mtx"));
}

// The doc-topic and word-topic triplets the Outputs of these shards and homes hold (vectors of
// pointers or of unique_ptrs).
template <typename Shards, typename Homes>
std::map<std::string, std::multiset<std::vector<int64_t>>> Triplets(const Shards& shards,
                                                                    const Homes& homes) {
  std::vector<proto::OutputPiece> pieces;
  for (const auto& s : shards) s->Output(pieces);
  for (const auto& h : homes) h->Output(pieces);
  std::map<std::string, std::multiset<std::vector<int64_t>>> out;
  for (const auto& p : pieces) {
    if (p.name() == "topic_words") continue;
    for (int i = 0; i + 2 < p.ints_size(); i += 3)
      out[p.name()].insert({p.ints(i), p.ints(i + 1), p.ints(i + 2)});
  }
  return out;
}

// The state after iteration `at` of a run with `workers` x `schedulers`: every shard's and home's
// SaveState and the aggregates, as a checkpoint holds them.
StaticLocalOptions::Resume CheckpointOf(const proto::JobSpec& spec, uint32_t workers,
                                        uint32_t schedulers, uint64_t at) {
  StaticLocalOptions::Resume cp;
  cp.iteration = at;
  StaticLocalOptions options;
  options.after_iteration = [&](uint64_t iteration, const std::vector<StaticShard*>& shards,
                                const std::vector<StaticHome*>& homes,
                                const std::vector<double>& aggregates) {
    if (iteration != at) return Status::Ok();
    std::vector<proto::OutputPiece> pieces;
    for (StaticShard* s : shards) s->SaveState(pieces);
    for (StaticHome* h : homes) h->SaveState(pieces);
    for (auto& piece : pieces) *cp.pieces.Add() = std::move(piece);
    cp.aggregates = aggregates;
    return Status::Ok();
  };
  auto r = Run(spec, workers, schedulers, options);
  REQUIRE(r.ok());
  REQUIRE(cp.aggregates.size() == AppParams<proto::LdaSpec>(spec)->topics());
  REQUIRE(std::count_if(cp.pieces.begin(), cp.pieces.end(),
                        [](const auto& p) { return p.name() == "z"; }) == workers);
  return cp;
}

TEST_CASE(
    "lda_app: resuming equals the uninterrupted run at the same P and keeps counts at other P and "
    "S",
    "[lda_app][recovery]") {
  TempDir dir;
  const auto docs = PlantedDocs(3, 4, 12, 70, 25);
  proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(48, docs)), 6, 5);
  spec.mutable_static_engine()->set_blocks_per_worker(2);
  for (const char* sampler : {"sparse", "mh"}) {
    INFO("sampler " << sampler);
    EditAppParams<proto::LdaSpec>(spec, [&](auto& p) { p.set_sampler(sampler); });
    auto whole = Run(spec, 3, 2);
    REQUIRE(whole.ok());
    const auto cp = CheckpointOf(spec, 3, 2, 2);

    // Same P and S: the same chain, byte for byte (the draws depend on seed, iteration, rank and
    // block, and the state is all there is).
    StaticLocalOptions same;
    same.resume = cp;
    auto resumed = Run(spec, 3, 2, same);
    REQUIRE(resumed.ok());
    for (const char* name : {"doc_topic.mtx", "word_topic.mtx", "topics.txt"}) {
      CHECK(File(*resumed, name) == File(*whole, name));
    }
    CHECK(resumed->aggregates == whole->aggregates);
    CHECK(resumed->metrics.back() == whole->metrics.back());

    // Other P and S (the members left after a loss, or more): the restored state is the saved
    // one, and every sub-round after it is consistent.
    for (auto [workers, schedulers] : {std::pair{1u, 1u}, std::pair{2u, 1u}, std::pair{4u, 3u}}) {
      INFO(workers << " workers, " << schedulers << " schedulers");
      StaticLocalOptions other;
      other.resume = cp;
      uint64_t first_checked = UINT64_MAX;
      other.after_sub_round = [&](const StaticStep& step, const std::vector<StaticShard*>& shards,
                                  const std::vector<StaticHome*>& homes,
                                  const std::vector<StaticBlock*>& held) {
        first_checked = std::min(first_checked, step.iteration);
        return CheckStaticInvariants(shards, homes, held);
      };
      other.after_iteration = [&](uint64_t iteration, const std::vector<StaticShard*>& shards,
                                  const std::vector<StaticHome*>& homes,
                                  const std::vector<double>&) {
        return CheckStaticInvariants(shards, homes, {});
      };
      auto r = Run(spec, workers, schedulers, other);
      REQUIRE(r.ok());
      CHECK(first_checked == 3);
      CHECK(r->work == 3 * 70 * 25);  // iterations 3..5 only
      CHECK(r->metrics.back().at("tokens") == 70 * 25);
      // Restored, not started over: the loglik is the checkpointed chain's, well above the start.
      CHECK(LdaApp().Objective(r->metrics.back()) > Trajectory(*whole).front() + 0.3);
    }
  }
}

TEST_CASE("lda_app: a restore gives exactly the saved state and refuses a missing or garbled part",
          "[lda_app][recovery]") {
  TempDir dir;
  const LdaApp app;
  const auto docs = PlantedDocs(8, 3, 9, 40, 15);
  proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(27, docs)), 5, 3);
  const auto cp = CheckpointOf(spec, 2, 2, 3);
  // The saved state as the result files show it, then the restored one with 3 x 1.
  decltype(Triplets(std::vector<StaticShard*>{}, std::vector<StaticHome*>{})) saved;
  StaticLocalOptions options;
  options.after_iteration = [&](uint64_t iteration, const std::vector<StaticShard*>& shards,
                                const std::vector<StaticHome*>& homes, const std::vector<double>&) {
    if (iteration == 3) saved = Triplets(shards, homes);
    return Status::Ok();
  };
  REQUIRE(Run(spec, 2, 2, options).ok());
  REQUIRE(saved["doc_topic"].size() > 40);
  REQUIRE(saved["word_topic"].size() > 27);

  std::vector<std::unique_ptr<StaticShard>> shards;
  std::vector<std::unique_ptr<StaticHome>> homes;
  std::vector<StaticShard*> shard_ptrs;
  std::vector<StaticHome*> home_ptrs;
  for (uint32_t w = 0; w < 3; ++w) {
    shards.push_back(std::move(app.LoadShard(spec, w, 3, 3)).value());
    REQUIRE(shards.back()->RestoreState(cp.pieces).ok());
    shard_ptrs.push_back(shards.back().get());
  }
  homes.push_back(std::move(app.LoadHome(spec, 0, 1, 3, 3)).value());
  REQUIRE(homes.back()->RestoreState(cp.pieces).ok());
  home_ptrs.push_back(homes.back().get());
  CHECK(Triplets(shard_ptrs, home_ptrs) == saved);
  // And saved again, every token has its topic back (not only the counts).
  std::vector<int64_t> z_saved, z_again;
  for (const auto& p : cp.pieces) {
    if (p.name() == "z") z_saved.insert(z_saved.end(), p.ints().begin(), p.ints().end());
  }
  std::vector<proto::OutputPiece> again;
  for (StaticShard* s : shard_ptrs) s->SaveState(again);
  for (const auto& p : again) z_again.insert(z_again.end(), p.ints().begin(), p.ints().end());
  REQUIRE(z_saved.size() == 40 * 15);
  CHECK(z_again == z_saved);

  auto without = [&](const std::string& name, int skip) {
    StatePieces out;
    int seen = 0;
    for (const auto& p : cp.pieces) {
      if (p.name() == name && seen++ == skip) continue;
      *out.Add() = p;
    }
    return out;
  };
  auto shard = app.LoadShard(spec, 0, 1, 1);
  auto home = app.LoadHome(spec, 0, 1, 1, 1);
  REQUIRE(shard.ok());
  REQUIRE(home.ok());
  Status st = (*shard)->RestoreState(without("z", 1));
  CHECK_THAT(st.message(), Catch::Contains("tokens from 0 are there"));
  st = (*home)->RestoreState(without("word_topic_rows", 0));
  CHECK_THAT(st.message(), Catch::Contains("is not there"));
  // Each garbling of the pieces, and what the shard or the home says of it.
  auto garbled = [&](const std::string& name, auto change) {
    StatePieces out = cp.pieces;
    for (auto& p : out) {
      if (p.name() == name) {
        change(p);
        break;
      }
    }
    return out;
  };
  // The first entry of the first row with two or more: its count + 1 keeps the row in order
  // and below the word's tokens, so only the row's sum is wrong.
  auto first_entry = [](const proto::OutputPiece& p) {
    int at = 2;
    while (p.ints(at) < 2) at += 1 + static_cast<int>(p.ints(at));
    return at + 1;
  };
  const std::vector<std::pair<StatePieces, std::string>> bad_z = {
      {garbled("z", [](auto& p) { p.set_ints(0, 5); }), "has topic 5"},  // K = 5
      {garbled("z", [](auto& p) { p.set_ints(0, -1); }), "has topic -1"},
      {garbled("z", [](auto& p) { p.set_width(2); }), "width 2"},
      {garbled("z", [](auto& p) { p.set_first(UINT64_MAX - 3); }), "overflows"},
      {garbled("z", [](auto& p) { p.set_first(p.first() + 1); }), "is in two z pieces"},
  };
  for (const auto& [pieces, what] : bad_z) {
    INFO(what);
    CHECK_THAT((*shard)->RestoreState(pieces).message(), Catch::Contains(what));
  }
  const std::vector<std::pair<StatePieces, std::string>> bad_rows = {
      {garbled("word_topic_rows",
               [&](auto& p) { p.set_ints(first_entry(p), p.ints(first_entry(p)) + 1); }),
       "counts sum to"},
      {garbled("word_topic_rows", [](auto& p) { p.set_ints(1, 1000); }), "bad word range"},
      {garbled("word_topic_rows", [](auto& p) { p.set_ints(0, -1); }), "bad word range"},
      {garbled("word_topic_rows", [](auto& p) { p.set_ints(2, -1); }), "bad length"},
      {garbled("word_topic_rows", [](auto& p) { p.set_ints(2, 1 << 30); }), "bad length"},
      {garbled("word_topic_rows", [](auto& p) { p.add_ints(0); }), "past its last row"},
      {garbled("word_topic_rows",
               [&](auto& p) { p.set_ints(first_entry(p), int64_t{7} << 32 | 1); }),
       "bad entry"},
  };
  for (const auto& [pieces, what] : bad_rows) {
    INFO(what);
    CHECK_THAT((*home)->RestoreState(pieces).message(), Catch::Contains(what));
  }
  StatePieces twice = cp.pieces;
  for (const auto& p : cp.pieces) {
    if (p.name() == "word_topic_rows") *twice.Add() = p;
  }
  CHECK_THAT((*home)->RestoreState(twice).message(), Catch::Contains("in two word-topic pieces"));
  // The untouched checkpoint still restores (the failures above left nothing behind that
  // matters: a job whose restore fails fails).
  CHECK((*shard)->RestoreState(cp.pieces).ok());
  CHECK((*home)->RestoreState(cp.pieces).ok());
}

TEST_CASE(
    "lda_app: a checkpoint in bounded pieces restores each member from only the pieces it needs",
    "[lda_app][recovery]") {
  TempDir dir;
  const LdaApp app;
  const auto docs = PlantedDocs(11, 3, 9, 50, 20);
  const proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(27, docs)), 5, 0);
  std::vector<std::unique_ptr<StaticShard>> shards;
  std::vector<std::unique_ptr<StaticHome>> homes;
  std::vector<proto::OutputPiece> saved;
  for (uint32_t w = 0; w < 2; ++w) {
    shards.push_back(std::move(app.LoadShard(spec, w, 2, 4)).value());
    dynamic_cast<LdaShard&>(*shards.back()).set_state_piece_ints(7);
    shards.back()->SaveState(saved);
  }
  for (uint32_t h = 0; h < 2; ++h) {
    homes.push_back(std::move(app.LoadHome(spec, h, 2, 2, 4)).value());
    dynamic_cast<LdaHome&>(*homes.back()).set_state_piece_ints(7);
    homes.back()->SaveState(saved);
  }
  StatePieces all;
  int z_pieces = 0, row_pieces = 0;
  int64_t tokens = 0, words = 0;
  for (const auto& p : saved) {
    *all.Add() = p;
    if (p.name() == "z") {
      ++z_pieces;
      tokens += p.ints_size();
      CHECK(p.ints_size() <= 7);
    } else {
      REQUIRE(p.name() == "word_topic_rows");
      ++row_pieces;
      REQUIRE(p.ints_size() >= 3);
      CHECK(p.ints(0) == static_cast<int64_t>(p.first()));
      CHECK(p.ints(1) - p.ints(0) == p.width());
      words += p.width();
      // It ends at the first row that reaches 7 ints: all but its last row fit below 7.
      int at = 2, last = 2;
      for (int64_t w = p.ints(0); w < p.ints(1); ++w) {
        last = at;
        at += 1 + static_cast<int>(p.ints(at));
      }
      CHECK(at == p.ints_size());
      CHECK(last - 2 < 7);
    }
  }
  CHECK(tokens == 50 * 20);
  CHECK(z_pieces >= 50 * 20 / 7);
  CHECK(words == 27);
  CHECK(row_pieces > 4);  // the 4 blocks, cut further

  // Three workers and one scheduler take their parts, each from the pieces it keeps.
  std::vector<std::unique_ptr<StaticShard>> shards3;
  std::vector<std::unique_ptr<StaticHome>> homes1;
  for (uint32_t w = 0; w < 3; ++w)
    shards3.push_back(std::move(app.LoadShard(spec, w, 3, 3)).value());
  homes1.push_back(std::move(app.LoadHome(spec, 0, 1, 3, 3)).value());
  auto restore = [&](auto& member) {
    StatePieces kept;
    for (const auto& p : all) {
      if (member->KeepsForRestore(p)) *kept.Add() = p;
    }
    REQUIRE(member->RestoreState(kept).ok());
    return kept.size();
  };
  int kept_z = 0;
  for (auto& s : shards3) kept_z += restore(s);
  CHECK(kept_z < z_pieces + 3);  // each piece by one shard, or two where it straddles them
  CHECK(kept_z >= z_pieces);
  CHECK(restore(homes1[0]) == row_pieces);
  CHECK(Triplets(shards3, homes1) == Triplets(shards, homes));
  // A home of 2 keeps only the pieces of its own blocks.
  auto half = std::move(app.LoadHome(spec, 1, 2, 3, 3)).value();
  CHECK(restore(half) < row_pieces);
}

TEST_CASE("lda_app: bad parameters are rejected naming the flag", "[lda_app]") {
  const LdaApp app;
  proto::JobSpec spec = Spec("docword.txt", 10, 1);
  REQUIRE(app.Validate(spec).ok());
  auto rejects = [&](const proto::JobSpec& bad, const std::string& flag) {
    testing::CheckInvalidArgument(app.Validate(bad), flag);
  };
  proto::JobSpec bad = spec;
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_topics(0); });
  rejects(bad, "--topics");
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) {
    p.set_topics(4294967295u);  // what --topics -1 parses as
  });
  rejects(bad, "--topics");
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_topics(LdaApp::kMaxTopics); });
  CHECK(app.Validate(bad).ok());
  // Issue 42: accepted, it failed a minute later as "no progress".
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_topics(1000000); });
  CHECK_THAT(app.Validate(bad).message(),
             Catch::Contains("--topics must be in [1, 100000], got 1000000"));
  bad = spec;
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_alpha(0); });
  rejects(bad, "--alpha");
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_alpha(-1); });
  rejects(bad, "--alpha");
  bad = spec;
  EditAppParams<proto::LdaSpec>(bad, [&](auto& p) { p.set_beta(std::nan("")); });
  rejects(bad, "--beta");
  bad = spec;
  bad.mutable_static_engine()->set_balance("even");
  rejects(bad, "--balance");
  bad = spec;
  bad.set_data_path("");
  rejects(bad, "--data");
}

TEST_CASE("lda_app: a docword file that disagrees with itself fails LoadShard naming file and line",
          "[lda_app]") {
  TempDir dir;
  const LdaApp app;
  const std::string short_body = dir.Write("short.txt", "2\n3\n3\n1 1 2\n2 3 1\n");
  auto shard = app.LoadShard(Spec(short_body, 2, 1), 0, 1, 1);
  REQUIRE_FALSE(shard.ok());
  CHECK_THAT(shard.status().message(), Catch::Contains("short.txt:5"));
  const std::string bad_word = dir.Write("word.txt", "2\n3\n2\n1 1 2\n2 4 1\n");
  shard = app.LoadShard(Spec(bad_word, 2, 1), 0, 1, 1);
  REQUIRE_FALSE(shard.ok());
  CHECK_THAT(shard.status().message(), Catch::Contains("word.txt:5"));
  auto home = app.LoadHome(Spec(bad_word, 2, 1), 0, 1, 1, 1);
  REQUIRE_FALSE(home.ok());
  proto::JobSpec with_vocab = Spec(dir.Write("ok.txt", "2\n3\n2\n1 1 2\n2 3 1\n"), 2, 1);
  EditAppParams<proto::LdaSpec>(
      with_vocab, [&](auto& p) { p.set_vocab_path(dir.Write("vocab.txt", "a\nb\n")); });
  auto no_vocab = app.LoadHome(with_vocab, 0, 1, 1, 1);
  REQUIRE_FALSE(no_vocab.ok());
  CHECK_THAT(no_vocab.status().message(), Catch::Contains("vocab.txt"));
}

TEST_CASE("lda_app: a malformed block is an error from Process and ReturnBlock, not a crash",
          "[lda_app]") {
  TempDir dir;
  const LdaApp app;
  const auto docs = PlantedDocs(9, 2, 5, 10, 8);
  const proto::JobSpec spec = Spec(dir.Write("docword.txt", Docword(10, docs)), 3, 1);
  auto shard = app.LoadShard(spec, 0, 1, 2);
  auto home = app.LoadHome(spec, 0, 1, 1, 2);
  REQUIRE(shard.ok());
  REQUIRE(home.ok());
  const StaticStep step{1, 0, 0, false};
  auto taken = (*home)->TakeBlock(0, step);
  REQUIRE(taken.ok());
  const StaticBlock good = *taken;
  std::vector<double> aggregates = (*shard)->InitialAggregates(), delta(3, 0.0);

  std::vector<std::pair<std::string, StaticBlock>> bad;
  StaticBlock b = good;
  b.ints.pop_back();
  bad.push_back({"truncated", b});
  b = good;
  b.ints.push_back(0);
  bad.push_back({"too long", b});
  b = good;
  b.ints[RowOffsets(good)[0] + 1] = (int64_t{3} << 32) | 1;  // topic K
  bad.push_back({"topic out of range", b});
  b = good;
  b.ints[RowOffsets(good)[0] + 1] += 1;  // count + 1: the row no longer sums to the word's tokens
  bad.push_back({"wrong sum", b});
  b = good;
  b.ints[RowOffsets(good)[0]] = -1;
  bad.push_back({"negative length", b});
  b = good;
  b.ints[0] = 1;
  bad.push_back({"wrong word range", b});
  b = good;
  b.id = 7;
  bad.push_back({"no such block", b});
  for (auto& [what, block] : bad) {
    INFO(what);
    StaticBlock copy = block;
    const auto work = (*shard)->Process(step, aggregates, copy, delta);
    REQUIRE_FALSE(work.ok());
    CHECK_THAT(work.status().message(), Catch::Contains("word-topic block"));
  }
  StaticBlock wrong = bad[2].second;
  CHECK_FALSE((*home)->ReturnBlock(std::move(wrong), step).ok());
  StaticBlock fine = good;
  REQUIRE((*shard)->Process(step, aggregates, fine, delta).ok());
  CHECK((*home)->ReturnBlock(std::move(fine), step).ok());
}

}  // namespace
}  // namespace strads::lda
