#include "cli/daemon_record.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "common/atomic_file.h"

namespace strads {
namespace {

long ParsePid(std::string_view s) {
  if (s.empty() || s.size() > 9 || s[0] == '0') return 0;
  long pid = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    pid = pid * 10 + (c - '0');
  }
  return pid;
}

}  // namespace

std::string_view TextLine(std::string_view text, int n) {
  for (; n > 0; --n) {
    const size_t nl = text.find('\n');
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  text = text.substr(0, text.find('\n'));
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

std::string ReadTextOrEmpty(const std::string& path) {
  Result<std::string> text = ReadWholeFile(path);
  return text.ok() ? std::move(*text) : std::string();
}

std::string DaemonRecord::Describe() const {
  return fmt::format("{} on {} (pid {}{})", role, host, pid, remote ? ", remote" : "");
}

std::string DaemonRecord::FileText() const {
  if (remote) return fmt::format("{}:{}\n", host, pid);
  return fmt::format("{}\nstart={}\n", pid, start_ticks);
}

DaemonRecord ParseDaemonRecord(const std::string& run_dir, const std::string& name,
                               std::string_view text) {
  DaemonRecord r;
  r.role = name.substr(0, name.find('-'));
  r.file = run_dir + "/pids/" + name + ".pid";
  r.log = run_dir + "/logs/" + name + ".log";
  const std::string_view first = TextLine(text, 0);
  const std::string_view second = TextLine(text, 1);
  if (const size_t colon = first.rfind(':'); colon != std::string_view::npos) {
    r.remote = true;
    r.host = first.substr(0, colon);
    r.pid = ParsePid(first.substr(colon + 1));
  } else {
    const std::string rest = name.substr(std::min(name.size(), r.role.size() + 1));
    r.host = rest.substr(0, rest.rfind('-'));
    r.pid = ParsePid(first);
  }
  if (second.rfind("start=", 0) == 0) r.start_ticks = second.substr(6);
  return r;
}

std::vector<DaemonRecord> LoadDaemonRecords(const std::string& run_dir) {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run_dir + "/pids", ec)) {
    if (e.path().extension() == ".pid" && e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<DaemonRecord> records;
  for (const auto& path : files) {
    records.push_back(ParseDaemonRecord(run_dir, path.stem().string(), ReadTextOrEmpty(path)));
  }
  return records;
}

Status WriteDaemonRecord(const DaemonRecord& r) {
  std::ofstream out(r.file, std::ios::trunc);
  out << r.FileText();
  out.close();
  if (!out) return Status::IoError(r.file + ": cannot write the pid file");
  return Status::Ok();
}

}  // namespace strads
