// TextTable: a table of text for the terminal (`strads status`, `strads jobs`): a header row and
// cells in columns as wide as their widest entry, two spaces apart. Rendered for a width, it
// leaves out the least important columns until every row fits, so `status --watch` on an
// 80-column terminal shows whole rows instead of wrapped ones.
// Thread-compatibility: a value type; pure rendering.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strads {

class TextTable {
 public:
  enum class Align { kLeft, kRight };

  // Adds a column; priority 0 is never left out, higher numbers are left out first (the rightmost
  // first among equals). REQUIRES: before any AddRow.
  void AddColumn(std::string header, Align align, int priority);
  // Adds a row. REQUIRES: one cell per column.
  void AddRow(std::vector<std::string> cells);
  size_t rows() const { return rows_.size(); }

  // The header and the rows, one line each ending in '\n', at most `width` characters wide
  // (0 = no limit); trailing blanks are trimmed. Priority-0 columns that alone are too wide are
  // cut at `width`.
  std::string Render(size_t width) const;

 private:
  struct Column {
    std::string header;
    Align align;
    int priority;
  };
  std::string RenderRow(const std::vector<std::string>& cells, const std::vector<bool>& shown,
                        const std::vector<size_t>& widths, size_t width) const;

  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace strads
