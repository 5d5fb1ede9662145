// Protocol constants and small helpers around the Envelope (proto/strads.proto).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// Bumped whenever the meaning of a message changes; peers with another version are refused.
// 4: bulk arrays as raw frames, GradientSlice.sq_norms (the first check), Commit.requests_chord.
// 5: ColumnCounts (members load from the workers' summed counts instead of counting the file).
// 6: CheckRequest.requests_chord (a scheduler that ignored it would stall the job).
// 7: the dynamic engine's row layout removed (no Partials, no layout in the spec); a member's
// failure is a JobFailed, no longer a Ready with an error; one JobSpec.linear (LinearModelSpec)
// for the linear models instead of JobSpec.lasso, .logistic and .svm.
// 8: the app's parameters as JobSpec.params, a google.protobuf.Any of the app's own message
// (proto/apps/<app>.proto; engine/app_params.h), instead of the oneof JobSpec.linear, .lda, .mf.
// 9: the job table in pages (StatusRequest.first_job_id, .max_jobs; StatusReply.next_job_id), the
// store's health (StatusReply.store_problem), ErrorReply.kind; job specs bounded
// (engine/job_spec.h).
// 10: --aggregation tree (DynamicEngineSpec.aggregation, fan_in): workers send ColumnPartials of
// their subtrees (run_ranks, run_sizes, moved) to each other and forward SharedUpdate down the
// tree; a member of version 9 would ignore the spec's tree and wait for what never comes.
inline constexpr uint32_t kProtocolVersion = 10;

// Default control port of the coordinator; the status socket is the next port.
inline constexpr int kDefaultControlPort = 7700;

inline constexpr const char* kCoordinatorId = "coordinator";

// A new envelope stamped with the protocol version, sender, job and round.
proto::Envelope MakeEnvelope(const std::string& sender, uint64_t job_id = 0, uint64_t round = 0);

// Ok when `envelope` speaks our protocol version; otherwise an error naming both versions.
Status CheckVersion(const proto::Envelope& envelope);

// The name of the body's message type, for logs ("chord", "commit", ...).
std::string BodyName(const proto::Envelope& envelope);

std::string RoleName(proto::Role role);
std::string JobStateName(proto::JobState state);
// SUCCEEDED, FAILED or CANCELLED: the job will not run again (RECOVERING is not final).
bool IsFinal(proto::JobState state);
// "dynamic", "random", "cyclic" or "static" (unspecified means dynamic).
std::string ScheduleName(proto::Schedule schedule);

}  // namespace strads
