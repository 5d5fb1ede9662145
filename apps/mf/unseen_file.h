// unseen.txt, the third file of an mf model: the rows and columns the training matrix had no
// ratings for, and the training mean that a prediction for one of them falls back to.
//
// Format (1-based ids, ascending; comment lines start with '#'):
//   # mf: rows and columns without training ratings; their predictions are the mean
//   mean 3.5812
//   row 17
//   column 4
//
// Pure functions, safe to call from several threads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "apps/mf/ratings.h"
#include "common/status.h"

namespace strads::mf {

// The file's text. `rows` and `cols` are 0-based ids.
std::string FormatUnseen(double mean, const std::vector<uint64_t>& rows,
                         const std::vector<uint64_t>& cols);

// Reads `path` for a model of `rows` x `cols`: the Coverage a prediction needs (mean, empty_row,
// empty_col and their counts). Errors: NotFound, IoError, InvalidArgument "PATH:LINE: reason" for
// a line that is not `mean V`, `row I` or `column J` with a finite V and 1 <= I <= rows,
// 1 <= J <= cols, a second `mean`, or none.
Result<Coverage> ReadUnseen(const std::string& path, uint64_t rows, uint64_t cols);

}  // namespace strads::mf
