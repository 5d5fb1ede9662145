// TraceLog (coordinator/trace_log.h): one trace row per state of progress.
#include <catch2/catch.hpp>

#include "coordinator/trace_log.h"

using namespace strads;

TEST_CASE("TraceLog: a row for the updates of the last row replaces it, others are appended",
          "[trace]") {
  TraceLog log("seconds,updates,objective");
  CHECK(log.Text() == "seconds,updates,objective\n");
  log.Add(0, "1.0,0,10.5");  // timed, estimated
  log.Add(0, "1.2,0,10");    // the check: exact
  log.Add(5, "2.0,5,8");
  log.Add(9, "3.0,9,7");  // the last check
  log.Add(9, "3.1,9,7");  // the end
  CHECK(log.Text() == "seconds,updates,objective\n1.2,0,10\n2.0,5,8\n3.1,9,7\n");
}
