// FittedLine: a one-line display (the progress line of `strads submit --wait` and `strads run`)
// cut to the terminal's width by dropping its least important fields, so that a refresh with
// "\r\033[K" overwrites the line instead of wrapping and stacking broken lines.
// Thread-compatibility: pure functions.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace strads {

// One field of a line and how much it matters: priority 0 is kept longest; among equal
// priorities the rightmost field goes first.
struct LineField {
  std::string text;
  int priority = 0;
};

// Characters a terminal shows for `text` (UTF-8 code points; the fields hold no control codes).
size_t DisplayWidth(const std::string& text);

// Which of n items (fields of a line, columns of a table) to keep so that their widths plus `gap`
// between neighbours add up to at most `width` (0 = no limit): the highest priority numbers go
// first, the rightmost first among equals; priority-0 items are always kept.
std::vector<bool> KeepByPriority(const std::vector<int>& priorities,
                                 const std::vector<size_t>& widths, size_t gap, size_t width);

// The fields in their order, joined by one space, leaving out the fewest and least important
// ones so that the line is at most `width` characters wide. If even the priority-0 fields do not
// fit, they are cut at `width`. Width 0 means no limit.
std::string FitLine(const std::vector<LineField>& fields, size_t width);

// `text` cut to at most `width` displayed characters (at a code point boundary); 0 = no limit.
std::string CutToWidth(const std::string& text, size_t width);

}  // namespace strads
