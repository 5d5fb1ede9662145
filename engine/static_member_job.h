// StaticMemberJob: what a member's part of a static-engine job knows whatever its role — the
// spec, the app, its rank, the plan (engine/rotation_plan.h) and the peers it sends blocks to —
// for StaticWorkerJob (worker/) and StaticHomeJob (scheduler/).
// Thread-compatibility: used by the member's event loop only.
#pragma once

#include <string>
#include <vector>

#include "engine/member_job.h"
#include "engine/rotation_plan.h"
#include "engine/static_app.h"

namespace strads {

class StaticMemberJob : public MemberJob {
 public:
  // Drops everything once the job has failed here; answers ModelRequest with Output() and
  // StateRequest with SaveState() (both cut by ChunkPieces, engine/static_wire.h), restores
  // StaticRestore's pieces (those it Keeps, from every message of the checkpoint); gives
  // blocks (BlockTransfer) to HandleBlock(); hands the other kinds to Handle() and logs those it
  // does not handle.
  void OnMessage(const proto::Envelope& e) final;

 protected:
  // Connects to every worker of the job but this member (blocks travel to them).
  StaticMemberJob(const MemberContext& context, uint64_t job_id, const proto::JobStart& start,
                  const StaticApp* app);

  // A message of this role's own kinds; false if the role has no use for its kind.
  virtual bool Handle(const proto::Envelope& e) = 0;
  // A block arriving: from its home or the previous holder (workers), back home (schedulers).
  virtual void HandleBlock(const proto::Envelope& e) = 0;
  // Appends this member's part of the result files; an error (e.g. asked while its blocks are
  // away) fails the job.
  virtual Status Output(std::vector<proto::OutputPiece>& pieces) const = 0;
  // Checkpoints: the member's model state (StateRequest), and its part of a checkpoint's
  // pieces (StaticRestore); an error fails the job.
  virtual Status SaveState(std::vector<proto::OutputPiece>& pieces) const = 0;
  virtual Status RestoreState(const StatePieces& pieces) = 0;
  // Whether a piece of a checkpoint coming in is any use to this member's RestoreState.
  virtual bool Keeps(const proto::OutputPiece& piece) const = 0;

  const proto::JobSpec spec_;
  const StaticApp* const app_;
  const uint32_t rank_;
  const uint32_t num_schedulers_;  // >= 1
  const std::vector<std::string> worker_ids_;
  const RotationPlan plan_;
  const uint32_t passes_;  // per iteration, the last being the evaluation pass

 private:
  StatePieces restore_;  // the kept pieces of a checkpoint still coming in (StaticRestore.more)
  uint32_t next_restore_part_ = 0;  // the part expected next
};

}  // namespace strads
