// Admission: whether the job at the head of the queue starts now, waits for members, or fails,
// and how many members it takes. A pure decision over counts and times, so every rule is
// unit-tested without a coordinator (test/admission_test.cc); Coordinator::StartHead acts on it.
//
// The rules:
//  - A job takes the schedulers and workers its spec asks for; one that asks for none takes
//    every available member, and, until the cluster has once been as large as the launcher
//    announced, waits for the announced counts (so the first jobs do not start on whoever
//    happened to register first).
//  - A recovering job waits for as many members as its last run had, for up to its
//    recovery_wait_s; then it is re-planned over the members there are (at least one of each).
//  - A job that cannot get its members within the registration timeout (counted from when it
//    first reached the head of the queue with nothing running) fails, naming what is missing.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace strads {

struct AdmissionInput {
  uint32_t asked_schedulers = 0;  // the spec's; 0 = every available one
  uint32_t asked_workers = 0;
  uint32_t announced_schedulers = 0;  // the launcher's counts; 0 once the cluster reached them
  uint32_t announced_workers = 0;
  size_t available_schedulers = 0;  // idle and alive now
  size_t available_workers = 0;
  bool recovering = false;
  uint32_t last_schedulers = 0;  // recovering: the members of its last run
  uint32_t last_workers = 0;
  double recovery_wait_s = 0;
  double waited_s = 0;  // since it reached the head of the queue with nothing running
  double register_timeout_s = 0;
};

struct Admission {
  enum class Decision { kWait, kStart, kFail };
  Decision decision = Decision::kWait;
  // kStart: how many of the available members it takes; kWait and kFail: how many it needs.
  size_t schedulers = 0;
  size_t workers = 0;
  // kStart: a recovering job re-planned over fewer members than its last run had.
  bool replanned = false;
};

Admission Admit(const AdmissionInput& in);

// The cause of a kFail: the timeout, what it needs, who is available (`*_names`, the ids of the
// available members) and how many never registered.
std::string AdmissionFailure(const AdmissionInput& in, const Admission& admission,
                             const std::vector<std::string>& scheduler_names,
                             const std::vector<std::string>& worker_names);

}  // namespace strads
