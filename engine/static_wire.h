// The static engine's values on the wire: blocks and metrics to and from their protobuf messages,
// shared by the members that send and receive them (worker/static_worker_job.h,
// scheduler/static_home_job.h).
// Thread-safety: pure functions.
#pragma once

#include <map>
#include <string>
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
