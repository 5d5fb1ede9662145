// DaemonRecord: a daemon the launcher started, as recorded in RUN_DIR/pids/NAME.pid (NAME =
// ROLE-HOST-N, cli/cluster_plan.h): line 1 "PID" (this machine) or "HOST:PID" (over ssh), line 2
// "start=TICKS" for local daemons (field 22 of /proc/PID/stat, so that a recycled pid is never
// taken for the daemon). A remote start that failed is recorded as "HOST:0": a dead daemon, so
// `status` shows it and `stop` cleans it up. The pid files are all `stop` and `status` need.
// Thread-compatibility: plain values; the functions touch only the files named.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace strads {

struct DaemonRecord {
  std::string role;
  std::string host;
  long pid = 0;  // 0 when the file holds no valid pid
  bool remote = false;
  std::string start_ticks;  // empty when not recorded
  std::string file;         // RUN_DIR/pids/NAME.pid
  std::string log;          // RUN_DIR/logs/NAME.log (on `host` for remote daemons)

  // "worker on node1 (pid 42)", with ", remote" for daemons on other hosts.
  std::string Describe() const;
  // What the pid file holds (see above).
  std::string FileText() const;
};

// The record of pid file `name`.pid under `run_dir` holding `text`. Never fails: a file that
// holds no valid pid gives pid 0 (a dead daemon).
DaemonRecord ParseDaemonRecord(const std::string& run_dir, const std::string& name,
                               std::string_view text);

// The records under `run_dir`/pids, sorted by file name; none when the folder does not exist.
std::vector<DaemonRecord> LoadDaemonRecords(const std::string& run_dir);

// Line `n` (0-based) of `text`, without its '\n' (and a '\r' before it); empty when there is none.
std::string_view TextLine(std::string_view text, int n);

// The whole file at `path`, empty when it cannot be read (ReadWholeFile without the reason).
std::string ReadTextOrEmpty(const std::string& path);

// Writes r.FileText() to r.file. IoError naming the file when it cannot.
Status WriteDaemonRecord(const DaemonRecord& r);

}  // namespace strads
