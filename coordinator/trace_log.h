// TraceLog: the rows of a dynamic job's trace.csv, one per state of progress.
//
// The job adds a row at most every --trace-every seconds while the updates grow (estimated
// objective), at every optimality check and at the end (exact objective). Two of them can
// describe the same state: a timed row and a check of the same state that comes later (e.g. one
// an exhausted chord asks for), or the last check's row and the final row. A row for the same
// number of updates as the last one therefore replaces it (the later row is the exact one), so no
// state appears twice. Thread-compatibility: a value type.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace strads {

class TraceLog {
 public:
  // `header` is the CSV header line, without its newline.
  explicit TraceLog(std::string header);

  // Adds `row` (without its newline) describing the state after `updates` updates; replaces the
  // last row if that was for the same `updates`.
  void Add(uint64_t updates, const std::string& row);

  // Continues an earlier run's trace: `text` (as Text() returned it, header included) replaces
  // this one's, and later rows are added after it (none replaces its last row).
  void Continue(std::string text);

  // The header and the rows, each ending in '\n'.
  std::string Text() const { return text_; }
  // The `updates` of the last row added (none yet, or none since Continue).
  std::optional<uint64_t> last_updates() const { return last_updates_; }

 private:
  std::string text_;
  size_t last_row_at_ = 0;  // offset in text_ where the last row begins
  std::optional<uint64_t> last_updates_;
};

}  // namespace strads
