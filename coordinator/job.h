// Job: one running job as the coordinator drives it, whatever its engine.
//
// The coordinator owns at most one running Job and talks to it only through this interface:
// DynamicJob (the SAP engine: lasso, logistic, svm) and StaticJob (planned rotations: lda, mf)
// implement it. A job sends its own messages to its members over the coordinator's Transport.
// Thread-compatibility: owned by the coordinator's event loop.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/event_loop.h"
#include "strads.pb.h"

namespace strads {

struct JobMember {
  std::string id;
  std::string endpoint;
};

// Bounds on how long a job may wait for its members.
struct JobDeadlines {
  double load_s = 1800;  // JobStart until every member is Ready
  double stall_s = 60;   // afterwards: longest time without any expected message
};

// Which run of a job this is. The first has epoch 0 (the wire's default) and starts from scratch;
// after a member loss or a coordinator restart the job runs again with the next epoch, from the
// latest checkpoint if there is one (Coordinator::TryRecover, coordinator/coordinator.h). Every
// message of the run carries its epoch; messages of other epochs are refused.
struct Incarnation {
  uint32_t epoch = 0;
  double seconds_before = 0;  // job time before this run started: earlier runs and the gaps
  std::optional<proto::Checkpoint> resume;
  std::vector<proto::Recovery> recoveries;  // the job's recoveries so far, for status and summary
};

class Job {
 public:
  virtual ~Job() = default;
  // Sends JobStart to every member; `now` is the time of the start.
  virtual void Start(Clock::time_point now) = 0;
  // A message of this job from one of its members.
  virtual void OnMessage(const proto::Envelope& envelope, Clock::time_point now) = 0;
  virtual void OnTick(Clock::time_point now) = 0;
  // Ends the job now (JobEnd to every member). No-op once done.
  virtual void Cancel(Clock::time_point now) = 0;
  virtual void Fail(const std::string& cause, Clock::time_point now) = 0;
  // Fails the job because a member is gone (no heartbeat, unreachable): a failure the job may
  // recover from (lost_member()).
  // `suspect`: the member that could not be reached, when a peer reported it (empty: the
  // coordinator itself saw the loss).
  virtual void LoseMember(const std::string& cause, Clock::time_point now,
                          const std::string& suspect = "") = 0;
  // Members reported unreachable by their peers: not taken by a job until they heartbeat again.
  virtual const std::vector<std::string>& suspects() const = 0;
  // Whether the job failed because a member was lost, rather than by its data or its math.
  virtual bool lost_member() const = 0;
  // The latest state the job could resume from, or nothing (not before the first consistent
  // point: dynamic jobs after their first check, static jobs after their first checkpoint).
  virtual std::optional<proto::Checkpoint> TakeCheckpoint(Clock::time_point now) = 0;
  // Whether the job collects its checkpoints itself, at consistent points it chooses (static
  // jobs, between iterations, every --checkpoint-every), and how many it has collected in this
  // run: the coordinator writes each new one at once. Otherwise (dynamic jobs, whose committed
  // state can be taken at any time) the coordinator takes one every --checkpoint-every.
  virtual bool PacesCheckpoints() const { return false; }
  virtual uint64_t checkpoints_collected() const { return 0; }
  // The progress a checkpoint is measured in: updates (dynamic) or iterations (static).
  virtual uint64_t Progress() const = 0;
  virtual bool done() const = 0;
  virtual bool Involves(const std::string& member_id) const = 0;
  // Members a send to failed (they are gone or stuck); the coordinator drops them.
  virtual const std::vector<std::string>& unreachable() const = 0;
  // A snapshot for status and results.
  virtual proto::JobInfo Info(Clock::time_point now) const = 0;
  // The result files: once succeeded, all of them; once cancelled or failed after loading, what
  // exists (trace, partial coefficients) with summary.json's "partial": true; else none.
  virtual std::vector<proto::ResultFile> ResultFiles() const = 0;
};

}  // namespace strads
