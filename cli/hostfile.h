// Hostfile: the cluster description read by `strads cluster` (and deploy/strads-cluster).
//
//   HOST ROLE[=COUNT] [ROLE[=COUNT]...]     # comment
//
// Roles are coordinator (exactly one in the file, count 1), scheduler and worker (at least one
// of each); COUNT (default 1) is how many daemons of that role run on the host. Parsing collects
// every error of the file, each as "FILE:LINE: reason" (or "FILE: reason" for the whole file),
// so one run shows the user all of them. See deploy/hosts.example.
// Thread-compatibility: plain values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace strads {

struct Hostfile {
  std::string coordinator;              // its host
  std::vector<std::string> schedulers;  // one host per scheduler daemon, in file order
  std::vector<std::string> workers;     // one host per worker daemon, in file order
};

// Parses the text of a hostfile; `name` prefixes the error messages. InvalidArgument carries
// every error found, one per line.
Result<Hostfile> ParseHostfile(std::string_view text, const std::string& name);

// Reads and parses the file at `path`: NotFound "PATH: no such hostfile", IoError "PATH: cannot
// read hostfile", or the errors of ParseHostfile.
Result<Hostfile> ReadHostfile(const std::string& path);

}  // namespace strads
