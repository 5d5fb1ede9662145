// CheckTally (coordinator/check_tally.h): one check's answers, summed by hand.
#include <catch2/catch.hpp>

#include "coordinator/check_tally.h"

namespace strads {
namespace {

proto::CheckReport Report(double violation, double gradient, double penalty, uint64_t nonzeros) {
  proto::CheckReport r;
  r.set_max_violation(violation);
  r.set_max_abs_gradient(gradient);
  r.set_penalty(penalty);
  r.set_nonzeros(nonzeros);
  return r;
}

proto::LossReport Metrics(double correct, double rows) {
  proto::LossReport r;
  (*r.mutable_metrics())["correct"] = correct;
  (*r.mutable_metrics())["rows"] = rows;
  return r;
}

TEST_CASE("CheckTally: complete once every worker and scheduler answered, with sums and maxima",
          "[check_tally]") {
  CheckTally t;
  t.Begin(/*workers=*/2, /*schedulers=*/2, /*loss=*/10);
  CHECK(t.AddWorker(1, Metrics(3, 4)));
  CHECK_FALSE(t.workers_done());
  CHECK(t.AddWorker(0, Metrics(5, 6)));
  CHECK(t.workers_done());
  CHECK(t.AddScheduler(0, Report(0.5, 7, 1.5, 3)));
  CHECK_FALSE(t.complete());
  CHECK_FALSE(t.answered_scheduler(1));
  CHECK(t.AddScheduler(1, Report(0.25, 9, 2, 4)));
  REQUIRE(t.complete());
  CHECK(t.objective() == 13.5);  // the loss given at the start plus both penalties
  CHECK(t.max_violation() == 0.5);
  CHECK(t.max_abs_gradient() == 9);
  CHECK(t.nonzeros() == 7);
  CHECK(t.metrics() == std::map<std::string, double>{{"correct", 8}, {"rows", 10}});
}

TEST_CASE("CheckTally: a repeated or unknown rank counts nothing, and Begin starts over",
          "[check_tally]") {
  CheckTally t;
  t.Begin(1, 1, 0);
  CHECK(t.AddScheduler(0, Report(1, 1, 1, 1)));
  CHECK_FALSE(t.AddScheduler(0, Report(9, 9, 9, 9)));
  CHECK_FALSE(t.AddScheduler(1, Report(9, 9, 9, 9)));
  CHECK_FALSE(t.AddWorker(3, Metrics(1, 1)));
  CHECK(t.penalty() == 1);
  CHECK(t.max_violation() == 1);
  t.Begin(1, 1, 2);
  CHECK_FALSE(t.answered_scheduler(0));
  CHECK(t.penalty() == 0);
  CHECK(t.objective() == 2);
}

}  // namespace
}  // namespace strads
