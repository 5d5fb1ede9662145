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
    for (size_t done = 0; done < contents.size();) {
      const ssize_t n = ::write(fd.get(), contents.data() + done, contents.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Errno("cannot write", tmp);
      done += static_cast<size_t>(n);
    }
    if (::fsync(fd.get()) != 0) return Errno("cannot sync", tmp);
    if (fd.Close() != 0) return Errno("cannot close", tmp);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) return Errno("cannot rename over", path);
  // The rename itself is durable only once the directory is synced.
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dfd.get() < 0) return Errno("cannot open the directory", dir);
  if (::fsync(dfd.get()) != 0) return Errno("cannot sync the directory", dir);
  return Status::Ok();
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
