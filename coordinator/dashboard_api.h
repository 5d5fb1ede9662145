// DashboardApi: the dashboard's HTTP routes as a pure function of a DashboardSnapshot, so they
// are tested without sockets (coordinator/http_dashboard.h serves them).
//
//   GET /                    the page (index.html; its dashboard.js and dashboard.css beside it,
//                            compiled in from coordinator/dashboard_assets/)
//   GET /api/status          the document of `strads status --json` (coordinator/status_json.h)
//   GET /api/jobs/ID/trace   job ID's trace (coordinator/job_trace.h) with its job_id, app,
//                            engine, objective_name and work_unit
// Anything else is 404 with {"error": "..."} (an unknown job, a job whose trace is no longer
// kept, a malformed id, an unknown path).
// Thread-compatibility: pure functions.
#pragma once

#include <string>

#include "coordinator/dashboard_state.h"

namespace strads {

struct HttpReply {
  int status = 200;
  std::string content_type;
  std::string body;
};

// The reply to a GET of `path` (without the query string).
HttpReply DashboardReply(const DashboardSnapshot& snapshot, const std::string& path);

}  // namespace strads
