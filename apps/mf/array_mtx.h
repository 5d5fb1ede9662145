// Dense matrices as MatrixMarket array files: the W.mtx and H.mtx the mf app writes.
//
// Format: `%%MatrixMarket matrix array real general`, a size line `rows cols`, then rows * cols
// values, one per line, in column-major order (as the format requires). Values are written in the
// shortest form that reads back to the same double, so a write/read round trip is exact.
//
// The functions share no state and are safe to call from several threads on different paths.
#pragma once

#include <string>

#include <Eigen/Dense>

#include "common/status.h"

namespace strads::mf {

// The file's text for `m`: banner, size line and the values in column-major order, each in the
// shortest form that reads back to the same double. REQUIRES: every value finite.
std::string FormatArrayMtx(const Eigen::MatrixXd& m);

// Writes `m` to `path`, replacing it. IoError (naming the file) if it cannot be written.
// REQUIRES: every value finite (InvalidArgument otherwise, and nothing is written).
Status WriteArrayMtx(const Eigen::MatrixXd& m, const std::string& path);

// Reads an array file written by WriteArrayMtx (or any `matrix array real|integer general` file).
// Errors: NotFound, IoError, InvalidArgument "FILE:LINE: ..." for a bad banner, size line or
// value, or a value count other than rows * cols.
Result<Eigen::MatrixXd> ReadArrayMtx(const std::string& path);

}  // namespace strads::mf
