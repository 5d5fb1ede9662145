// DashboardState: the dashboard's view of the cluster, handed from the coordinator's event loop
// to the HTTP server's threads.
//
// The coordinator calls OnStatus (a StatusObserver) on its event loop a few times a second; the
// state adds each job's snapshot to that job's JobTrace and publishes an immutable
// DashboardSnapshot: the status document and every kept trace. HTTP threads take the current
// snapshot with Current() and never see the coordinator itself. A finished job's trace is frozen
// and shared between snapshots, so publishing copies only the traces of jobs still running. The
// traces of the newest `max_traced_jobs` jobs are kept.
// Thread-safety: OnStatus from one thread (the event loop); Current() from any thread.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <mutex>

#include "coordinator/job_trace.h"
#include "coordinator/status_observer.h"
#include "strads.pb.h"

namespace strads {

struct DashboardSnapshot {
  proto::StatusReply status;
  std::map<uint64_t, std::shared_ptr<const JobTrace>> traces;  // by job id
};

class DashboardState final : public StatusObserver {
 public:
  explicit DashboardState(size_t max_traced_jobs = 256, size_t max_points_per_job = 4096);

  void OnStatus(const proto::StatusReply& status) override;

  // The last published snapshot (an empty one before the first OnStatus). Never null.
  std::shared_ptr<const DashboardSnapshot> Current() const;

 private:
  const size_t max_traced_jobs_;
  const size_t max_points_;
  // Event loop only: traces of jobs that have not finished, and every kept trace as published.
  std::map<uint64_t, JobTrace> growing_;
  std::map<uint64_t, std::shared_ptr<const JobTrace>> published_;

  mutable std::mutex mu_;
  std::shared_ptr<const DashboardSnapshot> current_;  // guarded by mu_
};

}  // namespace strads
