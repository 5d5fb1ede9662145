// The dynamic job's result pieces (coordinator/dynamic_result.h), by hand.
#include <catch2/catch.hpp>

#include "coordinator/dynamic_result.h"

namespace strads {
namespace {

TEST_CASE("CoefficientsTsv: 1-based ids, exact values, one line each", "[dynamic_result]") {
  const std::pair<uint64_t, double> model[] = {{0, 0.1}, {41, -2.5}};
  CHECK(CoefficientsTsv(model) == "1\t0.10000000000000001\n42\t-2.5\n");
  CHECK(CoefficientsTsv({}).empty());
}

TEST_CASE("DynamicEngineJson: the run's chords over the spec's, the conditional fields",
          "[dynamic_result]") {
  proto::DynamicEngineSpec d;
  d.set_chord_size(4096);
  d.set_candidates(8192);
  d.set_pipeline_depth(2);
  d.set_rho(0.8);
  d.set_group_rho(0.5);
  SECTION("before the schedulers report, with a fixed check interval") {
    DynamicRunSettings run;
    run.check_every = 1000;
    const auto j = DynamicEngineJson(d, run);
    CHECK(j.at("chord_size") == 4096);
    CHECK(j.at("candidates") == 8192);
    CHECK_FALSE(j.contains("chord_size_cap"));
    CHECK_FALSE(j.contains("rho_applies_to"));
    CHECK(j.at("check_every") == 1000);
  }
  SECTION("adapted chords, the default filter, checks paced by time") {
    d.set_chord_size_adapts(true);
    d.set_rho_if_dense(true);
    DynamicRunSettings run;
    run.chord_size = 86;
    run.candidates = 172;
    run.inner_passes = 8;
    run.checks = 3;
    const auto j = DynamicEngineJson(d, run);
    CHECK(j.at("chord_size") == 86);
    CHECK(j.at("chord_size_cap") == 4096);
    CHECK(j.at("rho_applies_to") == "dense partitions only");
    CHECK(j.at("inner_passes") == 8);
    CHECK(j.at("check_every") == "auto");
    CHECK(j.at("checks") == 3);
  }
}

}  // namespace
}  // namespace strads
