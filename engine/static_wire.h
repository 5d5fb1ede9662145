// The static engine's values on the wire: blocks and metrics to and from their protobuf messages,
// shared by the members that send and receive them (worker/static_worker_job.h,
// scheduler/static_home_job.h).
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/protocol.h"
#include "engine/static_app.h"

namespace strads {

inline StaticBlock BlockFromProto(const proto::BlockData& data) {
  StaticBlock block;
  block.id = data.block();
  block.ints.assign(data.ints().begin(), data.ints().end());
  block.doubles.assign(data.doubles().begin(), data.doubles().end());
  return block;
}

// A BlockTransfer of `block` for (iteration, pass), to the member that works on it in
// `sub_round` (sub_rounds of the plan: its home).
inline proto::Envelope BlockTransferEnvelope(const std::string& sender, uint64_t job_id,
                                             uint32_t epoch, uint64_t iteration, uint32_t pass,
                                             uint32_t sub_round, const StaticBlock& block) {
  auto e = MakeEnvelope(sender, job_id);
  e.set_epoch(epoch);
  auto* t = e.mutable_block_transfer();
  t->set_iteration(iteration);
  t->set_pass(pass);
  t->set_sub_round(sub_round);
  auto* data = t->mutable_block();
  data->set_block(block.id);
  data->mutable_ints()->Assign(block.ints.begin(), block.ints.end());
  data->mutable_doubles()->Assign(block.doubles.begin(), block.doubles.end());
  return e;
}

inline void MetricsToProto(const std::map<std::string, double>& metrics,
                           google::protobuf::Map<std::string, double>* out) {
  for (const auto& [name, value] : metrics) (*out)[name] = value;
}

// Pieces travel in messages of at most about this many bytes (members' replies to ModelRequest
// and StateRequest, the coordinator's StaticRestore), far below the transports' inbound limit
// (256 MB), so a large model or checkpoint (LDA: a topic per token) crosses in several messages.
// A single piece is never cut: LDA's checkpoint pieces stay below it (kStatePieceInts); MF's
// pieces and the result pieces (one per shard) are not cut yet, and a member whose one piece
// exceeds the transport's limit cannot send it.
inline constexpr size_t kStaticChunkBytes = size_t{32} << 20;

// `pieces` in order, grouped so that each group's pieces add up to at most `max_bytes` (a larger
// piece alone); always at least one group, possibly empty.
template <typename Pieces>
std::vector<std::vector<proto::OutputPiece>> ChunkPieces(Pieces&& pieces,
                                                         size_t max_bytes = kStaticChunkBytes) {
  std::vector<std::vector<proto::OutputPiece>> groups(1);
  size_t bytes = 0;
  for (auto& piece : pieces) {
    const size_t size = piece.ByteSizeLong();
    if (!groups.back().empty() && bytes + size > max_bytes) {
      groups.emplace_back();
      bytes = 0;
    }
    bytes += size;
    if constexpr (std::is_rvalue_reference_v<Pieces&&>) {
      groups.back().push_back(std::move(piece));
    } else {
      groups.back().push_back(piece);
    }
  }
  return groups;
}

// A member's part of the outputs, the reply to ModelRequest.
inline proto::Envelope OutputEnvelope(const std::string& sender, uint64_t job_id, uint32_t epoch,
                                      std::vector<proto::OutputPiece> pieces) {
  auto e = MakeEnvelope(sender, job_id);
  e.set_epoch(epoch);
  auto* output = e.mutable_static_output();  // set even when there are no pieces
  for (auto& piece : pieces) *output->add_pieces() = std::move(piece);
  return e;
}

}  // namespace strads
