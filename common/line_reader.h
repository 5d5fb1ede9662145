// Reading a text file line by line, fast, and parsing the numbers in it.
//
// LineReader pulls the file through one large buffer with plain fread calls and hands out each
// line as a std::string_view into that buffer, without the terminator ("\n" or "\r\n"). No
// per-line allocation, no iostreams: the data readers (libsvm, MatrixMarket, labels) sit on it
// and use it to skip rows they do not need with nothing more than a memchr per line.
//
// A LineReader owns its FILE and is movable but not copyable. It is not thread-safe: one thread
// at a time. A view returned by Next() stays valid only until the next call to Next().
#pragma once

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/wire_text.h"

namespace strads {

class LineReader {
 public:
  // Opens `path` for reading. NotFound (naming the file) when it does not exist, IoError for any
  // other failure to open it.
  static Result<LineReader> Open(const std::string& path);
  // As above, for the lines that start at a byte offset in [begin, end): a file cut at any
  // offsets is read by such readers, one each, every line once. line_number() then counts from
  // the range's first line.
  static Result<LineReader> Open(const std::string& path, uint64_t begin, uint64_t end);

  LineReader(LineReader&&) = default;
  LineReader& operator=(LineReader&&) = default;

  // Sets *line to the next line and returns true; returns false at the end of the file or on a
  // read error (then status() says which). The view is valid until the next call.
  bool Next(std::string_view* line);

  // 1-based number of the line last returned by Next(); 0 before the first.
  uint64_t line_number() const { return line_number_; }

  // Ok, or the IoError that ended the reading early.
  const Status& status() const { return status_; }

  const std::string& path() const { return path_; }

 private:
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  LineReader(std::string path, std::FILE* file);
  // Moves the unread tail to the front of the buffer (growing it when a line fills it) and reads
  // more. Returns false when nothing more could be read.
  bool Refill();

  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::vector<char> buffer_;
  size_t begin_ = 0;       // first unread byte
  size_t end_ = 0;         // one past the last valid byte
  uint64_t offset_ = 0;    // the file offset of buffer_[0]
  uint64_t stop_ = ~0ull;  // no line starting at this offset or later is returned
  bool eof_ = false;
  uint64_t line_number_ = 0;
  Status status_;
};

// The whitespace that separates fields: space, tab, and stray carriage returns.
inline bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// The first IsSpace character in [p, end), or end: the end of the token at p. Eight bytes at a
// time: a word with no byte below '!' (every IsSpace character is one) is skipped whole, so the
// loaders' scans of a libsvm file's values cost ~1/3 of a byte-by-byte loop. A control byte below
// '!' that is not IsSpace stays part of the token, as before.
inline const char* TokenEnd(const char* p, const char* end) {
  static_assert(std::endian::native == std::endian::little);
  constexpr uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;
  while (end - p >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    // A byte b < 0x21 sets its high bit in (b - 0x21) & ~b (no borrow reaches a byte before the
    // first such byte, so the lowest flag is exact).
    const uint64_t low = (word - kOnes * 0x21) & ~word & kHighs;
    if (low == 0) {
      p += 8;
      continue;
    }
    p += std::countr_zero(low) / 8;  // little-endian: the first byte in memory is the lowest
    if (IsSpace(*p)) return p;
    ++p;
  }
  while (p < end && !IsSpace(*p)) ++p;
  return p;
}

// True when `line` holds a data row of a libsvm-like or list file: something other than
// whitespace, not starting with `comment` (after leading whitespace).
inline bool IsDataLine(std::string_view line, char comment = '#') {
  for (char c : line) {
    if (IsSpace(c)) continue;
    return c != comment;
  }
  return false;
}

// Splits off the next whitespace-separated token of *rest (empty when none is left).
inline std::string_view NextToken(std::string_view* rest) {
  size_t i = 0;
  while (i < rest->size() && IsSpace((*rest)[i])) ++i;
  const size_t j = TokenEnd(rest->data() + i, rest->data() + rest->size()) - rest->data();
  std::string_view token = rest->substr(i, j - i);
  rest->remove_prefix(j);
  return token;
}

// Parses all of `s` as a finite double ("+1", "-2.5e3", ".5"). False on anything else, including
// "nan", "inf" and trailing characters.
inline bool ParseFiniteDouble(std::string_view s, double* out) {
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    if (s.empty() || s[0] == '-') return false;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && std::isfinite(*out);
}

// Parses all of `s` as a decimal 64-bit integer (a leading '+' is allowed). False on anything else.
inline bool ParseInt64(std::string_view s, int64_t* out) {
  if (!s.empty() && s[0] == '+') {
    s.remove_prefix(1);
    if (s.empty() || s[0] == '-') return false;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size();
}

// The error for a malformed line: InvalidArgument "PATH:LINE: what".
inline Status LineError(const std::string& path, uint64_t line, std::string_view what) {
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ": " + std::string(what));
}

// LineError for the line `reader` returned last (line 0 before the first).
inline Status LineError(const LineReader& reader, std::string_view what) {
  return LineError(reader.path(), reader.line_number(), what);
}

// Error messages quote at most the offending token (or a short line), and only its first bytes: a
// daemon asked to read a file it should not (`--data /etc/shadow`) must not echo the file back.
inline constexpr size_t kMaxExcerptBytes = 16;

// What an error message quotes of `s` (a token, or a line of a format whose lines are short): its
// first `max` bytes, with "..." when anything was left out, and with non-printable or non-UTF-8
// bytes escaped as \xNN (WireText).
inline std::string Excerpt(std::string_view s, size_t max = kMaxExcerptBytes) {
  return WireText(s.substr(0, max)) + (s.size() > max ? "..." : "");
}

}  // namespace strads
