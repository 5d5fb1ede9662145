// DataRoots: the directories a member may read job files from (--data-root DIR, repeatable).
//
// A job names files by path (its data, labels, vocabulary, test set); without roots a member
// reads any of them its user can, and quotes bits of what it read in errors. With roots, a path
// is resolved with realpath (symlinks and "..", so neither leads out) and refused unless it lies
// inside one root. No roots: everything is allowed (loopback tests, the embedded mode).
// Thread-compatibility: immutable after construction; const methods from any thread.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace strads {

class DataRoots {
 public:
  DataRoots() = default;  // no confinement

  // Resolves each directory; InvalidArgument "--data-root DIR: reason" if one does not exist or
  // is not a directory.
  static Result<DataRoots> Make(const std::vector<std::string>& dirs);

  // Ok when no roots were given or `path` resolves inside one; else FailedPrecondition
  // "PATH is outside the data roots (ROOT, ...) of this member" (or "PATH: reason" when it cannot
  // be resolved at all).
  Status Check(const std::string& path) const;

  bool empty() const { return roots_.empty(); }
  const std::vector<std::string>& roots() const { return roots_; }

 private:
  std::vector<std::string> roots_;  // resolved, without a trailing slash
};

}  // namespace strads
