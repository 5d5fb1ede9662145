// Admit (coordinator/admission.h): when the head of the queue starts, waits or fails.
#include <catch2/catch.hpp>

#include "coordinator/admission.h"

namespace strads {
namespace {

using Decision = Admission::Decision;

AdmissionInput Available(size_t schedulers, size_t workers) {
  AdmissionInput in;
  in.available_schedulers = schedulers;
  in.available_workers = workers;
  in.register_timeout_s = 30;
  return in;
}

TEST_CASE("Admit: a job that asks for no count takes every available member", "[admission]") {
  const Admission a = Admit(Available(2, 3));
  CHECK(a.decision == Decision::kStart);
  CHECK(a.schedulers == 2);
  CHECK(a.workers == 3);
}

TEST_CASE("Admit: a job takes what it asks for, and waits while that many are not there",
          "[admission]") {
  AdmissionInput in = Available(2, 3);
  in.asked_workers = 2;
  Admission a = Admit(in);
  CHECK(a.decision == Decision::kStart);
  CHECK(a.schedulers == 2);  // not asked: all of them
  CHECK(a.workers == 2);
  in.asked_workers = 4;
  a = Admit(in);
  CHECK(a.decision == Decision::kWait);
  CHECK(a.workers == 4);
}

TEST_CASE("Admit: until the cluster reached the launcher's counts, a job waits for them",
          "[admission]") {
  AdmissionInput in = Available(1, 1);
  in.announced_schedulers = 1;
  in.announced_workers = 2;
  CHECK(Admit(in).decision == Decision::kWait);
  in.available_workers = 2;
  const Admission a = Admit(in);
  CHECK(a.decision == Decision::kStart);
  CHECK(a.workers == 2);
}

TEST_CASE("Admit: past the registration timeout a job short of members fails, naming them",
          "[admission]") {
  AdmissionInput in = Available(1, 0);
  in.waited_s = 29.9;
  CHECK(Admit(in).decision == Decision::kWait);
  in.waited_s = 30;
  const Admission a = Admit(in);
  REQUIRE(a.decision == Decision::kFail);
  const std::string cause = AdmissionFailure(in, a, {"scheduler-0"}, {});
  CHECK_THAT(cause, Catch::Contains("could not start within 30 s") &&
                        Catch::Contains("needs 1 scheduler and 1 worker;") &&
                        Catch::Contains("available schedulers: scheduler-0") &&
                        Catch::Contains("available workers: none") &&
                        Catch::Contains("1 worker never registered"));
  CHECK_THAT(cause, !Catch::Contains("scheduler never registered"));
}

TEST_CASE(
    "Admit: a recovering job waits for its last run's members, then is re-planned over those "
    "there are",
    "[admission]") {
  AdmissionInput in = Available(1, 3);
  in.recovering = true;
  in.last_schedulers = 1;
  in.last_workers = 4;
  in.recovery_wait_s = 10;
  in.waited_s = 5;
  CHECK(Admit(in).decision == Decision::kWait);
  in.waited_s = 10;
  Admission a = Admit(in);
  CHECK(a.decision == Decision::kStart);
  CHECK(a.replanned);
  CHECK(a.workers == 3);
  in.available_workers = 6;  // more than it had: it takes as many as before, not all
  a = Admit(in);
  CHECK(a.decision == Decision::kStart);
  CHECK_FALSE(a.replanned);
  CHECK(a.workers == 4);
}

TEST_CASE("Admit: a recovering job with no worker at all waits out the registration timeout",
          "[admission]") {
  AdmissionInput in = Available(1, 0);
  in.recovering = true;
  in.last_schedulers = 1;
  in.last_workers = 2;
  in.recovery_wait_s = 10;
  in.waited_s = 20;
  CHECK(Admit(in).decision == Decision::kWait);
  in.waited_s = 30;
  CHECK(Admit(in).decision == Decision::kFail);
}

}  // namespace
}  // namespace strads
