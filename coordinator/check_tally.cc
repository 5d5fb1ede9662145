#include "coordinator/check_tally.h"

#include <algorithm>

namespace strads {

void CheckTally::Begin(size_t workers, size_t schedulers, double loss) {
  *this = CheckTally();
  workers_.Reset(workers);
  schedulers_.Reset(schedulers);
  loss_ = loss;
}

bool CheckTally::AddWorker(size_t rank, const proto::LossReport& report) {
  if (!workers_.Take(rank)) return false;
  for (const auto& [name, value] : report.metrics()) metrics_[name] += value;
  return true;
}

bool CheckTally::AddScheduler(size_t rank, const proto::CheckReport& report) {
  if (!schedulers_.Take(rank)) return false;
  penalty_ += report.penalty();
  max_violation_ = std::max(max_violation_, report.max_violation());
  max_abs_gradient_ = std::max(max_abs_gradient_, report.max_abs_gradient());
  nonzeros_ += report.nonzeros();
  return true;
}

}  // namespace strads
