// CheckpointStore: where a job's last checkpoint lives in the coordinator's work dir.
//
// WORK_DIR/jobs/<id>/checkpoint holds one proto::Checkpoint, framed (common/framed_message.h)
// and replaced atomically (common/atomic_file.h): a crash or a kill during a write leaves the
// previous checkpoint whole, and a torn or corrupt file is reported, never resumed from. A
// coordinator restarted under a running job resumes it from here; a member loss resumes from the
// checkpoint the job holds in memory.
// Thread-compatibility: the coordinator's event loop; one writer per job.
#pragma once

#include <filesystem>

#include "common/status.h"
#include "strads.pb.h"

namespace strads {

class CheckpointStore {
 public:
  explicit CheckpointStore(std::filesystem::path work_dir);

  // Replaces the checkpoint of checkpoint.job_id().
  Status Write(const proto::Checkpoint& checkpoint) const;
  // NotFound if the job has none; InvalidArgument (naming the file) if it is torn or corrupt.
  Result<proto::Checkpoint> Read(uint64_t job_id) const;
  // Drops a job's checkpoint once it cannot resume any more (finished, failed or cancelled).
  void Remove(uint64_t job_id) const;
  std::filesystem::path PathOf(uint64_t job_id) const;

 private:
  std::filesystem::path work_dir_;
};

}  // namespace strads
