#include "coordinator/checkpoint_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/framed_message.h"

namespace strads {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kMagic = "STRADSC1";

fs::path WithSuffix(const fs::path& path, const char* suffix) { return path.string() + suffix; }

Status RenameError(const fs::path& from, const fs::path& to) {
  return Status::IoError(
      fmt::format("cannot rename {} to {}: {}", from.string(), to.string(), std::strerror(errno)));
}

}  // namespace

CheckpointStore::CheckpointStore(fs::path work_dir, FileWriter* writer)
    : work_dir_(std::move(work_dir)), writer_(writer) {}

fs::path CheckpointStore::PathOf(uint64_t job_id) const {
  return work_dir_ / "jobs" / std::to_string(job_id) / "checkpoint";
}

Status CheckpointStore::Write(const proto::Checkpoint& checkpoint) const {
  const fs::path path = PathOf(checkpoint.job_id());
  const fs::path previous = WithSuffix(path, ".previous"), next = WithSuffix(path, ".new");
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) {
    return Status::IoError(
        fmt::format("cannot create {}: {}", path.parent_path().string(), ec.message()));
  }
  // Only the latest is kept while the next is written: never three copies on a full disk.
  if (fs::exists(path, ec)) fs::remove(previous, ec);
  STRADS_RETURN_IF_ERROR(WriteAtomicallyWith(writer_, next, EncodeFramed(kMagic, checkpoint)));
  if (fs::exists(path, ec) && ::rename(path.c_str(), previous.c_str()) != 0) {
    return RenameError(path, previous);
  }
  if (::rename(next.c_str(), path.c_str()) != 0) return RenameError(next, path);
  const int dir = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0 || ::fsync(dir) != 0) {
    Status st = Status::IoError(fmt::format("cannot sync the directory {}: {}",
                                            path.parent_path().string(), std::strerror(errno)));
    if (dir >= 0) ::close(dir);
    return st;
  }
  ::close(dir);
  return Status::Ok();
}

Result<proto::Checkpoint> CheckpointStore::Read(uint64_t job_id,
                                                std::vector<std::string>* skipped) const {
  const fs::path path = PathOf(job_id);
  std::string problems;
  bool any = false;
  // Newest first: checkpoint.new exists only when a crash came between its write and its rename.
  for (const fs::path& file : {WithSuffix(path, ".new"), path, WithSuffix(path, ".previous")}) {
    auto bytes = ReadWholeFile(file);
    if (!bytes.ok() && bytes.status().code() == StatusCode::kNotFound) continue;
    any = true;
    proto::Checkpoint checkpoint;
    Status st =
        bytes.ok() ? DecodeFramed(kMagic, "checkpoint", *bytes, checkpoint) : bytes.status();
    if (st.ok() && checkpoint.job_id() != job_id) {
      st = Status::InvalidArgument(fmt::format("the checkpoint is of job {}", checkpoint.job_id()));
    }
    if (st.ok()) return checkpoint;
    const std::string problem = file.string() + ": " + st.message();
    if (skipped) skipped->push_back(problem);
    problems += (problems.empty() ? "" : "; ") + problem;
  }
  if (!any) return Status::NotFound(path.string() + ": no such file");
  return Status::InvalidArgument(problems);
}

void CheckpointStore::Remove(uint64_t job_id) const {
  std::error_code ec;
  const fs::path path = PathOf(job_id);
  for (const char* suffix : {"", ".previous", ".new"}) fs::remove(WithSuffix(path, suffix), ec);
}

}  // namespace strads
