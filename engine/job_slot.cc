#include "engine/job_slot.h"

namespace strads {

void JobSlot::Replace(std::unique_ptr<MemberJob> job, const Logger& log, const std::string& why) {
  End(log, why);
  current_ = std::move(job);
}

void JobSlot::End(const Logger& log, const std::string& why) {
  if (!current_) return;
  log->info("job {} ended: {}", current_->id(), why);
  current_->Abandon();
  if (current_->Busy()) retired_.push_back(std::move(current_));
  current_.reset();
}

void JobSlot::Tick() {
  if (current_) current_->OnTick();
  std::erase_if(retired_, [](auto& job) { return !job->Busy(); });
}

bool JobSlot::Route(const proto::Envelope& e, const Logger& log) {
  if (!current_ || current_->id() != e.job_id()) return false;
  if (current_->epoch() != e.epoch()) {
    // A message of an earlier (or later) incarnation of the job: stale, never applied.
    log->warn("job {}: refused {} from {} of epoch {} (running epoch {})", e.job_id(), BodyName(e),
              e.sender(), e.epoch(), current_->epoch());
    return true;
  }
  if (e.body_case() == proto::Envelope::kJobEnd) {
    End(log, e.job_end().reason());
  } else {
    current_->OnMessage(e);
  }
  return true;
}

}  // namespace strads
