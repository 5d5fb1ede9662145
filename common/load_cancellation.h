// Load cancellation: a data load that nobody waits for any more stops early.
//
// A member loads a job's data on a background thread (common/background_load.h). When the job
// ends first (cancelled, failed, replaced), BackgroundLoad::Abandon raises the load's flag; the
// readers see it through LoadCancelled() at every refill of their buffer (common/line_reader.h,
// every 4 MB) and end with a Cancelled error, so a cancel stops a long load within milliseconds
// instead of letting it run to the end.
// The flag of the load running on a thread is that thread's (a ScopedLoadCancellation installs
// it), so the readers need no extra parameter. A thread without one is never cancelled.
// Thread-safety: the flag is atomic; ScopedLoadCancellation is per thread.
#pragma once

#include <atomic>
#include <memory>

namespace strads {

using CancelFlag = std::shared_ptr<const std::atomic<bool>>;

// True when the load running on this thread was abandoned.
bool LoadCancelled();

// Makes `flag` this thread's load flag until destroyed (the previous one is restored).
class ScopedLoadCancellation {
 public:
  explicit ScopedLoadCancellation(CancelFlag flag);
  ~ScopedLoadCancellation();
  ScopedLoadCancellation(const ScopedLoadCancellation&) = delete;
  ScopedLoadCancellation& operator=(const ScopedLoadCancellation&) = delete;

 private:
  CancelFlag flag_;
  const std::atomic<bool>* previous_;
};

}  // namespace strads
