#include "apps/mf/unseen_file.h"

#include <charconv>
#include <iterator>
#include <string_view>

#include <fmt/format.h>

#include "common/line_reader.h"

namespace strads::mf {

std::string FormatUnseen(double mean, const std::vector<uint64_t>& rows,
                         const std::vector<uint64_t>& cols) {
  std::string text =
      "# mf: rows and columns without training ratings (1-based); their predictions are the "
      "mean\n";
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), mean);  // round-trips exactly
  text.append("mean ").append(buf, end).push_back('\n');
  for (uint64_t i : rows) fmt::format_to(std::back_inserter(text), "row {}\n", i + 1);
  for (uint64_t j : cols) fmt::format_to(std::back_inserter(text), "column {}\n", j + 1);
  return text;
}

Result<Coverage> ReadUnseen(const std::string& path, uint64_t rows, uint64_t cols) {
  STRADS_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(path));
  Coverage c;
  c.empty_row.assign(rows, false);
  c.empty_col.assign(cols, false);
  bool has_mean = false;
  std::string_view line;
  while (reader.Next(&line)) {
    if (!IsDataLine(line)) continue;
    std::string_view rest = line;
    const std::string_view key = NextToken(&rest);
    const std::string_view value = NextToken(&rest);
    if (!NextToken(&rest).empty()) return LineError(reader, "expected two fields");
    if (key == "mean") {
      if (has_mean) return LineError(reader, "a second 'mean'");
      if (!ParseFiniteDouble(value, &c.mean)) {
        return LineError(reader, "bad mean '" + Excerpt(value) + "'");
      }
      has_mean = true;
      continue;
    }
    const bool row = key == "row";
    if (!row && key != "column") {
      return LineError(reader, "expected 'mean', 'row' or 'column', got '" + Excerpt(key) + "'");
    }
    const uint64_t limit = row ? rows : cols;
    int64_t id = 0;
    if (!ParseInt64(value, &id) || id < 1 || static_cast<uint64_t>(id) > limit) {
      return LineError(reader, fmt::format("bad {} id '{}' (the model has {})",
                                           row ? "row" : "column", Excerpt(value), limit));
    }
    std::vector<bool>& empty = row ? c.empty_row : c.empty_col;
    uint64_t& count = row ? c.empty_rows : c.empty_cols;
    if (!empty[static_cast<uint64_t>(id - 1)]) ++count;
    empty[static_cast<uint64_t>(id - 1)] = true;
  }
  STRADS_RETURN_IF_ERROR(reader.status());
  if (!has_mean) return Status::InvalidArgument(path + ": no 'mean' line");
  return c;
}

}  // namespace strads::mf
