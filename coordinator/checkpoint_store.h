// CheckpointStore: where a job's last two checkpoints live in the coordinator's work dir.
//
// WORK_DIR/jobs/<id>/checkpoint holds the latest proto::Checkpoint and checkpoint.previous the
// one before, each framed (common/framed_message.h) and written atomically (common/atomic_file.h).
// A write first drops checkpoint.previous (a full disk then holds two copies at most), writes
// checkpoint.new whole, then renames checkpoint to checkpoint.previous and checkpoint.new to
// checkpoint. Read takes the newest whole one (checkpoint.new if a crash left it, then checkpoint,
// then checkpoint.previous): a crash or a kill during a write, or a torn or corrupt latest file,
// falls back to the one before rather than to scratch; a torn or corrupt file is reported, never
// resumed from. A coordinator restarted under a running job resumes it from here; a member loss
// resumes from the checkpoint the job holds in memory.
// Thread-compatibility: the coordinator's event loop; one writer per job.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/atomic_file.h"
#include "common/status.h"
#include "strads.pb.h"

namespace strads {

class CheckpointStore {
 public:
  // `writer` (null: the file system) must outlive the store.
  explicit CheckpointStore(std::filesystem::path work_dir, FileWriter* writer = nullptr);

  // Makes `checkpoint` the latest of checkpoint.job_id(), the one it replaces the previous.
  Status Write(const proto::Checkpoint& checkpoint) const;
  // The newest whole checkpoint of `job_id`. NotFound if the job has none; InvalidArgument
  // (naming each file and what is wrong with it) if none of its files is whole. Files skipped on
  // the way go to `skipped` (may be null), e.g. "checkpoint: checksum mismatch".
  Result<proto::Checkpoint> Read(uint64_t job_id,
                                 std::vector<std::string>* skipped = nullptr) const;
  // Drops a job's checkpoints once it cannot resume any more (finished, failed or cancelled).
  void Remove(uint64_t job_id) const;
  // The latest checkpoint's file.
  std::filesystem::path PathOf(uint64_t job_id) const;

 private:
  std::filesystem::path work_dir_;
  FileWriter* writer_;
};

}  // namespace strads
