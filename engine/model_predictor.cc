#include "engine/model_predictor.h"

#include <filesystem>
#include <fstream>

namespace strads {

Status CheckModelDir(const std::string& dir) {
  std::error_code ec;
  if (!std::filesystem::exists(dir, ec)) return Status::NotFound(dir + ": no such model directory");
  if (!std::filesystem::is_directory(dir, ec)) {
    return Status::InvalidArgument(dir +
                                   ": not a directory (the model is a job's output "
                                   "directory)");
  }
  return Status::Ok();
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return Status::IoError(path + ": cannot write");
  return Status::Ok();
}

}  // namespace strads
