#include "engine/app.h"

#include <filesystem>

#include "common/memory_matrix.h"

namespace strads {

std::vector<std::string> ResultFileNames(const App& app) {
  std::vector<std::string> names = app.OutputFiles();
  if (app.engine() == proto::ENGINE_STATIC) names.push_back("subrounds.csv");
  names.push_back("trace.csv");
  names.push_back("summary.json");
  return names;
}

std::string AbsolutePath(const std::string& path) {
  if (path.empty() || IsMemoryPath(path)) return path;
  std::error_code ec;
  auto absolute = std::filesystem::absolute(path, ec);
  return ec ? path : absolute.string();
}

}  // namespace strads
