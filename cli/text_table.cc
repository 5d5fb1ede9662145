#include "cli/text_table.h"

#include <algorithm>

#include "cli/fitted_line.h"

namespace strads {

namespace {
constexpr size_t kGap = 2;
}  // namespace

void TextTable::AddColumn(std::string header, Align align, int priority) {
  columns_.push_back({std::move(header), align, priority});
}

void TextTable::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::RenderRow(const std::vector<std::string>& cells,
                                 const std::vector<bool>& shown, const std::vector<size_t>& widths,
                                 size_t width) const {
  std::string line;
  bool first = true;
  for (size_t c = 0; c < columns_.size(); ++c) {
    if (!shown[c]) continue;
    if (!first) line.append(kGap, ' ');
    first = false;
    const size_t pad = widths[c] - DisplayWidth(cells[c]);
    if (columns_[c].align == Align::kRight) line.append(pad, ' ');
    line += cells[c];
    if (columns_[c].align == Align::kLeft) line.append(pad, ' ');
  }
  line = CutToWidth(line, width);
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

std::string TextTable::Render(size_t width) const {
  std::vector<size_t> widths(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = DisplayWidth(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], DisplayWidth(row[c]));
  }
  std::vector<int> priorities;
  for (const auto& column : columns_) priorities.push_back(column.priority);
  const std::vector<bool> shown = KeepByPriority(priorities, widths, kGap, width);
  std::vector<std::string> headers;
  for (const auto& column : columns_) headers.push_back(column.header);
  std::string out = RenderRow(headers, shown, widths, width);
  for (const auto& row : rows_) out += RenderRow(row, shown, widths, width);
  return out;
}

}  // namespace strads
