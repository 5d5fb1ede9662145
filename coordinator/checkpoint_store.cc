#include "coordinator/checkpoint_store.h"

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/framed_message.h"

namespace strads {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kMagic = "STRADSC1";

}  // namespace

CheckpointStore::CheckpointStore(fs::path work_dir) : work_dir_(std::move(work_dir)) {}

fs::path CheckpointStore::PathOf(uint64_t job_id) const {
  return work_dir_ / "jobs" / std::to_string(job_id) / "checkpoint";
}

Status CheckpointStore::Write(const proto::Checkpoint& checkpoint) const {
  const fs::path path = PathOf(checkpoint.job_id());
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return Status::IoError(
        fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  }
  return WriteFileAtomically(path, EncodeFramed(kMagic, checkpoint));
}

Result<proto::Checkpoint> CheckpointStore::Read(uint64_t job_id) const {
  const fs::path path = PathOf(job_id);
  STRADS_ASSIGN_OR_RETURN(auto bytes, ReadWholeFile(path));
  proto::Checkpoint checkpoint;
  if (Status st = DecodeFramed(kMagic, "checkpoint", bytes, checkpoint); !st.ok()) {
    return Status::InvalidArgument(path.string() + ": " + st.message());
  }
  if (checkpoint.job_id() != job_id) {
    return Status::InvalidArgument(
        fmt::format("{}: the checkpoint is of job {}", path.string(), checkpoint.job_id()));
  }
  return checkpoint;
}

void CheckpointStore::Remove(uint64_t job_id) const {
  std::error_code ec;
  fs::remove(PathOf(job_id), ec);
}

}  // namespace strads
