#include "coordinator/job_trace.h"

#include "coordinator/status_json.h"

namespace strads {

JobTrace::JobTrace(size_t max_points) : max_points_(max_points < 2 ? 2 : max_points) {}

bool JobTrace::Add(const proto::JobInfo& job) {
  if (job.state() == proto::JOB_QUEUED || job.state() == proto::JOB_LOADING) return false;
  static_engine_ = IsStaticJob(job);
  Point p;
  p.seconds = job.seconds();
  p.round = job.round();
  p.updates = job.updates();
  // A static job reports 0 until its first evaluation pass (iteration 0) has ended.
  if (!static_engine_ || job.objective() != 0 || job.iteration() > 0) p.objective = job.objective();
  p.worker_seconds.assign(job.worker_seconds().begin(), job.worker_seconds().end());
  if (!points_.empty()) {
    const Point& last = points_.back();
    if (last.round == p.round && last.updates == p.updates && last.objective == p.objective &&
        last.worker_seconds == p.worker_seconds) {
      return false;
    }
  }
  if (points_.size() == max_points_) {
    // Keep the even-indexed points; the newest is appended next.
    size_t kept = 0;
    for (size_t i = 0; i < points_.size(); i += 2) points_[kept++] = std::move(points_[i]);
    points_.resize(kept);
  }
  points_.push_back(std::move(p));
  return true;
}

nlohmann::ordered_json JobTrace::Json() const {
  using json = nlohmann::ordered_json;
  json seconds = json::array(), round = json::array(), updates = json::array(),
       objective = json::array(), workers = json::array();
  for (const Point& p : points_) {
    seconds.push_back(p.seconds);
    round.push_back(p.round);
    updates.push_back(p.updates);
    objective.push_back(p.objective ? json(*p.objective) : json(nullptr));
    workers.push_back(p.worker_seconds);
  }
  json out = {{"seconds", std::move(seconds)},
              {"round", std::move(round)},
              {"updates", std::move(updates)},
              {"objective", std::move(objective)}};
  if (static_engine_) out["worker_seconds"] = std::move(workers);
  return out;
}

}  // namespace strads
