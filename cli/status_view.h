// StatusView: `strads status` and `strads jobs` as text and as JSON.
//
// Text: the members, then one table of dynamic jobs and one table of static jobs per app (each
// with the columns of its engine, cli/job_view.h), then one line per job with an error. Every
// table fits `width` (the terminal's; 0 = no limit) by leaving out its least important columns.
// JSON: the document `strads status --json` prints is StatusJson (coordinator/status_json.h,
// shared with the dashboard).
// Thread-compatibility: pure functions.
#pragma once

#include <cstddef>
#include <string>

#include "coordinator/status_json.h"
#include "strads.pb.h"

namespace strads {

// The job tables and error lines (`strads jobs`).
std::string RenderJobs(const proto::StatusReply& status, size_t width);

// The coordinator's uptime, the members' table, then RenderJobs (`strads status`).
std::string RenderStatus(const proto::StatusReply& status, size_t width);

}  // namespace strads
