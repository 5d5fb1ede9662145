// JobView: what a user reads about one job, per engine, named for what each number holds.
//
// A dynamic (SAP) job counts rounds and coordinate updates and measures an objective and the
// optimality violation; a static job counts iterations, sub-rounds and work units (its app's:
// tokens, ratings) and measures an objective or a log-likelihood, the load imbalance and each
// worker's compute seconds. `strads status` shows the two in separate tables with their own
// columns (cli/status_view.h), the progress line (`submit --wait`, `run`) as fields fitted to the
// terminal (cli/fitted_line.h); `status --json` is coordinator/status_json.h.
// Thread-compatibility: pure functions.
#pragma once

#include <string>
#include <vector>

#include "cli/fitted_line.h"
#include "cli/text_table.h"
#include "coordinator/status_json.h"
#include "strads.pb.h"

namespace strads {

// "TOKENS" for work unit "tokens", "LOGLIK/TOKEN" for "loglik_per_token": a header naming what a
// static job's number holds ("WORK" / "OBJECTIVE" while it is not known yet, e.g. queued).
std::string HeaderFor(const std::string& name, const std::string& fallback);

// The columns of a table of dynamic jobs, or of static jobs of one app (`sample` names the work
// unit and objective), and one job's row in it.
void AddJobColumns(TextTable& table, bool static_engine, const proto::JobInfo& sample);
std::vector<std::string> JobRow(const proto::JobInfo& job);

// The fields of the progress line, by priority (0 = always shown).
std::vector<LineField> ProgressFields(const proto::JobInfo& job);

}  // namespace strads
