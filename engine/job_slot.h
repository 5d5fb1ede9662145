// JobSlot<J>: the one job a member runs, and the jobs it ended while their loads still run.
//
// A member (scheduler, worker) runs one job at a time. Ending a job must never block its event
// loop, but a job whose data load still runs on a background thread cannot be destroyed before the
// thread ends; such a job is retired and destroyed on a later Tick() once its load has finished.
// J provides id(), OnTick(), OnMessage(const proto::Envelope&), Abandon() (forget the load's
// result) and Busy() (a load, abandoned or not, still runs).
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/logging.h"
#include "strads.pb.h"

namespace strads {

template <typename J>
class JobSlot {
 public:
  J* get() const { return current_.get(); }
  uint64_t id() const { return current_ ? current_->id() : 0; }

  // Ends the current job (if any) and makes `job` current.
  void Replace(std::unique_ptr<J> job, const Logger& log, const std::string& why) {
    End(log, why);
    current_ = std::move(job);
  }

  // Ends the current job, if any; its running load is abandoned.
  void End(const Logger& log, const std::string& why) {
    if (!current_) return;
    log->info("job {} ended: {}", current_->id(), why);
    current_->Abandon();
    if (current_->Busy()) retired_.push_back(std::move(current_));
    current_.reset();
  }

  // Polls the current job and destroys retired jobs whose loads have finished.
  void Tick() {
    if (current_) current_->OnTick();
    std::erase_if(retired_, [](auto& job) { return !job->Busy(); });
  }

  // Delivers a message of the current job (JobEnd ends it); false if `e` is for no job here.
  bool Route(const proto::Envelope& e, const Logger& log) {
    if (!current_ || current_->id() != e.job_id()) return false;
    if (e.body_case() == proto::Envelope::kJobEnd) {
      End(log, e.job_end().reason());
    } else {
      current_->OnMessage(e);
    }
    return true;
  }

 private:
  std::unique_ptr<J> current_;
  std::vector<std::unique_ptr<J>> retired_;
};

}  // namespace strads
