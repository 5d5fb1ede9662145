#include "cli/fitted_line.h"

#include <algorithm>
#include <numeric>

namespace strads {

namespace {

bool Continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

size_t DisplayWidth(const std::string& text) {
  return static_cast<size_t>(
      std::count_if(text.begin(), text.end(), [](char c) { return !Continuation(c); }));
}

std::string CutToWidth(const std::string& text, size_t width) {
  if (width == 0) return text;
  size_t shown = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (Continuation(text[i])) continue;
    if (shown == width) return text.substr(0, i);
    ++shown;
  }
  return text;
}

std::vector<bool> KeepByPriority(const std::vector<int>& priorities,
                                 const std::vector<size_t>& widths, size_t gap, size_t width) {
  const size_t n = priorities.size();
  std::vector<bool> kept(n, true);
  size_t total = 0;
  for (size_t i = 0; i < n; ++i) total += widths[i] + (i > 0 ? gap : 0);
  size_t left = n;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (priorities[a] != priorities[b]) return priorities[a] > priorities[b];
    return a > b;
  });
  for (size_t i : order) {
    if (width == 0 || total <= width || priorities[i] == 0) break;
    kept[i] = false;
    total -= widths[i] + (--left > 0 ? gap : 0);
  }
  return kept;
}

std::string FitLine(const std::vector<LineField>& fields, size_t width) {
  std::vector<int> priorities;
  std::vector<size_t> widths;
  for (const auto& f : fields) {
    priorities.push_back(f.priority);
    widths.push_back(DisplayWidth(f.text));
  }
  const auto kept = KeepByPriority(priorities, widths, 1, width);
  std::string line;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!kept[i]) continue;
    if (!line.empty()) line += ' ';
    line += fields[i].text;
  }
  return CutToWidth(line, width);
}

}  // namespace strads
