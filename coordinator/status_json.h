// The status document: what `strads status --json` prints and the dashboard's /api/status
// serves, built from the coordinator's StatusReply (fields listed in the README, "Status").
//
// One object per job: the common fields, then its engine's (a dynamic job counts rounds and
// updates and measures the optimality violation; a static job counts iterations, sub-rounds and
// its app's work units, and reports the load imbalance and each worker's compute seconds).
// The CLI (cli/status_view.h) and the coordinator's dashboard (coordinator/dashboard_api.h) both
// call these, so the two documents cannot drift apart.
// Thread-compatibility: pure functions.
#pragma once

#include <nlohmann/json.hpp>

#include "strads.pb.h"

namespace strads {

bool IsStaticJob(const proto::JobInfo& job);

// A dynamic job's violation is measured at its first optimality check (-1 before).
bool ViolationMeasured(const proto::JobInfo& job);

// One recovery of a job, as the document and summary.json list it.
nlohmann::ordered_json RecoveryJson(const proto::Recovery& recovery);

// One job of the document.
nlohmann::ordered_json JobJson(const proto::JobInfo& job);

// The whole document: coordinator, uptime, member counts, members, jobs.
nlohmann::ordered_json StatusJson(const proto::StatusReply& status);

}  // namespace strads
