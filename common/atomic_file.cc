#include "common/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace strads {
namespace {

Status Errno(const std::string& what, const std::filesystem::path& path) {
  return Status::IoError(what + " " + path.string() + ": " + std::strerror(errno));
}

// Closes the descriptor on every path out of WriteFileAtomically.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now, reporting the error close() may carry for buffered writes.
  int Close() {
    const int rc = ::close(fd_);
    fd_ = -1;
    return rc;
  }

 private:
  int fd_;
};

}  // namespace

Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (fd.get() < 0) return Errno("cannot create", tmp);
    // A failed write leaves no half file behind to keep a full disk full.
    auto failed = [&](const char* what) {
      Status st = Errno(what, tmp);
      ::unlink(tmp.c_str());
      return st;
    };
    for (size_t done = 0; done < contents.size();) {
      const ssize_t n = ::write(fd.get(), contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed("cannot write");
      done += static_cast<size_t>(n);
    }
    if (::fsync(fd.get()) != 0) return failed("cannot sync");
    if (fd.Close() != 0) return failed("cannot close");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    Status st = Errno("cannot rename over", path);
    ::unlink(tmp.c_str());
    return st;
  }
  // The rename itself is durable only once the directory is synced.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() < 0) return Errno("cannot open the directory", dir);
  if (::fsync(dfd.get()) != 0) return Errno("cannot sync the directory", dir);
  return Status::Ok();
}

size_t RemoveStaleTempFiles(const std::filesystem::path& dir) {
  std::error_code ec;
  size_t removed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".tmp" && entry.is_regular_file(ec) &&
        std::filesystem::remove(entry.path(), ec)) {
      ++removed;
    }
  }
  return removed;
}

Result<std::string> ReadWholeFile(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::NotFound(path.string() + ": no such file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return Errno("cannot open", path);
  std::string contents((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Errno("cannot read", path);
  return contents;
}

}  // namespace strads
