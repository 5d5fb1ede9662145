#include "coordinator/check_tally.h"

#include <algorithm>

namespace strads {

void CheckTally::Begin(size_t workers, size_t schedulers, double loss) {
  *this = CheckTally();
  workers_.assign(workers, 0);
  schedulers_.assign(schedulers, 0);
  loss_ = loss;
}

bool CheckTally::AddWorker(size_t rank, const proto::LossReport& report) {
  if (rank >= workers_.size() || workers_[rank]) return false;
  workers_[rank] = 1;
  ++worker_reports_;
  for (const auto& [name, value] : report.metrics()) metrics_[name] += value;
  return true;
}

bool CheckTally::AddScheduler(size_t rank, const proto::CheckReport& report) {
  if (rank >= schedulers_.size() || schedulers_[rank]) return false;
  schedulers_[rank] = 1;
  ++scheduler_reports_;
  penalty_ += report.penalty();
  max_violation_ = std::max(max_violation_, report.max_violation());
  max_abs_gradient_ = std::max(max_abs_gradient_, report.max_abs_gradient());
  nonzeros_ += report.nonzeros();
  return true;
}

}  // namespace strads
