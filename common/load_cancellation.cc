#include "common/load_cancellation.h"

namespace strads {
namespace {

thread_local const std::atomic<bool>* current_flag = nullptr;

}  // namespace

bool LoadCancelled() {
  return current_flag != nullptr && current_flag->load(std::memory_order_relaxed);
}

ScopedLoadCancellation::ScopedLoadCancellation(CancelFlag flag)
    : flag_(std::move(flag)), previous_(current_flag) {
  current_flag = flag_.get();
}

ScopedLoadCancellation::~ScopedLoadCancellation() { current_flag = previous_; }

}  // namespace strads
