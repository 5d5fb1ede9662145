// WaitLedger (coordinator/wait_ledger.h): time goes to the state that held since the last mark.
#include <catch2/catch.hpp>

#include <chrono>

#include "coordinator/wait_ledger.h"

namespace strads {
namespace {

using Wait = WaitLedger::Wait;

Clock::time_point At(double seconds) {
  return Clock::time_point{} +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

TEST_CASE("WaitLedger: each interval goes to the state marked at its start, none to kNone",
          "[wait_ledger]") {
  WaitLedger ledger;
  ledger.Mark(At(1), Wait::kNone);  // loading: not solving
  ledger.Mark(At(3), Wait::kChord);
  ledger.Mark(At(3.5), Wait::kWorkers);
  ledger.Mark(At(4.5), Wait::kCheckWorkers);
  ledger.Mark(At(4.75), Wait::kCheckSchedulers);
  ledger.Mark(At(5), Wait::kCoordinator);
  ledger.Mark(At(5.25), Wait::kChord);
  ledger.Mark(At(5.5), Wait::kNone);
  ledger.Mark(At(9), Wait::kOther);
  ledger.Mark(At(9.5), Wait::kNone);
  CHECK(ledger.Seconds(Wait::kNone) == 5.5);  // [1, 3) and [5.5, 9)
  CHECK(ledger.Seconds(Wait::kChord) == 0.75);
  CHECK(ledger.Seconds(Wait::kWorkers) == 1);
  CHECK(ledger.Seconds(Wait::kCheckWorkers) == 0.25);
  CHECK(ledger.Seconds(Wait::kCheckSchedulers) == 0.25);
  CHECK(ledger.Seconds(Wait::kCoordinator) == 0.25);
  CHECK(ledger.Seconds(Wait::kOther) == 0.5);
  CHECK(ledger.Solving() == 3);
  const auto json = ledger.Json();
  CHECK(json.at("chord_s").get<double>() == 0.75);
  CHECK(json.at("schedulers_share").get<double>() == Approx(1.0 / 3));
  CHECK(ledger.state() == Wait::kNone);
}

TEST_CASE("WaitLedger: a mark at or before the last adds nothing but changes the state",
          "[wait_ledger]") {
  WaitLedger ledger;
  CHECK(ledger.Json().at("schedulers_share").get<double>() == 0);  // nothing yet
  ledger.Mark(At(2), Wait::kWorkers);
  ledger.Mark(At(1), Wait::kChord);  // earlier: no time, the state changes
  ledger.Mark(At(2), Wait::kChord);
  ledger.Mark(At(3), Wait::kOther);
  CHECK(ledger.Seconds(Wait::kWorkers) == 0);
  CHECK(ledger.Seconds(Wait::kChord) == 1);
}

TEST_CASE("WaitLedger: Move shifts time between states, at most what the source holds",
          "[wait_ledger]") {
  WaitLedger ledger;
  ledger.Mark(At(0), Wait::kChord);
  ledger.Mark(At(0.003), Wait::kWorkers);
  ledger.Mark(At(0.004), Wait::kNone);
  ledger.Move(Wait::kChord, Wait::kWorkers, 0.002);
  CHECK(ledger.Seconds(Wait::kChord) == Approx(0.001));
  CHECK(ledger.Seconds(Wait::kWorkers) == Approx(0.003));
  ledger.Move(Wait::kChord, Wait::kWorkers, 0.5);   // only the 0.001 left
  ledger.Move(Wait::kWorkers, Wait::kChord, -1.0);  // nothing
  CHECK(ledger.Seconds(Wait::kChord) == 0.0);
  CHECK(ledger.Seconds(Wait::kWorkers) == Approx(0.004));
  CHECK(ledger.Solving() == Approx(0.004));
  CHECK(ledger.moved() == Approx(0.003));
  CHECK(ledger.Json().at("moved_s").get<double>() == Approx(0.003));
}

}  // namespace
}  // namespace strads
