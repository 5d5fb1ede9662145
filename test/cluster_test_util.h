// Helpers of the tests that run jobs on an in-process cluster (cli/embedded_cluster.h): settings
// that detect a lost member fast, a linear job's spec, and submitting a job then waiting for its
// end.
// Not thread-safe (tests are single-threaded); every helper REQUIREs on failure.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "apps/linear.pb.h"
#include "cli/client.h"
#include "common/protocol.h"
#include "coordinator/coordinator.h"
#include "test/app_params_edit.h"

namespace strads::testing {

// Heartbeats every 0.1 s, a member lost after 1 s, registration within 5 s.
inline CoordinatorOptions FastOptions() {
  CoordinatorOptions o;
  o.heartbeat_interval_s = 0.1;
  o.heartbeat_timeout_s = 1.0;
  o.register_timeout_s = 5;
  return o;
}

// A linear-model job (`app`: lasso, logistic, svm, ...) of the dynamic engine on `path` at
// `lambda`, as the oracle tests run it: chords of 8 from 16 candidates, rho 0.1, eta 1e-6, a
// tolerance of 1e-9, pipeline depth 1, seed 3, the dynamic schedule, and a bound of 30 s (a run
// that does not converge fails the test, never hangs it).
inline proto::JobSpec BaseSpec(const std::string& app, const std::string& path, double lambda) {
  proto::JobSpec s;
  s.set_app(app);
  s.set_data_path(path);
  EditAppParams<proto::LinearModelSpec>(s, [&](auto& p) { p.set_lambda(lambda); });
  s.mutable_dynamic()->set_chord_size(8);
  s.mutable_dynamic()->set_candidates(16);
  s.mutable_dynamic()->set_rho(0.1);
  s.mutable_dynamic()->set_eta(1e-6);
  s.mutable_dynamic()->set_tolerance(1e-9);
  s.mutable_dynamic()->set_pipeline_depth(1);
  s.set_seed(3);
  s.mutable_dynamic()->set_schedule(proto::SCHEDULE_DYNAMIC);
  s.set_max_seconds(30);
  return s;
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
