// The Metropolis-Hastings (LightLDA) sampler, apps/lda/mh_sampler.h: alias-table draws follow their
// weights; the sequential variant (SolveLdaMh) and the engine's shard (--sampler mh) keep every
// count table consistent, recover planted topics and climb to the SparseLDA sampler's
// log-likelihood; a bad --sampler is rejected.
#include "apps/lda.pb.h"
#include "apps/lda/mh_sampler.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "test/temp_dir.h"

#include "apps/lda/corpus.h"
#include "apps/lda/lda_app.h"
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

// Learned topics whose top-10 words lie >= 8 in one planted support, each support claimed once.
int RecoveredTopics(const LdaState& state, uint32_t planted, uint32_t width) {
  std::set<uint32_t> claimed;
  for (const std::vector<uint32_t>& words : TopWords(state, 10)) {
    std::vector<int> hits(planted, 0);
    for (uint32_t w : words) ++hits[w / width];
    const auto best =
        static_cast<uint32_t>(std::max_element(hits.begin(), hits.end()) - hits.begin());
    if (words.size() == 10 && hits[best] >= 8) claimed.insert(best);
  }
  return static_cast<int>(claimed.size());
}

proto::JobSpec MhSpec(const std::string& data, uint32_t topics, uint32_t iterations) {
  proto::JobSpec spec = test_corpus::Spec(data, topics, iterations);
  EditAppParams<proto::LdaSpec>(spec, [&](auto& p) { p.set_sampler("mh"); });
  return spec;
}

std::vector<double> Trajectory(const StaticLocalResult& r) {
  std::vector<double> out;
  for (const auto& m : r.metrics) out.push_back(LdaApp().Objective(m));
  return out;
}

TEST_CASE("lda_mh: alias table draws follow their weights, zero weights never drawn", "[lda][mh]") {
  const std::vector<double> weights = {1, 2, 3, 4, 0, 10, 0.5, 79.5};
  AliasTable table;
  table.Build(weights);
  REQUIRE(table.size() == weights.size());
  std::mt19937_64 rng(3);
  constexpr int kDraws = 400000;
  std::vector<int> hits(weights.size(), 0);
  for (int i = 0; i < kDraws; ++i) ++hits[table.Draw(Uniform01(rng))];
  double chi2 = 0;
  for (size_t i = 0; i < weights.size(); ++i) {
    const double expected = kDraws * weights[i] / 100.0;
    INFO("index " << i << " drawn " << hits[i] << " expected " << expected);
    if (weights[i] == 0) {
      CHECK(hits[i] == 0);
      continue;
    }
    chi2 += (hits[i] - expected) * (hits[i] - expected) / expected;
  }
  // 6 degrees of freedom: P(chi2 > 22.5) = 0.001.
  CHECK(chi2 < 22.5);
  // A single weight and the last column draw correctly at u -> 1.
  table.Build(std::vector<double>{5});
  CHECK(table.Draw(0x1.fffffffffffffp-1) == 0);
}

