// JobTrace: one job's progress over time as the dashboard plots it, sampled from the JobInfo
// snapshots the coordinator publishes (a few per second while the job runs).
//
// A point holds the job's seconds, rounds (static: sub-rounds), updates (static: its app's work
// units), objective (static: its app's objective, e.g. the log-likelihood per token; absent until
// the first evaluation) and, for static jobs, each worker's compute seconds in the last
// sub-round, so the load imbalance can be followed. A snapshot equal to the last point in
// everything but time adds nothing. The trace holds at most `max_points`: when full, every other
// point is dropped (the first and the newest are kept), so a long job keeps its whole shape at a
// coarser grain. trace.csv (the job's result file) stays the exact record of evaluations.
// Thread-compatibility: a value type.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "strads.pb.h"

namespace strads {

class JobTrace {
 public:
  struct Point {
    double seconds = 0;
    uint64_t round = 0;
    uint64_t updates = 0;
    std::optional<double> objective;
    std::vector<double> worker_seconds;  // static jobs
  };

  // REQUIRES: max_points >= 2.
  explicit JobTrace(size_t max_points = 4096);

  // Samples `job` if it has started running (loading and queued jobs have no progress yet);
  // true if that added a point.
  bool Add(const proto::JobInfo& job);

  const std::vector<Point>& points() const { return points_; }

  // The trace as columns: {"seconds": [...], "round": [...], "updates": [...], "objective":
  // [... or null], "worker_seconds": [[...], ...]} (worker_seconds only for static jobs).
  nlohmann::ordered_json Json() const;

 private:
  size_t max_points_;
  bool static_engine_ = false;
  std::vector<Point> points_;
};

}  // namespace strads
