// EngineJob: what both engines' jobs (DynamicJob, StaticJob) share as the coordinator runs them:
// the members and their ranks, sending (a member a send fails to is unreachable and fails the
// job), JobStart and JobEnd, the load and stall deadlines, the final state, and the flags for
// summary.json. An engine adds its phases and messages on top.
// Thread-compatibility: owned by the coordinator's event loop.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/logging.h"
#include "common/protocol.h"
#include "common/transport.h"
#include "coordinator/job.h"

namespace strads {

class EngineJob : public Job {
 public:
  EngineJob(Transport& transport, uint64_t id, proto::JobSpec spec,
            std::vector<JobMember> schedulers, std::vector<JobMember> workers, Logger log,
            Clock::time_point now, JobDeadlines deadlines, Incarnation incarnation = {});

  // Sends JobStart (spec, rank, the workers' ids and endpoints) to every scheduler and worker.
  void Start(Clock::time_point now) override;
  // Ignores messages once done and from senders that are not members of the job; hands the rest
  // to Handle(), and logs what it does not handle.
  void OnMessage(const proto::Envelope& envelope, Clock::time_point now) final;
  // Fails the job when it has waited longer than the deadline of its phase (Loading(): load_s,
  // else stall_s) for the members Waiting() names.
  void OnTick(Clock::time_point now) override;
  void Cancel(Clock::time_point now) override;
  void Fail(const std::string& cause, Clock::time_point now) override;
  void LoseMember(const std::string& cause, Clock::time_point now,
                  const std::string& suspect = "") override;
  const std::vector<std::string>& suspects() const override { return suspects_; }
  bool lost_member() const override { return lost_member_; }
  uint32_t epoch() const { return incarnation_.epoch; }
  // Messages of another epoch refused so far (stale members fenced off).
  uint64_t fenced() const { return fenced_; }
  bool done() const override { return IsFinal(state_); }
  bool Involves(const std::string& member_id) const override;
  const std::vector<std::string>& unreachable() const override { return unreachable_; }

 protected:
  // An envelope of this job and incarnation from the coordinator.
  proto::Envelope Out(uint64_t round = 0) const;
  // Rank of `sender` among the job's schedulers (role SCHEDULER) or workers; -1 if it is not one.
  int Rank(const std::string& sender, proto::Role role) const;
  // Index of a member in per-member flags: schedulers first, then workers; -1 if not a member.
  int Slot(const std::string& sender) const;
  // Sends to a member; a failure marks it unreachable and fails the job. No-op once done.
  void SendTo(const std::string& to, const proto::Envelope& e, Clock::time_point now);
  // The same for an envelope the job gives up: its bulk arrays go to the wire without a copy
  // (Transport::SendOwned).
  void SendTo(const std::string& to, proto::Envelope&& e, Clock::time_point now);
  void Broadcast(const std::vector<JobMember>& to, const proto::Envelope& e, Clock::time_point now);
  // Copies to all but the last member, which gets `e` itself.
  void Broadcast(const std::vector<JobMember>& to, proto::Envelope&& e, Clock::time_point now);
  // Ends the job: state, JobEnd to every member (best effort), OnFinished().
  void Finish(proto::JobState state, const std::string& error, Clock::time_point now);
  // Job time: seconds since the job first started, over every incarnation.
  double Elapsed(Clock::time_point now) const;
  // Seconds from start to end, 0 while running.
  double Duration() const;
  // Whether the job has result files: it succeeded, or it ended after loading (cancelled or
  // failed: the files it has, marked partial).
  bool HasResults() const;
  // The epoch and the recoveries so far, for Info().
  void AddIncarnation(proto::JobInfo& info) const;
  // summary.json's "state" and "partial" (true unless the job succeeded), "epoch" and
  // "recoveries" (each: cause, when, the progress resumed from and the work done twice).
  void AddOutcome(nlohmann::ordered_json& summary) const;
  // spec.flags() sorted by name, for summary.json.
  nlohmann::ordered_json FlagsJson() const;

  // Engine hooks.
  // The engine named in JobStart: the members build their part of the job for it.
  virtual proto::Engine engine() const = 0;
  // A message from a member of the running job; false if the engine has no use for its kind.
  virtual bool Handle(const proto::Envelope& envelope, Clock::time_point now) = 0;
  virtual bool Loading() const = 0;
  virtual std::string Waiting() const = 0;
  virtual void OnFinished(proto::JobState state, Clock::time_point now) {}

  Transport& transport_;
  const uint64_t id_;
  const proto::JobSpec spec_;
  const std::vector<JobMember> schedulers_;
  const std::vector<JobMember> workers_;
  Logger log_;
  const Clock::time_point started_;
  const JobDeadlines deadlines_;
  const Incarnation incarnation_;
  Clock::time_point last_progress_;  // the last expected message
  std::optional<Clock::time_point> ended_;
  proto::JobState state_ = proto::JOB_LOADING;
  std::string error_;

 private:
  std::map<std::string, int> scheduler_rank_, worker_rank_;
  std::vector<std::string> unreachable_;
  bool ran_ = false;  // ended after loading
  bool lost_member_ = false;
  std::vector<std::string> suspects_;
  uint64_t fenced_ = 0;
};

}  // namespace strads
