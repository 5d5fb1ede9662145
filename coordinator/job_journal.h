// JobJournal: the coordinator's job table on disk, so that a restarted coordinator knows every job
// it ever accepted.
//
// Layout under the coordinator's --work-dir:
//   journal/<id>.job   one record per job (proto::JobRecord), rewritten on every state change
//   jobs/<id>/         the result files of a job that succeeded
//
// One small file per job rather than an append-only log: a state change rewrites only that job's
// record, atomically (common/atomic_file.h: temp file, fsync, rename, fsync of the directory), so
// there is nothing to replay or compact, and damage to one file loses one job, never the table.
// Each record is framed as
//   "STRADSJ1" | payload length (u32, little-endian) | CRC-32 of the payload (u32, LE) | payload
// so a torn or corrupted file is recognized (by length or checksum) rather than half-parsed.
// The id is also in the file name: the next job id is above every id seen in journal/ and jobs/,
// readable or not (and interrupted .tmp writes, before they are removed), so an id is never
// reused even when its record is damaged. (An id seen only in a removed .tmp file was never
// acknowledged to a client: its job was not journaled.)
//
// Recover() never fails because of one bad file: it reports the file and the reason and skips it.
// It fails only when the directory itself cannot be created or listed. It removes the *.tmp files
// of writes a crash interrupted (in journal/ and in each jobs/<id>/), which would otherwise keep
// a full disk full.
// Every write goes through a FileWriter (common/atomic_file.h), the file system unless a test
// injects faults.
// Thread-compatibility: plain filesystem calls; the coordinator's event loop is the only writer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "common/atomic_file.h"
#include "common/status.h"
#include "strads.pb.h"

namespace strads {

// A record the journal could not use, and why.
struct JournalProblem {
  std::string file;
  std::string reason;
};

struct RecoveredJobs {
  std::vector<proto::JobRecord> records;  // by increasing job id
  std::vector<JournalProblem> problems;   // skipped files
  uint64_t next_job_id = 1;               // above every id ever used in this work dir
  size_t removed_temp_files = 0;          // interrupted writes' *.tmp files removed
};

// The framed bytes of `record` (see above).
std::string EncodeJobRecord(const proto::JobRecord& record);
// The record in `bytes`, or InvalidArgument saying what is wrong (short, torn, checksum, parse).
Result<proto::JobRecord> DecodeJobRecord(std::string_view bytes);

class JobJournal {
 public:
  // `writer` (null: the file system) must outlive the journal.
  explicit JobJournal(std::filesystem::path work_dir, FileWriter* writer = nullptr);

  // Creates the directories if needed and reads every record back.
  Result<RecoveredJobs> Recover() const;
  // Durably replaces the record of `record.info().job_id()`.
  Status Write(const proto::JobRecord& record) const;
  // Writes `files` into jobs/<id>/ (each atomically); returns that directory.
  Result<std::string> WriteResults(uint64_t job_id,
                                   const std::vector<proto::ResultFile>& files) const;
  // Reads back the result files a record names.
  Result<std::vector<proto::ResultFile>> ReadResults(const proto::JobRecord& record) const;

  std::filesystem::path RecordPath(uint64_t job_id) const;
  std::filesystem::path ResultDir(uint64_t job_id) const;

 private:
  std::filesystem::path work_dir_;
  std::filesystem::path journal_dir_;
  FileWriter* writer_;
};

}  // namespace strads
