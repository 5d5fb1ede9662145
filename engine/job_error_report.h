// JobErrorReport: how a member reports that its part of a job failed.
//
// The first failure goes to the coordinator as a Ready with the error (the coordinator then fails
// the job, naming the member and the cause); the member then ignores the job's further messages
// (failed()) and only logs later failures. A job that reads its files by the paths of descriptors
// the member opened beneath its data roots (common/data_roots.h) reports them by the paths the job
// named. Thread-compatibility: the member's event loop only.
#pragma once

#include <string>

#include <memory>

#include "common/data_roots.h"
#include "common/logging.h"
#include "common/member_session.h"
#include "common/protocol.h"
#include "common/wire_text.h"

namespace strads {

class JobErrorReport {
 public:
  // `files` (may be null): the job's files opened beneath the data roots.
  JobErrorReport(MemberSession& session, std::string sender, uint64_t job_id, uint32_t epoch,
                 Logger log, std::shared_ptr<const OpenedFiles> files = nullptr)
      : session_(session),
        sender_(std::move(sender)),
        job_id_(job_id),
        epoch_(epoch),
        log_(std::move(log)),
        files_(std::move(files)) {}

  void Report(const std::string& what) { Send(what, ""); }
  // The failure is that `peer` (a member of the job) could not be reached: the coordinator
  // treats it as the loss of a member, which the job may recover from.
  void ReportLostPeer(const std::string& peer, const std::string& what) { Send(what, peer); }
  bool failed() const { return failed_; }

 private:
  void Send(const std::string& text, const std::string& peer) {
    const std::string what = files_ ? files_->Unalias(text) : text;
    log_->error("job {}: {}", job_id_, what);
    if (failed_) return;
    failed_ = true;
    auto e = MakeEnvelope(sender_, job_id_);
    e.set_epoch(epoch_);
    e.mutable_job_failed()->set_error(WireText(what));
    e.mutable_job_failed()->set_lost_peer(peer);
    (void)session_.SendToCoordinator(e);
  }

  MemberSession& session_;
  std::string sender_;
  uint64_t job_id_;
  uint32_t epoch_;
  Logger log_;
  std::shared_ptr<const OpenedFiles> files_;
  bool failed_ = false;
};

}  // namespace strads
