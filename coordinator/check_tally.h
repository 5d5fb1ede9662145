// CheckTally: the answers to one optimality check of a dynamic job, summed as they come.
//
// A check asks every worker for its gradient slices (to the schedulers) and a LossReport (its
// metrics), and every scheduler for a CheckReport of its partition. The loss is the coordinator's
// own replica's, given at the start. The tally counts each member once, and once every worker and
// every scheduler has answered it gives the check's figures: the objective (the replica's loss
// plus the schedulers' penalties), the largest violation and gradient, the nonzero parameters and
// the workers' summed metrics.
// Thread-compatibility: a value type.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "coordinator/answer_set.h"
#include "strads.pb.h"

namespace strads {

class CheckTally {
 public:
  // A new check of `workers` workers and `schedulers` schedulers, whose loss is `loss`.
  void Begin(size_t workers, size_t schedulers, double loss);

  // Worker `rank`'s report; false (and nothing counted) for a rank out of range or repeated.
  bool AddWorker(size_t rank, const proto::LossReport& report);
  // Scheduler `rank`'s report; false (and nothing counted) for a rank out of range or repeated.
  bool AddScheduler(size_t rank, const proto::CheckReport& report);

  bool workers_done() const { return workers_.complete(); }
  bool complete() const { return workers_.complete() && schedulers_.complete(); }
  bool answered_worker(size_t rank) const { return workers_.Has(rank); }
  bool answered_scheduler(size_t rank) const { return schedulers_.Has(rank); }

  double loss() const { return loss_; }
  double penalty() const { return penalty_; }
  double objective() const { return loss_ + penalty_; }
  double max_violation() const { return max_violation_; }
  double max_abs_gradient() const { return max_abs_gradient_; }
  uint64_t nonzeros() const { return nonzeros_; }
  const std::map<std::string, double>& metrics() const { return metrics_; }

 private:
  AnswerSet workers_, schedulers_;  // by rank
  double loss_ = 0, penalty_ = 0, max_violation_ = 0, max_abs_gradient_ = 0;
  uint64_t nonzeros_ = 0;
  std::map<std::string, double> metrics_;  // summed over the workers
};

}  // namespace strads
