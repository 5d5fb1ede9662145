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
  // Drops everything once the job has failed here; answers ModelRequest with its part's Output()
  // and StateRequest with its SaveState() (both cut by ChunkPieces, engine/static_wire.h),
  // restores StaticRestore's pieces (those its part keeps, from every message of the
  // checkpoint); gives blocks (BlockTransfer) to HandleBlock(); hands the other kinds to Handle()
  // and logs those it does not handle. A request or a checkpoint before the part is loaded, or
  // while blocks are away, fails the job.
  void OnMessage(const proto::Envelope& e) final;

 protected:
  // Connects to every worker of the job but this member (blocks travel to them). `part_name`
  // names its part of the model in errors ("shard", "home").
  StaticMemberJob(const JobContext& context, const StaticApp* app, const char* part_name);

  // A message of this role's own kinds; false if the role has no use for its kind.
  virtual bool Handle(const proto::Envelope& e) = 0;
  // A block arriving: from its home or the previous holder (workers), back home (schedulers).
  virtual void HandleBlock(const proto::Envelope& e) = 0;
  // This member's part of the model (StaticShard, StaticHome); null until it is loaded.
  virtual StaticPart* part() const = 0;
  // True while blocks of this member's are away (its part is then not whole).
  virtual bool blocks_away() const { return false; }

  const proto::JobSpec spec_;
  const StaticApp* const app_;
  const uint32_t rank_;
  const uint32_t num_schedulers_;  // >= 1
  const std::vector<std::string> worker_ids_;
  const RotationPlan plan_;
  const uint32_t passes_;  // per iteration, the last being the evaluation pass

 private:
  // The part's result files (ModelRequest) or model state (StateRequest, `state`).
  Status Save(bool state, std::vector<proto::OutputPiece>& pieces) const;
  // Restores the checkpoint whose pieces were kept.
  Status Restore(const StatePieces& pieces);

  const char* const part_name_;
  StatePieces restore_;  // the kept pieces of a checkpoint still coming in (StaticRestore.more)
  uint32_t next_restore_part_ = 0;  // the part expected next
};

}  // namespace strads
