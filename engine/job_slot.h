// JobSlot: the one job a member runs, and the jobs it ended while their loads still run.
//
// A member (scheduler, worker) runs one job (a MemberJob, engine/member_job.h) at a time. Ending a
// job must never block its event loop, but a job whose data load still runs on a background
// thread cannot be destroyed before the thread ends; such a job is retired and destroyed on a
// later Tick() once it is no longer Busy().
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/logging.h"
#include "engine/member_job.h"
#include "strads.pb.h"

namespace strads {

class JobSlot {
 public:
  MemberJob* get() const { return current_.get(); }
  // The current job's id; 0 when there is none.
  uint64_t id() const { return current_ ? current_->id() : 0; }
  bool Polling() const { return current_ && current_->Polling(); }

  // Ends the current job (if any) and makes `job` current.
  void Replace(std::unique_ptr<MemberJob> job, const Logger& log, const std::string& why);

  // Ends the current job, if any; its running load is abandoned.
  void End(const Logger& log, const std::string& why);

  // Polls the current job and destroys retired jobs that are no longer busy.
  void Tick();

  // Delivers a message of the current job (JobEnd ends it); false if `e` is for no job here.
  bool Route(const proto::Envelope& e, const Logger& log);

 private:
  std::unique_ptr<MemberJob> current_;
  std::vector<std::unique_ptr<MemberJob>> retired_;
};

}  // namespace strads
