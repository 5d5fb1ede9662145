// BackgroundLoad<T>: a member's data load on its own thread, so the event loop keeps answering
// (heartbeats, cancels) while a large file is read; Execution, where such work runs; and
// BackgroundWork, the loads of one owner (a member's job) taken together.
//
// At most one load is current. Abandon() (the job ended first) tells the load to stop (the
// readers end at their next buffer refill with a Cancelled error; common/load_cancellation.h) and
// keeps it alive until its thread finishes, so nothing blocks the event loop; the destructor
// waits for every load still running. Thread-compatibility: used by the owning event loop only; the
// load function runs on its own thread and must not touch the owner's state.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/load_cancellation.h"
#include "common/status.h"

namespace strads {

// Where a member's background work (a job's data load, a static sub-round) runs. A daemon runs it
// on threads of its own, so its event loop keeps answering meanwhile. Unit tests run it inline:
// the work is done, on the caller's thread, when the call that started it returns, so a test sees
// every consequence of a message at once and "nothing was sent" is a fact, not a timeout.
enum class Execution { kThreads, kInline };

// Runs `fn()` as `execution` says and returns its future: ready on return when inline. An
// exception `fn` throws is stored in the future either way, as std::async stores it.
template <typename Fn>
std::future<std::invoke_result_t<Fn>> Launch(Execution execution, Fn&& fn) {
  if (execution == Execution::kThreads) return std::async(std::launch::async, std::forward<Fn>(fn));
  std::packaged_task<std::invoke_result_t<Fn>()> task(std::forward<Fn>(fn));
  auto result = task.get_future();
  task();
  return result;
}

// What an owner asks of each of its loads, whatever they produce (BackgroundLoad<T> below).
class LoadHandle {
 public:
  virtual void Abandon() = 0;
  virtual bool Busy() = 0;
  virtual bool fresh() const = 0;

 protected:
  ~LoadHandle() = default;
};

// The loads of one owner, which it abandons, polls for freshness and waits for as one, and where
// they run. Each load joins on construction (BackgroundLoad(BackgroundWork&)) and must outlive
// every call here: an owner declares its work first and its loads after it.
class BackgroundWork {
 public:
  explicit BackgroundWork(Execution execution = Execution::kThreads) : execution_(execution) {}
  BackgroundWork(const BackgroundWork&) = delete;
  BackgroundWork& operator=(const BackgroundWork&) = delete;

  Execution execution() const { return execution_; }
  void Join(LoadHandle* load) { loads_.push_back(load); }
  // Every load's result is no longer wanted (BackgroundLoad::Abandon).
  void Abandon() {
    for (LoadHandle* load : loads_) load->Abandon();
  }
  // True while any load, current or abandoned, still runs.
  bool Busy() {
    bool busy = false;
    for (LoadHandle* load : loads_) busy = load->Busy() || busy;  // each forgets its finished ones
    return busy;
  }
  // True while any load is fresh (BackgroundLoad::fresh).
  bool fresh() const {
    return std::any_of(loads_.begin(), loads_.end(),
                       [](const LoadHandle* l) { return l->fresh(); });
  }

 private:
  Execution execution_;
  std::vector<LoadHandle*> loads_;
};

template <typename T>
class BackgroundLoad final : public LoadHandle {
 public:
  explicit BackgroundLoad(Execution execution = Execution::kThreads) : execution_(execution) {}
  // A load of `owner`'s, run as it says.
  explicit BackgroundLoad(BackgroundWork& owner) : execution_(owner.execution()) {
    owner.Join(this);
  }
  BackgroundLoad(const BackgroundLoad&) = delete;
  BackgroundLoad& operator=(const BackgroundLoad&) = delete;
  ~BackgroundLoad() {
    if (current_.valid()) current_.wait();
    for (auto& f : abandoned_) f.wait();
  }

  // Starts `fn(args...)` (returning Result<T>) on a new thread, or runs it now when inline.
  // REQUIRES: !running().
  template <typename Fn, typename... Args>
  void Start(Fn&& fn, Args&&... args) {
    flag_ = std::make_shared<std::atomic<bool>>(false);
    started_ = std::chrono::steady_clock::now();
    current_ = Launch(execution_, [flag = CancelFlag(flag_),
                                   task = std::bind_front(std::forward<Fn>(fn),
                                                          std::forward<Args>(args)...)]() mutable {
      ScopedLoadCancellation scope(flag);
      // The arguments are the task's own copies, used once: moved, not copied again.
      return std::move(task)();
    });
  }

  bool running() const { return current_.valid(); }

  // A load running for less than kFresh: its owner asks its event loop to tick every
  // millisecond (MemberJob::Polling), so a small load's end is seen at once, not at the next
  // 50 ms tick (a small job's start: ~97 -> ~25 ms on the diabetes data as daemons). Not longer:
  // three daemons ticking every millisecond through the paper shape's 9 s load on 2 cores
  // slowed it by ~2 s; after kFresh a load's end is seen at most a tick late.
  static constexpr std::chrono::milliseconds kFresh{200};
  bool fresh() const override {
    return running() && std::chrono::steady_clock::now() - started_ < kFresh;
  }

  // The result once the current load has finished (then no load is current); nullopt while it
  // runs or when none was started. An exception thrown by the load (e.g. bad_alloc for a header
  // that declares billions of rows) is its error. Also forgets abandoned loads that have finished.
  std::optional<Result<T>> Poll() {
    std::erase_if(abandoned_, [](auto& f) { return Ready(f); });
    if (!current_.valid() || !Ready(current_)) return std::nullopt;
    // Rethrown into the event loop, the exception would only be logged there, and the job would
    // wait for an answer that never comes.
    try {
      return current_.get();
    } catch (const std::exception& e) {
      return Result<T>(Status::Internal(std::string("the load failed: ") + e.what()));
    }
  }

  // True while any load (current or abandoned) is still running; forgets finished abandoned ones.
  bool Busy() override {
    std::erase_if(abandoned_, [](auto& f) { return Ready(f); });
    return current_.valid() || !abandoned_.empty();
  }
  // Forgets the current load (its result is no longer wanted).
  void Abandon() override {
    if (flag_) flag_->store(true);
    if (current_.valid()) abandoned_.push_back(std::move(current_));
  }

 private:
  static bool Ready(std::future<Result<T>>& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  }

  Execution execution_;
  std::shared_ptr<std::atomic<bool>> flag_;        // the current load's
  std::chrono::steady_clock::time_point started_;  // the current load's
  std::future<Result<T>> current_;
  std::vector<std::future<Result<T>>> abandoned_;
};

}  // namespace strads
