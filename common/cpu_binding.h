// Binding a daemon to one CPU of its machine.
//
// Several workers on one machine (loopback clusters, or hosts with a worker per core) are placed
// by the OS, which at times runs two of them on one core while another core serves a daemon that
// is idle between rounds: a round then waits for the slower share (on 20,000 x 20,000 L1-LR as a
// 1 x 2 loopback cluster on 2 cores, one worker received its chord >= 0.5 ms after the other in a
// quarter of the rounds, and workers bound to their own cores reached 1e-3 8 % sooner;
// docs/performance.md). strads-cluster therefore gives each worker of a host with several its
// index there (--cpu), and the worker binds itself to the CPU of that index among the CPUs it may
// run on (its cpuset, e.g. a container's), as `mpirun --bind-to core` does.
// ChooseCpu is pure; BindToCpu changes the calling thread and the threads it starts afterwards.
#pragma once

#include <span>

#include "common/status.h"

namespace strads {

// The CPU for binding index `index` among `allowed` (the CPUs the process may run on, in
// ascending order): the (index mod allowed.size())-th. REQUIRES: !allowed.empty(), index >= 0.
int ChooseCpu(std::span<const int> allowed, int index);

struct CpuBinding {
  int cpu = 0;      // the CPU bound to
  int allowed = 0;  // how many CPUs the process could run on (index >= allowed wrapped around)
};

// Binds the calling thread, and every thread it creates from now on (call it before any other
// thread is started), to ChooseCpu(the CPUs this process may run on, index).
// Errors: InvalidArgument for index < 0; Internal naming the system call that failed.
// A CPU, not a core: where a core runs two hardware threads, CPUs 0 and 1 may share one core.
Result<CpuBinding> BindToCpu(int index);

}  // namespace strads
