// CheckPacer (coordinator/check_pacer.h): when the rounds stop for an optimality check.
#include <catch2/catch.hpp>

#include <chrono>

#include "coordinator/check_pacer.h"

using namespace strads;
using std::chrono::milliseconds;

TEST_CASE("CheckPacer with --check-every N: a check every N updates, never by time", "[pacer]") {
  const Clock::time_point t0{};
  CheckPacer pacer(/*every_updates=*/100, /*features=*/1000, /*by_time=*/true);
  CHECK_FALSE(pacer.timed());
  pacer.Wanted(t0);
  pacer.Done(0, t0 + milliseconds(50));  // the first check took 50 ms
  CHECK(pacer.last_check_seconds() == Approx(0.05));
  CHECK_FALSE(pacer.Due(99, t0 + std::chrono::hours(1)));  // rounds far longer than the check
  CHECK(pacer.Due(100, t0 + milliseconds(51)));
  pacer.Wanted(t0 + milliseconds(60));
  pacer.Done(130, t0 + milliseconds(70));
  CHECK(pacer.updates_at_check() == 130);
  CHECK_FALSE(pacer.Due(229, t0 + std::chrono::hours(1)));
  CHECK(pacer.Due(230, t0 + milliseconds(71)));
}

TEST_CASE("CheckPacer auto: J updates, or sooner once the rounds took as long as the check",
          "[pacer]") {
  const Clock::time_point t0{};
  CheckPacer pacer(/*every_updates=*/0, /*features=*/1000, /*by_time=*/true);
  CHECK(pacer.timed());
  CHECK_FALSE(pacer.Due(5, t0 + std::chrono::hours(1)));  // no check yet: nothing to pace by
  pacer.Wanted(t0);
  pacer.Wanted(t0 + milliseconds(5));  // asked again while draining: the first ask counts
  pacer.Done(0, t0 + milliseconds(20));
  CHECK(pacer.last_check_seconds() == Approx(0.02));
  const Clock::time_point resumed = t0 + milliseconds(20);

  // The rounds since the check took less than it did: only the update count can make it due.
  CHECK_FALSE(pacer.Due(999, resumed + milliseconds(19)));
  CHECK(pacer.Due(1000, resumed + milliseconds(1)));
  // As long as the check: due, with any update since.
  CHECK(pacer.Due(1, resumed + milliseconds(20)));
  // Without an update since the check, never by time (a check with no round between would
  // measure nothing new).
  CHECK_FALSE(pacer.Due(0, resumed + std::chrono::hours(1)));

  // The next check is paced by its own duration, counted from when it was wanted (the drain).
  pacer.Wanted(resumed + milliseconds(20));
  pacer.Done(300, resumed + milliseconds(26));  // 6 ms
  const Clock::time_point again = resumed + milliseconds(26);
  CHECK_FALSE(pacer.Due(301, again + milliseconds(5)));
  CHECK(pacer.Due(301, again + milliseconds(6)));
  CHECK_FALSE(pacer.Due(300, again + milliseconds(6)));
}

TEST_CASE("CheckPacer auto without a feature: a check after every update, not before", "[pacer]") {
  CheckPacer pacer(0, 0, true);
  pacer.Done(0, Clock::time_point{});
  CHECK(pacer.Due(1, Clock::time_point{}));
  CHECK_FALSE(pacer.Due(0, Clock::time_point{} + std::chrono::hours(1)));
}

TEST_CASE("CheckPacer: a check done without being wanted is not measured", "[pacer]") {
  const Clock::time_point t0{};
  CheckPacer pacer(0, 1000, true);
  pacer.Done(0, t0);  // of unknown cost: no measure yet, so the count alone decides
  CHECK(pacer.last_check_seconds() == 0);
  CHECK_FALSE(pacer.Due(999, t0 + std::chrono::hours(1)));
  CHECK(pacer.Due(1000, t0));

  pacer.Wanted(t0 + milliseconds(10));
  pacer.Done(1000, t0 + milliseconds(18));  // measured: 8 ms
  pacer.Done(1100, t0 + milliseconds(30));  // unknown again: the 8 ms stand
  CHECK(pacer.last_check_seconds() == Approx(0.008));
  CHECK_FALSE(pacer.Due(1101, t0 + milliseconds(37)));
  CHECK(pacer.Due(1101, t0 + milliseconds(38)));
}

TEST_CASE(
    "CheckPacer auto: the check at the start is not measured, the next follows the first commit",
    "[pacer]") {
  const Clock::time_point t0{};
  CheckPacer pacer(0, 1000, true);
  pacer.Wanted(t0);
  pacer.Done(0, t0 + milliseconds(15), /*measured=*/false);  // 15 ms, mostly the members' start
  CHECK(pacer.last_check_seconds() == 0);
  CHECK(pacer.DueAfterNextRound());
  CHECK_FALSE(pacer.Due(0, t0 + std::chrono::hours(1)));  // never without a round between
  CHECK(pacer.Due(1, t0 + milliseconds(16)));             // right after the first round
  // That check is measured, and paces the next as usual.
  pacer.Wanted(t0 + milliseconds(17));
  pacer.Done(4, t0 + milliseconds(19));  // 2 ms
  CHECK(pacer.last_check_seconds() == Approx(0.002));
  CHECK_FALSE(pacer.DueAfterNextRound());
  CHECK_FALSE(pacer.Due(5, t0 + milliseconds(20)));
  CHECK(pacer.Due(5, t0 + milliseconds(21)));

  CheckPacer counted(100, 1000, true);  // the count rule alone
  counted.Wanted(t0);
  counted.Done(0, t0 + milliseconds(15), /*measured=*/false);
  CHECK_FALSE(counted.DueAfterNextRound());
  CHECK_FALSE(counted.Due(99, t0 + std::chrono::hours(1)));
  CHECK(counted.Due(100, t0));
}
