// RegistrationWaiter: waits until the coordinator lists every scheduler and worker a start plan
// expects, each from its host, asking with typed StatusRequests (the reply's Members with their
// Role and host), under one deadline. It stops early when a daemon has exited, and its errors say
// who is missing: "after 30 s the coordinator lists 1/1 schedulers and 0/2 workers; not
// registered: 2 of 2 workers on node1".
//
// No sockets and no clock of its own: the status request, the check for exited daemons, the clock
// and the pause between requests are injected, so tests drive it in one thread.
// Thread-compatibility: one thread.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/cluster_plan.h"
#include "common/status.h"
#include "strads.pb.h"

namespace strads {

class RegistrationWaiter {
 public:
  using Clock = std::chrono::steady_clock;
  // One StatusRequest to the coordinator; Unavailable when it did not answer.
  using AskStatus = std::function<Result<proto::StatusReply>()>;
  // A description of a daemon that has exited ("worker on 127.0.0.1 (pid 12)"), or nullopt.
  using FindExited = std::function<std::optional<std::string>()>;

  struct Outcome {
    Status status;                     // Ok, DeadlineExceeded or FailedPrecondition (exited)
    std::vector<std::string> missing;  // role names still short of their count ("worker")
  };

  RegistrationWaiter(ExpectedMembers expected, std::function<Clock::time_point()> now,
                     std::function<void(std::chrono::milliseconds)> pause,
                     std::chrono::milliseconds interval = std::chrono::milliseconds(200));

  // Asks until every expected member is listed, a daemon exited, or `timeout` has passed.
  Outcome Wait(const AskStatus& ask, const FindExited& exited, std::chrono::seconds timeout) const;

  // "1/1 schedulers and 0/2 workers": listed (alive members) of expected, per role.
  std::string Counts(const proto::StatusReply& reply) const;
  // One entry per role and host short of its count, e.g. "2 of 2 workers on node1".
  std::vector<std::string> Shortfalls(const proto::StatusReply& reply) const;

 private:
  ExpectedMembers expected_;
  std::function<Clock::time_point()> now_;
  std::function<void(std::chrono::milliseconds)> pause_;
  std::chrono::milliseconds interval_;
};

}  // namespace strads
