// Helpers of the tests that run jobs on an in-process cluster (cli/embedded_cluster.h): settings
// that detect a lost member fast, and submitting a job then waiting for its end.
// Not thread-safe (tests are single-threaded); every helper REQUIREs on failure.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "cli/client.h"
#include "common/protocol.h"
#include "coordinator/coordinator.h"

namespace strads::testing {

// Heartbeats every 0.1 s, a member lost after 1 s, registration within 5 s.
inline CoordinatorOptions FastOptions() {
  CoordinatorOptions o;
  o.heartbeat_interval_s = 0.1;
  o.heartbeat_timeout_s = 1.0;
  o.register_timeout_s = 5;
  return o;
}

// Submits `spec` through `client`, whose transport is named `client_id`; returns the job id.
inline uint64_t SubmitJob(Client& client, const std::string& client_id,
                          const proto::JobSpec& spec) {
  auto req = MakeEnvelope(client_id);
  *req.mutable_submit()->mutable_spec() = spec;
  auto reply = client.Call(req);
  REQUIRE(reply.ok());
  return reply->submit_reply().job_id();
}

// Waits for job `id` to end (whatever its state) and returns its last JobInfo.
inline proto::JobInfo WaitForJob(Client& client, uint64_t id) {
  std::atomic<bool> never{false};
  auto info = client.Wait(id, never, /*quiet=*/true);
  REQUIRE(info.ok());
  return *info;
}

}  // namespace strads::testing
