// Atomic file replacement: a reader (or a process restarted after a crash) sees either the old
// content of a file or the new one, never a mix.
//
// WriteFileAtomically writes PATH.tmp, fsyncs it, renames it over PATH and fsyncs the directory,
// so the new content survives a power loss once the call returns OK. A crash in the middle leaves
// PATH as it was and, at worst, a stale PATH.tmp that the next write replaces.
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

// The whole content of `path`; NotFound if it does not exist, IoError if it cannot be read.
Result<std::string> ReadWholeFile(const std::filesystem::path& path);

}  // namespace strads
