// DataRoots: the directories a member may read job files from (--data-root DIR, repeatable).
//
// A job names files by path (its data, labels, vocabulary, test set); without roots a member
// reads any of them its user can, and quotes bits of what it read in errors. With roots, a file
// is opened once, beneath its root, and the job reads that open file (OpenedFile::read_path), so
// nothing can swap what the path means between the check and the read:
//  - the path must lie inside a root by its text (after "." and ".." are folded), the root as
//    given or as resolved at start-up; anything else is refused with one text, whether or not the
//    file exists (nothing outside is ever looked up);
//  - the rest of the path is opened from the root's directory, which is held open from start-up,
//    with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it, else one
//    component at a time with O_NOFOLLOW: no symbolic link inside a root is followed, and no
//    ".." leads out;
//  - the opened file must be a regular file (fstat), opened without blocking (a FIFO cannot hang
//    a member).
// No roots: everything is allowed (loopback tests, the embedded mode), and nothing is opened here.
// Thread-compatibility: immutable after construction; const methods from any thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace strads {

// A job file opened beneath a data root; closed with the object.
class OpenedFile {
 public:
  OpenedFile(int fd, std::string path);
  ~OpenedFile();
  OpenedFile(OpenedFile&& other) noexcept;
  OpenedFile& operator=(OpenedFile&&) = delete;
  OpenedFile(const OpenedFile&) = delete;
  OpenedFile& operator=(const OpenedFile&) = delete;

  int fd() const { return fd_; }
  // The path the job named.
  const std::string& path() const { return path_; }
  // The path that reads this open file, whatever the job's path names now: /proc/self/fd/N.
  const std::string& read_path() const { return read_path_; }

 private:
  int fd_;
  std::string path_;
  std::string read_path_;
};

// A job's files opened beneath the data roots, held open for the job's life.
class OpenedFiles {
 public:
  // Keeps `file` open; returns the path the job reads it by.
  std::string Add(OpenedFile file);
  // `text` (an error of the job) with each file's read path replaced by the path the job named.
  std::string Unalias(std::string text) const;
  const std::vector<OpenedFile>& files() const { return files_; }

 private:
  std::vector<OpenedFile> files_;
};

class DataRoots {
 public:
  // How Open resolves a path beneath a root: openat2 when the kernel has it (else the walk), or
  // the walk of O_NOFOLLOW opens always (tests of the fallback).
  enum class Resolve { kBest, kWalk };

  DataRoots() = default;  // no confinement

  // Opens each directory and keeps it open; InvalidArgument "--data-root DIR: reason" if one does
  // not exist or is not a directory.
  static Result<DataRoots> Make(const std::vector<std::string>& dirs,
                                Resolve resolve = Resolve::kBest);

  // Opens `path` for reading as described above. FailedPrecondition "PATH is outside the data
  // roots of this member (ROOT, ...); see --data-root" when it is not inside one by its text;
  // NotFound "PATH: no such file"; FailedPrecondition "PATH: ... symbolic link ..." for a link on
  // the way; FailedPrecondition "PATH: not a regular file"; IoError for other failures to open.
  // REQUIRES: !empty().
  Result<OpenedFile> Open(const std::string& path) const;

  // Ok when no roots were given, or `path` can be opened as Open does (the file is closed again).
  Status Check(const std::string& path) const;

  bool empty() const { return roots_.empty(); }
  // The roots as resolved at start-up.
  std::vector<std::string> roots() const;

 private:
  struct Root {
    std::string given;               // absolute, folded, without a trailing slash ("" for /)
    std::string real;                // resolved at start-up, likewise
    std::shared_ptr<const int> dir;  // the open directory (closed with the last copy)
  };
  std::vector<Root> roots_;
  Resolve resolve_ = Resolve::kBest;
};

}  // namespace strads
