// Atomic file replacement: a reader (or a process restarted after a crash) sees either the old
// content of a file or the new one, never a mix.
//
// WriteFileAtomically writes PATH.tmp, fsyncs it, renames it over PATH and fsyncs the directory,
// so the new content survives a power loss once the call returns OK. A failed write (a full disk)
// leaves PATH as it was and removes PATH.tmp, so a failure does not keep the disk full; a crash in
// the middle leaves, at worst, a stale PATH.tmp that the next write replaces (the coordinator also
// removes them at start-up).
// Thread-safety: concurrent writes to the same path race on PATH.tmp; callers serialize them.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "common/status.h"

namespace strads {

// Replaces `path` with `contents` as described above. The directory must exist. Errors are
// IoError naming the file and the system's reason.
Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

// Where durable files are written: the file system (WriteFileAtomically), or in tests one that
// fails on demand, as leveldb's Env (the coordinator's journal and checkpoints write through it).
// Thread-compatibility: as the implementation's; the file system's is stateless.
class FileWriter {
 public:
  virtual ~FileWriter() = default;
  // As WriteFileAtomically.
  virtual Status WriteAtomically(const std::filesystem::path& path, std::string_view contents) = 0;
};

// WriteFileAtomically through `writer`, or directly when it is null.
inline Status WriteAtomicallyWith(FileWriter* writer, const std::filesystem::path& path,
                                  std::string_view contents) {
  return writer ? writer->WriteAtomically(path, contents) : WriteFileAtomically(path, contents);
}

// Removes the PATH.tmp files a crash left in `dir` (not in its subdirectories); returns how many.
size_t RemoveStaleTempFiles(const std::filesystem::path& dir);

// The whole content of `path`; NotFound if it does not exist, IoError if it cannot be read.
Result<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace strads