TEST_CASE("lda_mh: the sequential sampler keeps every count table consistent after every iteration",
          "[lda][mh]") {
  Result<Corpus> c = MakeCorpus(60, PlantedDocs(1, 4, 15, 60, 30));
  REQUIRE(c.ok());
  LdaOptions o;
  o.topics = 12;
  o.iterations = 10;
  int checked = 0;
  Result<LdaResult> r = SolveLdaMh(*c, o, [&](const LdaTracePoint& p) {
    const Status s = CheckInvariants(*c, *p.state);
    INFO("iteration " << p.iteration << ": " << s.message());
    CHECK(s.ok());
    ++checked;
  });
  REQUIRE(r.ok());
  CHECK(checked == 11);
  // Deterministic for a seed, and not the SparseLDA chain.
  Result<LdaResult> again = SolveLdaMh(*c, o);
  REQUIRE(again.ok());
  CHECK(again->state.assignment == r->state.assignment);
  o.mh_steps = 0;
  CHECK(SolveLdaMh(*c, o).status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("lda_mh: the sequential sampler recovers planted topics", "[lda][mh]") {
  Result<Corpus> c = MakeCorpus(100, PlantedDocs(3, 5, 20, 200, 50));
  REQUIRE(c.ok());
  int perfect = 0;
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    LdaOptions o;
    o.topics = 5;
    o.iterations = 60;
    o.seed = seed;
    Result<LdaResult> r = SolveLdaMh(*c, o);
    REQUIRE(r.ok());
    const int recovered = RecoveredTopics(r->state, 5, 20);
    INFO("seed " << seed << " loglik " << r->loglik_per_token);
    CHECK(recovered >= 4);
    if (recovered == 5) ++perfect;
  }
  CHECK(perfect >= 3);
}

// Per sweep an MH chain mixes more slowly than Gibbs (each token makes mh_steps cheap proposals,
// not one exact draw), so it reaches Gibbs' level later, and sooner the more steps it takes.
// Measured on this corpus (K = 20, seed 1): SparseLDA climbs -6.06 -> -5.750 (30 sweeps) ->
// -5.727 (60); MH with 32 steps tracks it within 0.007 at every sweep; with 8 steps -5.733 at
// 60; with the default 2 steps -5.771 at 60 and -5.753 at 100, i.e. about 3x the sweeps.
TEST_CASE("lda_mh: the sequential sampler reaches SparseLDA's log-likelihood", "[lda][mh]") {
  Result<Corpus> c = MakeCorpus(1000, test_corpus::SkewedDocs(4, 400, 1000));
  REQUIRE(c.ok());
  LdaOptions o;
  o.topics = 20;
  o.iterations = 60;
  Result<LdaResult> sparse = SolveLdaReference(*c, o);
  REQUIRE(sparse.ok());
  o.mh_steps = 8;
  Result<LdaResult> mh8 = SolveLdaMh(*c, o);
  o.mh_steps = 2;
  Result<LdaResult> mh2 = SolveLdaMh(*c, o);
  REQUIRE((mh8.ok() && mh2.ok()));
  const auto& s = sparse->trace;
  INFO("sparse at 20/60: " << s[20].loglik_per_token << " " << s[60].loglik_per_token
                           << "; mh 8 steps " << mh8->loglik_per_token << ", 2 steps "
                           << mh2->loglik_per_token);
  CHECK(mh2->trace.front().loglik_per_token == s.front().loglik_per_token);
  CHECK(mh8->loglik_per_token == Approx(s[60].loglik_per_token).margin(0.02));
  CHECK(mh2->loglik_per_token > s[20].loglik_per_token - 0.01);
  CHECK(mh2->loglik_per_token > mh2->trace[30].loglik_per_token);
}

TEST_CASE("lda_mh: every engine sub-round leaves doc-topic, word-topic and topic totals consistent",
          "[lda_app][mh]") {
  TempDir dir;
  const proto::JobSpec spec =
      MhSpec(dir.Write("docword.txt", Docword(60, PlantedDocs(1, 4, 15, 60, 30))), 6, 3);
  for (uint32_t per_worker : {1u, 2u}) {
    proto::JobSpec s = spec;
    s.mutable_static_engine()->set_blocks_per_worker(per_worker);
    int checks = 0;
    StaticLocalOptions options;
    options.workers = 3;
    options.schedulers = 2;
    options.after_sub_round = [&](const StaticStep&, const std::vector<StaticShard*>& shards,
                                  const std::vector<StaticHome*>& homes,
                                  const std::vector<StaticBlock*>& held) {
      ++checks;
      return CheckStaticInvariants(shards, homes, held);
    };
    auto r = RunStaticLocally(LdaApp(), s, options);
    INFO("blocks per worker " << per_worker);
    REQUIRE(r.ok());
    CHECK(checks == 7 * 3 * static_cast<int>(per_worker));
  }
}

TEST_CASE("lda_mh: the engine recovers planted topics, reproducibly, near SparseLDA's trajectory",
          "[lda_app][mh]") {
  TempDir dir;
  constexpr uint32_t kPlanted = 5, kWidth = 20;
  const std::string path = dir.Write(
      "docword.txt", Docword(kPlanted * kWidth, PlantedDocs(3, kPlanted, kWidth, 200, 50)));
  proto::JobSpec spec = MhSpec(path, 5, 40);
  StaticLocalOptions options;
  options.workers = 2;
  options.schedulers = 2;
  auto r = RunStaticLocally(LdaApp(), spec, options);
  REQUIRE(r.ok());
  std::string topics;
  for (const auto& f : r->files) {
    if (f.name() == "topics.txt") topics = f.content();
  }
  CHECK(test_corpus::ClaimedTopics(topics, kPlanted, kWidth).size() == kPlanted);
  auto again = RunStaticLocally(LdaApp(), spec, options);
  REQUIRE(again.ok());
  CHECK(Trajectory(*again) == Trajectory(*r));
  // The SparseLDA engine run of the same spec ends at the same level (measured: within 0.01).
  EditAppParams<proto::LdaSpec>(spec, [&](auto& p) { p.set_sampler("sparse"); });
  auto sparse = RunStaticLocally(LdaApp(), spec, options);
  REQUIRE(sparse.ok());
  CHECK(Trajectory(*r).back() == Approx(Trajectory(*sparse).back()).margin(0.03));
}

TEST_CASE("lda_mh: a --sampler other than sparse or mh is rejected", "[lda_app][mh]") {
  proto::JobSpec spec = MhSpec("/nonexistent/docword.txt", 5, 1);
  CHECK(LdaApp().Validate(spec).ok());
  EditAppParams<proto::LdaSpec>(spec, [&](auto& p) { p.set_sampler("sparse"); });
  CHECK(LdaApp().Validate(spec).ok());
  EditAppParams<proto::LdaSpec>(spec, [&](auto& p) { p.set_sampler("gibbs"); });
  const Status s = LdaApp().Validate(spec);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message().find("--sampler must be sparse or mh") != std::string::npos);
}

}  // namespace
}  // namespace strads::lda
