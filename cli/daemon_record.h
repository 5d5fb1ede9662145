// DaemonRecord: a daemon the launcher started, as recorded in RUN_DIR/pids/ROLE-HOST-N.pid:
// line 1 "PID" (this machine) or "HOST:PID" (over ssh), line 2 "start=TICKS" for local daemons
// (field 22 of /proc/PID/stat, so that a recycled pid is never taken for the daemon).
// Thread-compatibility: plain values; IsRunning reads /proc.
#pragma once

#include <string>
#include <vector>

namespace strads {

struct DaemonRecord {
  std::string role;
  std::string host;
  long pid = 0;  // 0 when the file holds no valid pid
  bool remote = false;
  std::string start_ticks;  // empty when not recorded

  // "worker on node1 (pid 42)", with ", remote" for daemons on other hosts.
  std::string Describe() const;
  // For local records: the process exists, is not a zombie, and started at start_ticks.
  bool IsRunning() const;
};

// The records under `run_dir`/pids, sorted by file name; none when the folder does not exist.
std::vector<DaemonRecord> LoadDaemonRecords(const std::string& run_dir);

}  // namespace strads
