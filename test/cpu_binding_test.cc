#include "common/cpu_binding.h"

#include <sched.h>

#include <thread>
#include <vector>

#include <catch2/catch.hpp>

namespace strads {
namespace {

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  REQUIRE(sched_getaffinity(0, sizeof(set), &set) == 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

TEST_CASE("ChooseCpu takes the index-th allowed CPU, wrapping around the allowed set", "[cpu]") {
  const std::vector<int> allowed = {2, 5, 7};  // e.g. a container's cpuset
  CHECK(ChooseCpu(allowed, 0) == 2);
  CHECK(ChooseCpu(allowed, 1) == 5);
  CHECK(ChooseCpu(allowed, 2) == 7);
  CHECK(ChooseCpu(allowed, 3) == 2);
  CHECK(ChooseCpu(allowed, 7) == 5);
  const std::vector<int> one = {0};
  CHECK(ChooseCpu(one, 4) == 0);
}

TEST_CASE("BindToCpu binds the calling thread and the threads it starts to one allowed CPU",
          "[cpu]") {
  const std::vector<int> before = AllowedCpus();
  REQUIRE(!before.empty());
  // In a thread of its own, so the test process stays as it was.
  Result<CpuBinding> bound = Status::Internal("not run");
  std::vector<int> after, child;
  std::thread t([&] {
    bound = BindToCpu(static_cast<int>(before.size()) + 1);  // wraps to the second allowed CPU
    after = AllowedCpus();
    std::thread([&] { child = AllowedCpus(); }).join();
  });
  t.join();
  REQUIRE(bound.ok());
  CHECK(bound->cpu == before[1 % before.size()]);
  CHECK(bound->allowed == static_cast<int>(before.size()));
  CHECK(after == std::vector<int>{bound->cpu});
  CHECK(child == std::vector<int>{bound->cpu});
  CHECK(AllowedCpus() == before);
}

TEST_CASE("BindToCpu refuses a negative index", "[cpu]") {
  auto bound = BindToCpu(-1);
  REQUIRE(!bound.ok());
  CHECK(bound.status().code() == StatusCode::kInvalidArgument);
  CHECK_THAT(bound.status().message(), Catch::Contains("--cpu"));
}

}  // namespace
}  // namespace strads
