// Test support for in-process clusters: wait for a condition another thread makes true (e.g. a
// member's fault-injecting transport holding a message), with a hard deadline, instead of
// sleeping for a fixed time and hoping the cluster got there.
#pragma once

#include <chrono>
#include <thread>

namespace strads::testing {

// Polls `condition` every millisecond until it holds (true) or `deadline` has passed (false).
template <typename Condition>
bool WaitUntil(Condition condition, std::chrono::milliseconds deadline = std::chrono::seconds(30)) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  while (!condition()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace strads::testing
