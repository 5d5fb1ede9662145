#include "coordinator/job_journal.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/framed_message.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "STRADSJ1";
constexpr std::string_view kRecordSuffix = ".job";

// A positive job id written in decimal, and nothing else.
std::optional<uint64_t> ParseId(std::string_view digits) {
  uint64_t id = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (ec != std::errc() || end != digits.data() + digits.size() || id == 0) return std::nullopt;
  return id;
}

// The job id of a record's file name, "<id>.job".
std::optional<uint64_t> RecordId(std::string_view name) {
  if (!name.ends_with(kRecordSuffix)) return std::nullopt;
  name.remove_suffix(kRecordSuffix.size());
  return ParseId(name);
}

}  // namespace

std::string EncodeJobRecord(const proto::JobRecord& record) { return EncodeFramed(kMagic, record); }

Result<proto::JobRecord> DecodeJobRecord(std::string_view bytes) {
  proto::JobRecord record;
  STRADS_RETURN_IF_ERROR(DecodeFramed(kMagic, "job record", bytes, record));
  return record;
}

JobJournal::JobJournal(fs::path work_dir, FileWriter* writer)
    : work_dir_(std::move(work_dir)), journal_dir_(work_dir_ / "journal"), writer_(writer) {}

fs::path JobJournal::RecordPath(uint64_t job_id) const {
  return journal_dir_ / (std::to_string(job_id) + std::string(kRecordSuffix));
}

fs::path JobJournal::ResultDir(uint64_t job_id) const {
  return work_dir_ / "jobs" / std::to_string(job_id);
}

Result<RecoveredJobs> JobJournal::Recover() const {
  std::error_code ec;
  fs::create_directories(journal_dir_, ec);
  if (ec)
    return Status::IoError(
        fmt::format("cannot create {}: {}", journal_dir_.string(), ec.message()));
  RecoveredJobs out;
  uint64_t highest = 0;
  fs::directory_iterator it(journal_dir_, ec);
  if (ec)
    return Status::IoError(fmt::format("cannot list {}: {}", journal_dir_.string(), ec.message()));
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".tmp")) {
      // A write interrupted before its rename: the record it was replacing is still whole.
      if (auto id = RecordId(std::string_view(name).substr(0, name.size() - 4)))
        highest = std::max(highest, *id);
      continue;
    }
    const auto id = RecordId(name);
    if (!id) {
      out.problems.push_back({entry.path().string(), "not a job record name (<id>.job)"});
      continue;
    }
    highest = std::max(highest, *id);
    auto bytes = ReadWholeFile(entry.path());
    if (!bytes.ok()) {
      out.problems.push_back({entry.path().string(), bytes.status().message()});
      continue;
    }
    auto record = DecodeJobRecord(*bytes);
    if (!record.ok()) {
      out.problems.push_back({entry.path().string(), record.status().message()});
      continue;
    }
    if (record->info().job_id() != *id) {
      out.problems.push_back({entry.path().string(), fmt::format("the record is of job {}, not {}",
                                                                 record->info().job_id(), *id)});
      continue;
    }
    out.records.push_back(std::move(*record));
  }
  // Result directories count too: a job whose record was lost must not have its results
  // overwritten by a new job of the same id.
  for (const auto& entry : fs::directory_iterator(work_dir_ / "jobs", ec)) {
    if (auto id = ParseId(entry.path().filename().string())) highest = std::max(highest, *id);
    if (entry.is_directory(ec)) out.removed_temp_files += RemoveStaleTempFiles(entry.path());
  }
  // After the ids of interrupted writes were counted above.
  out.removed_temp_files += RemoveStaleTempFiles(journal_dir_);
  std::sort(out.records.begin(), out.records.end(),
            [](const auto& a, const auto& b) { return a.info().job_id() < b.info().job_id(); });
  out.next_job_id = highest + 1;
  return out;
}

Status JobJournal::Write(const proto::JobRecord& record) const {
  std::error_code ec;
  fs::create_directories(journal_dir_, ec);
  if (ec)
    return Status::IoError(
        fmt::format("cannot create {}: {}", journal_dir_.string(), ec.message()));
  return WriteAtomicallyWith(writer_, RecordPath(record.info().job_id()), EncodeJobRecord(record));
}

Result<std::string> JobJournal::WriteResults(uint64_t job_id,
                                             const std::vector<proto::ResultFile>& files) const {
  const fs::path dir = ResultDir(job_id);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  for (const auto& f : files) {
    // Names come from the app's output list; never let one leave the job's directory.
    if (f.name().empty() || f.name().find('/') != std::string::npos || f.name() == "." ||
        f.name() == "..") {
      return Status::InvalidArgument(fmt::format("bad result file name '{}'", f.name()));
    }
    STRADS_RETURN_IF_ERROR(WriteAtomicallyWith(writer_, dir / f.name(), f.content()));
  }
  return dir.string();
}

Result<std::vector<proto::ResultFile>> JobJournal::ReadResults(
    const proto::JobRecord& record) const {
  std::vector<proto::ResultFile> files;
  const fs::path dir = record.result_dir().empty() ? ResultDir(record.info().job_id())
                                                   : fs::path(record.result_dir());
  for (const auto& name : record.result_files()) {
    auto content = ReadWholeFile(dir / name);
    if (!content.ok()) {
      return Status::IoError(fmt::format("result file of job {} lost: {}", record.info().job_id(),
                                         content.status().message()));
    }
    proto::ResultFile f;
    f.set_name(name);
    f.set_content(std::move(*content));
    files.push_back(std::move(f));
  }
  return files;
}

}  // namespace strads
