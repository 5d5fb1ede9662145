#include "common/line_reader.h"

#include <cerrno>
#include <cstring>

#include "common/load_cancellation.h"

namespace strads {
namespace {

constexpr size_t kInitialBufferBytes = size_t{4} << 20;

}  // namespace

Result<LineReader> LineReader::Open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound(path + ": no such file");
    return Status::IoError(path + ": cannot open: " + std::strerror(err));
  }
  // Our own buffer is large; stdio's would only add a copy.
  std::setvbuf(f, nullptr, _IONBF, 0);
  return LineReader(path, f);
}

Result<LineReader> LineReader::Open(const std::string& path, uint64_t begin, uint64_t end) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, Open(path));
  LineReader& reader = opened;
  if (begin > 0) {
    // From the byte before `begin`: the rest of the line it is in (nothing but its '\n' when a
    // line starts at `begin`) belongs to the range before.
    static_assert(sizeof(off_t) == 8, "offsets past 2 GB");
    if (fseeko(reader.file_.get(), static_cast<off_t>(begin - 1), SEEK_SET) != 0) {
      return Status::IoError(path + ": cannot seek: " + std::strerror(errno));
    }
    reader.offset_ = begin - 1;
    std::string_view skipped;
    (void)reader.Next(&skipped);  // no stop yet
    reader.line_number_ = 0;
  }
  reader.stop_ = end;
  return opened;
}

LineReader::LineReader(std::string path, std::FILE* file)
    : path_(std::move(path)), file_(file), buffer_(kInitialBufferBytes) {}

bool LineReader::Refill() {
  if (eof_) return false;
  if (LoadCancelled()) {
    eof_ = true;
    status_ = Status::Cancelled(path_ + ": the load was cancelled");
    return false;
  }
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    offset_ += begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // one line fills the buffer
  const size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_.get());
  end_ += n;
  if (n == 0) {
    eof_ = true;
    if (std::ferror(file_.get())) {
      status_ = Status::IoError(path_ + ": read failed: " + std::strerror(errno));
    }
    return false;
  }
  return true;
}

bool LineReader::Next(std::string_view* line) {
  if (offset_ + begin_ >= stop_) return false;  // the next line starts past the range
  size_t scanned = begin_;                      // bytes before this offset hold no '\n'
  while (true) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(buffer_.data() + scanned, '\n', end_ - scanned);
    if (nl != nullptr) {
      size_t len = static_cast<const char*>(nl) - start;
      const size_t next = begin_ + len + 1;
      if (len > 0 && start[len - 1] == '\r') --len;
      *line = std::string_view(start, len);
      begin_ = next;
      ++line_number_;
      return true;
    }
    const size_t pending = end_ - begin_;
    if (!Refill()) {
      if (!status_.ok() || pending == 0) return false;
      // A last line without a terminator.
      start = buffer_.data() + begin_;
      size_t len = end_ - begin_;
      if (len > 0 && start[len - 1] == '\r') --len;
      *line = std::string_view(start, len);
      begin_ = end_;
      ++line_number_;
      return true;
    }
    scanned = begin_ + pending;
  }
}

}  // namespace strads
