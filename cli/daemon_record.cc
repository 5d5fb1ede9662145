#include "cli/daemon_record.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace strads {
namespace {

long ParsePid(const std::string& s) {
  if (s.empty() || s.size() > 9 || s[0] == '0') return 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
  }
  return std::stol(s);
}

}  // namespace

std::string DaemonRecord::Describe() const {
  return fmt::format("{} on {} (pid {}{})", role, host, pid, remote ? ", remote" : "");
}

bool DaemonRecord::IsRunning() const {
  if (pid <= 0) return false;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t paren = stat.rfind(") ");
  if (paren == std::string::npos) return false;
  std::istringstream fields(stat.substr(paren + 2));
  std::vector<std::string> f;
  for (std::string w; fields >> w;) f.push_back(w);
  if (f.size() < 20 || f[0] == "Z" || f[0] == "X") return false;
  return start_ticks.empty() || f[19] == start_ticks;
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
    const std::string base = path.stem().string();  // ROLE-HOST-N
    DaemonRecord r;
    r.role = base.substr(0, base.find('-'));
    const std::string rest = base.substr(std::min(base.size(), r.role.size() + 1));
    std::ifstream in(path);
    std::string first, second;
    std::getline(in, first);
    std::getline(in, second);
    if (const size_t colon = first.rfind(':'); colon != std::string::npos) {
      r.remote = true;
      r.host = first.substr(0, colon);
      r.pid = ParsePid(first.substr(colon + 1));
    } else {
      r.host = rest.substr(0, rest.rfind('-'));
      r.pid = ParsePid(first);
    }
    if (second.rfind("start=", 0) == 0) r.start_ticks = second.substr(6);
    records.push_back(r);
  }
  return records;
}

}  // namespace strads
