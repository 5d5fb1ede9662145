#include "common/data_roots.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace strads {
namespace {

namespace fs = std::filesystem;

// `p` absolute and folded ("." and ".." removed by their text), without a trailing slash ("" for
// the root directory).
std::string Folded(const fs::path& p) {
  std::string s = p.lexically_normal().string();
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// `path` relative to `root` (both folded) when it lies strictly inside, else "".
std::string Inside(const std::string& path, const std::string& root) {
  if (path.size() <= root.size() + 1 || path.compare(0, root.size(), root) != 0 ||
      path[root.size()] != '/') {
    return "";
  }
  return path.substr(root.size() + 1);
}

constexpr int kOpenFlags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;

// openat2 beneath `dir`: -1 with errno set; errno ENOSYS when the kernel lacks it.
int OpenAt2(int dir, const std::string& relative) {
  struct open_how how {};
  how.flags = kOpenFlags;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  return static_cast<int>(::syscall(SYS_openat2, dir, relative.c_str(), &how, sizeof(how)));
}

// The same, one component at a time, none of them followed if it is a symbolic link: -1 with
// errno set (ELOOP or ENOTDIR for a link).
int OpenWalking(int dir, const std::string& relative) {
  std::vector<std::string> parts;
  for (const auto& part : fs::path(relative)) {
    const std::string s = part.string();
    if (s.empty() || s == ".") continue;
    if (s == "..") {  // folded away before; never walked
      errno = EXDEV;
      return -1;
    }
    parts.push_back(s);
  }
  if (parts.empty()) {
    errno = EISDIR;
    return -1;
  }
  int at = ::dup(dir);
  if (at < 0) return -1;
  for (size_t k = 0; k < parts.size(); ++k) {
    const bool last = k + 1 == parts.size();
    const int next =
        ::openat(at, parts[k].c_str(),
                 last ? kOpenFlags | O_NOFOLLOW : O_RDONLY | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW);
    const int saved = errno;
    ::close(at);
    if (next < 0) {
      errno = saved;
      return -1;
    }
    at = next;
  }
  return at;
}

}  // namespace

OpenedFile::OpenedFile(int fd, std::string path)
    : fd_(fd), path_(std::move(path)), read_path_("/proc/self/fd/" + std::to_string(fd)) {}

OpenedFile::~OpenedFile() {
  if (fd_ >= 0) ::close(fd_);
}

OpenedFile::OpenedFile(OpenedFile&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), read_path_(std::move(other.read_path_)) {
  other.fd_ = -1;
}

std::string OpenedFiles::Add(OpenedFile file) {
  files_.push_back(std::move(file));
  return files_.back().read_path();
}

std::string OpenedFiles::Unalias(std::string text) const {
  // Longest first: /proc/self/fd/12 is a prefix of /proc/self/fd/123.
  std::vector<const OpenedFile*> order;
  for (const auto& f : files_) order.push_back(&f);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->read_path().size() > b->read_path().size();
  });
  for (const auto* f : order) {
    for (size_t at = text.find(f->read_path()); at != std::string::npos;
         at = text.find(f->read_path(), at + f->path().size())) {
      text.replace(at, f->read_path().size(), f->path());
    }
  }
  return text;
}

Result<DataRoots> DataRoots::Make(const std::vector<std::string>& dirs, Resolve resolve) {
  DataRoots out;
  out.resolve_ = resolve;
  for (const auto& dir : dirs) {
    char resolved[PATH_MAX];
    if (!realpath(dir.c_str(), resolved)) {
      return Status::InvalidArgument(fmt::format("--data-root {}: {}", dir, std::strerror(errno)));
    }
    const int fd = ::open(resolved, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
      return Status::InvalidArgument(fmt::format(
          "--data-root {}: {}", dir, errno == ENOTDIR ? "not a directory" : std::strerror(errno)));
    }
    Root root;
    root.given = Folded(fs::absolute(dir));
    root.real = Folded(resolved);
    root.dir = std::shared_ptr<const int>(new int(fd), [](const int* p) {
      ::close(*p);
      delete p;
    });
    out.roots_.push_back(std::move(root));
  }
  return out;
}

std::vector<std::string> DataRoots::roots() const {
  std::vector<std::string> out;
  for (const auto& r : roots_) out.push_back(r.real.empty() ? "/" : r.real);
  return out;
}

Result<OpenedFile> DataRoots::Open(const std::string& path) const {
  const fs::path p(path);
  const std::string folded = p.is_absolute() ? Folded(p) : "";
  const Root* root = nullptr;
  std::string relative;
  for (const auto& r : roots_) {
    for (const std::string* base : {&r.given, &r.real}) {
      relative = folded.empty() ? "" : Inside(folded, *base);
      if (!relative.empty()) break;
    }
    if (!relative.empty()) {
      root = &r;
      break;
    }
  }
  if (!root) {
    // The same text whether or not such a file exists: nothing outside is looked up.
    std::string list;
    for (const auto& r : roots()) list += (list.empty() ? "" : ", ") + r;
    return Status::FailedPrecondition(fmt::format(
        "{} is outside the data roots of this member ({}); see --data-root", path, list));
  }
  int fd = -1;
  if (resolve_ == Resolve::kBest) {
    fd = OpenAt2(*root->dir, relative);
    if (fd < 0 && errno == ENOSYS) fd = OpenWalking(*root->dir, relative);
  } else {
    fd = OpenWalking(*root->dir, relative);
  }
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    if (err == ELOOP || err == ENOTDIR || err == EXDEV) {
      return Status::FailedPrecondition(fmt::format(
          "{}: a symbolic link on the way (or a part that is not a directory); inside the data "
          "roots no link is followed: name the file itself (see --data-root)",
          path));
    }
    return Status::IoError(fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  OpenedFile file(fd, path);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    return Status::IoError(fmt::format("{}: cannot stat: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) return Status::FailedPrecondition(path + ": not a regular file");
  // Opened without blocking (a FIFO); reads block as usual.
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return Status::IoError(fmt::format("{}: {}", path, std::strerror(errno)));
  }
  return file;
}

Status DataRoots::Check(const std::string& path) const {
  if (roots_.empty() || path.empty()) return Status::Ok();
  return Open(path).status();
}

}  // namespace strads
