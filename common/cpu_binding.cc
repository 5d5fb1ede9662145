#include "common/cpu_binding.h"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace strads {

int ChooseCpu(std::span<const int> allowed, int index) {
  return allowed[static_cast<size_t>(index) % allowed.size()];
}

Result<CpuBinding> BindToCpu(int index) {
  if (index < 0) return Status::InvalidArgument("--cpu must be >= 0, got " + std::to_string(index));
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) {
    return Status::Internal(std::string("sched_getaffinity: ") + std::strerror(errno));
  }
  std::vector<int> allowed;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) allowed.push_back(cpu);
  }
  if (allowed.empty()) return Status::Internal("sched_getaffinity: no CPU allowed");
  const int cpu = ChooseCpu(allowed, index);
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return Status::Internal("sched_setaffinity(CPU " + std::to_string(cpu) +
                            "): " + std::strerror(errno));
  }
  return CpuBinding{cpu, static_cast<int>(allowed.size())};
}

}  // namespace strads
