#include "coordinator/dashboard_state.h"

#include <utility>

#include "common/protocol.h"

namespace strads {

DashboardState::DashboardState(size_t max_traced_jobs, size_t max_points_per_job)
    : max_traced_jobs_(max_traced_jobs),
      max_points_(max_points_per_job),
      current_(std::make_shared<const DashboardSnapshot>()) {}

void DashboardState::OnStatus(const proto::StatusReply& status) {
  for (const proto::JobInfo& job : status.jobs()) {
    const uint64_t id = job.job_id();
    auto growing = growing_.find(id);
    if (growing == growing_.end()) {
      if (published_.count(id)) continue;  // finished: its trace is frozen
      if (!published_.empty() && id < published_.begin()->first &&
          published_.size() >= max_traced_jobs_) {
        continue;  // older than every kept trace: it was dropped
      }
      growing = growing_.emplace(id, JobTrace(max_points_)).first;
    }
    auto& kept = published_[id];
    if (growing->second.Add(job) || !kept) kept = std::make_shared<const JobTrace>(growing->second);
    if (IsFinal(job.state())) growing_.erase(growing);
  }
  while (published_.size() > max_traced_jobs_) {
    growing_.erase(published_.begin()->first);
    published_.erase(published_.begin());
  }
  auto snapshot = std::make_shared<DashboardSnapshot>();
  snapshot->status = status;
  snapshot->traces = published_;
  std::lock_guard<std::mutex> lock(mu_);
  current_ = std::move(snapshot);
}

std::shared_ptr<const DashboardSnapshot> DashboardState::Current() const {
  std::lock_guard<std::mutex> lock(mu_);
  return current_;
}

}  // namespace strads
