#include "engine/static_member_job.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/static_wire.h"

namespace strads {

StaticMemberJob::StaticMemberJob(const JobContext& context, const StaticApp* app,
                                 const char* part_name)
    : MemberJob(context),
      spec_(context.start.spec()),
      app_(app),
      rank_(context.start.rank()),
      num_schedulers_(std::max<uint32_t>(1, context.start.num_schedulers())),
      worker_ids_(context.start.worker_ids().begin(), context.start.worker_ids().end()),
      plan_(std::max<uint32_t>(1, context.start.num_workers()),
            std::max<uint32_t>(1, context.start.spec().static_engine().blocks_per_worker())),
      passes_(app->PassesPerIteration(context.start.spec())),
      part_name_(part_name) {
  ConnectPeers(context.start.worker_ids(), context.start.worker_endpoints());
}

void StaticMemberJob::OnMessage(const proto::Envelope& e) {
  if (errors_.failed()) return;
  switch (e.body_case()) {
    case proto::Envelope::kBlockTransfer:
      return HandleBlock(e);
    case proto::Envelope::kModelRequest:
    case proto::Envelope::kStateRequest: {
      const bool state = e.has_state_request();
      std::vector<proto::OutputPiece> pieces;
      if (Status st = Save(state, pieces); !st.ok()) {
        return errors_.Report(st.message());
      }
      auto chunks = ChunkPieces(std::move(pieces));
      for (size_t i = 0; i < chunks.size(); ++i) {
        auto out = OutputEnvelope(transport_.id(), id_, epoch_, std::move(chunks[i]));
        out.mutable_static_output()->set_state(state);
        out.mutable_static_output()->set_more(i + 1 < chunks.size());
        out.mutable_static_output()->set_part(static_cast<uint32_t>(i));
        if (!session_.SendToCoordinator(out).ok()) return;
      }
      return;
    }
    case proto::Envelope::kStaticRestore: {
      // Only this member's part is kept while the messages of the checkpoint come in, in order:
      // part 0 starts a checkpoint, a repeated or out-of-order part is dropped.
      const auto& r = e.static_restore();
      if (r.part() == 0) {
        restore_.Clear();
        next_restore_part_ = 0;
      }
      if (r.part() != next_restore_part_) {
        log_->warn("job {}: dropped part {} of a checkpoint (expected part {})", id_, r.part(),
                   next_restore_part_);
        return;
      }
      ++next_restore_part_;
      for (const auto& piece : r.pieces()) {
        if (!part() || part()->KeepsForRestore(piece)) *restore_.Add() = piece;
      }
      if (r.more()) return;
      next_restore_part_ = UINT32_MAX;  // restored: any repeat of this checkpoint is dropped
      const Status st = Restore(restore_);
      restore_.Clear();
      if (!st.ok()) return errors_.Report("restoring the checkpoint: " + st.message());
      log_->info("job {}: checkpoint restored", id_);
      return;
    }
    default:
      if (!Handle(e)) LogUnexpected(e);
  }
}

Status StaticMemberJob::Save(bool state, std::vector<proto::OutputPiece>& pieces) const {
  const char* what = state ? "state" : "model";
  if (!part()) {
    return Status::FailedPrecondition(
        fmt::format("{} requested before the {} was loaded", what, part_name_));
  }
  if (blocks_away()) {
    return Status::FailedPrecondition(fmt::format("{} requested while blocks are away", what));
  }
  if (state) {
    part()->SaveState(pieces);
  } else {
    part()->Output(pieces);
  }
  return Status::Ok();
}

Status StaticMemberJob::Restore(const StatePieces& pieces) {
  if (!part()) {
    return Status::FailedPrecondition(
        fmt::format("a checkpoint came before the {} was loaded", part_name_));
  }
  return part()->RestoreState(pieces);
}

}  // namespace strads
