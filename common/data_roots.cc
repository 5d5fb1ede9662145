#include "common/data_roots.h"

#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace strads {
namespace {

Result<std::string> RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  if (!realpath(path.c_str(), resolved)) {
    return Status::NotFound(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  return std::string(resolved);
}

}  // namespace

Result<DataRoots> DataRoots::Make(const std::vector<std::string>& dirs) {
  DataRoots out;
  for (const auto& dir : dirs) {
    auto real = RealPath(dir);
    if (!real.ok()) return Status::InvalidArgument("--data-root " + real.status().message());
    std::error_code ec;
    if (!std::filesystem::is_directory(*real, ec)) {
      return Status::InvalidArgument("--data-root " + dir + ": not a directory");
    }
    out.roots_.push_back(*real == "/" ? "" : *real);
  }
  return out;
}

Status DataRoots::Check(const std::string& path) const {
  if (roots_.empty() || path.empty()) return Status::Ok();
  auto real = RealPath(path);
  if (!real.ok()) return Status::FailedPrecondition(real.status().message());
  std::string list;
  for (const auto& root : roots_) {
    if (real->rfind(root + "/", 0) == 0) return Status::Ok();
    list += (list.empty() ? "" : ", ") + (root.empty() ? std::string("/") : root);
  }
  return Status::FailedPrecondition(
      fmt::format("{} is outside the data roots of this member ({}); see --data-root", path, list));
}

}  // namespace strads
