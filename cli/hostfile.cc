#include "cli/hostfile.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace strads {
namespace {

constexpr std::string_view kRoles[] = {"coordinator", "scheduler", "worker"};

bool IsRole(std::string_view s) {
  for (auto r : kRoles) {
    if (s == r) return true;
  }
  return false;
}

// Letters, digits, . _ : % @ [ ] and (not first, so that ssh never takes it for an option) -.
bool IsHostName(std::string_view h) {
  auto ok = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_.:%@[]").find(c) != std::string_view::npos;
  };
  if (h.empty() || !ok(h[0])) return false;
  for (char c : h) {
    if (!ok(c) && c != '-') return false;
  }
  return true;
}

// 1..9999 written with 1 to 4 digits (leading zeros allowed, as in "worker=02").
int ParseCount(std::string_view s) {
  if (s.empty() || s.size() > 4) return 0;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::vector<std::string> Words(std::string_view line) {
  std::vector<std::string> words;
  std::istringstream in{std::string(line)};
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace

Result<Hostfile> ParseHostfile(std::string_view text, const std::string& name) {
  Hostfile hf;
  int coordinator_line = 0;
  std::vector<std::string> errors;
  int lineno = 0;
  while (!text.empty() || lineno == 0) {
    const size_t nl = text.find('\n');
    std::string line(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    ++lineno;
    line = line.substr(0, line.find('#'));
    std::erase(line, '\r');
    const auto fields = Words(line);
    if (fields.empty()) continue;
    const std::string where = fmt::format("{}:{}", name, lineno);
    const std::string& host = fields[0];
    if (IsRole(host.substr(0, host.find('=')))) {
      errors.push_back(fmt::format(
          "{}: line starts with role '{}'; expected 'HOST ROLE[=COUNT]...'", where, host));
      continue;
    }
    if (!IsHostName(host)) {
      errors.push_back(fmt::format("{}: bad host name '{}'", where, host));
      continue;
    }
    if (fields.size() == 1) {
      errors.push_back(fmt::format(
          "{}: host '{}' has no roles (expected coordinator, scheduler[=N] or worker[=N])", where,
          host));
      continue;
    }
    for (size_t i = 1; i < fields.size(); ++i) {
      const std::string& tok = fields[i];
      const size_t eq = tok.find('=');
      const std::string role = tok.substr(0, eq);
      const std::string count_text = eq == std::string::npos ? "1" : tok.substr(eq + 1);
      if (!IsRole(role)) {
        errors.push_back(fmt::format(
            "{}: unknown role '{}' (expected coordinator, scheduler or worker)", where, role));
        continue;
      }
      const int count = ParseCount(count_text);
      if (count < 1) {
        errors.push_back(
            fmt::format("{}: bad count '{}' for role '{}' (expected an integer from 1 to 9999)",
                        where, count_text, role));
        continue;
      }
      if (role == "coordinator") {
        if (count != 1) {
          errors.push_back(fmt::format("{}: coordinator count must be 1, got {}", where, count));
        }
        if (coordinator_line != 0) {
          errors.push_back(fmt::format(
              "{}: second coordinator (the first is on line {}); exactly one host runs the "
              "coordinator",
              where, coordinator_line));
        } else {
          hf.coordinator = host;
          coordinator_line = lineno;
        }
      } else {
        auto& hosts = role == "scheduler" ? hf.schedulers : hf.workers;
        hosts.insert(hosts.end(), count, host);
      }
    }
  }
  if (hf.coordinator.empty()) {
    errors.push_back(name + ": no coordinator (exactly one host needs the 'coordinator' role)");
  }
  if (hf.schedulers.empty()) {
    errors.push_back(name + ": no scheduler (at least one host needs the 'scheduler' role)");
  }
  if (hf.workers.empty()) {
    errors.push_back(name + ": no worker (at least one host needs the 'worker' role)");
  }
  if (!errors.empty()) return Status::InvalidArgument(fmt::format("{}", fmt::join(errors, "\n")));
  return hf;
}

Result<Hostfile> ReadHostfile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::NotFound(path + ": no such hostfile");
  std::ifstream in(path, std::ios::binary);
  if (std::filesystem::is_directory(path, ec) || !in) {
    return Status::IoError(path + ": cannot read hostfile");
  }
  std::ostringstream text;
  text << in.rdbuf();
  return ParseHostfile(text.str(), path);
}

}  // namespace strads
