#include "apps/mf/array_mtx.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

#include "common/line_reader.h"

namespace strads::mf {
namespace {

Status LineError(const std::string& path, uint64_t line, const std::string& what) {
  return Status::InvalidArgument(path + ":" + std::to_string(line) + ": " + what);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

}  // namespace

std::string FormatArrayMtx(const Eigen::MatrixXd& m) {
  std::string out = "%%MatrixMarket matrix array real general\n" + std::to_string(m.rows()) + " " +
                    std::to_string(m.cols()) + "\n";
  out.reserve(out.size() + static_cast<size_t>(m.size()) * 20);
  char buf[64];
  // Column-major: Eigen's MatrixXd storage is column-major too, so this is a linear walk.
  const double* data = m.data();
  const Eigen::Index n = m.size();
  for (Eigen::Index k = 0; k < n; ++k) {
    const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), data[k]);
    out.append(buf, end);
    out.push_back('\n');
  }
  return out;
}

Status WriteArrayMtx(const Eigen::MatrixXd& m, const std::string& path) {
  if (!m.allFinite()) {
    return Status::InvalidArgument(path + ": refusing to write a matrix with non-finite values");
  }
  const std::string text = FormatArrayMtx(m);
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    return Status::IoError(path + ": cannot open for writing: " + std::strerror(errno));
  }
  bool ok = std::fwrite(text.data(), 1, text.size(), file.get()) == text.size();
  if (std::fclose(file.release()) != 0) ok = false;
  if (!ok) return Status::IoError(path + ": write failed: " + std::strerror(errno));
  return Status::Ok();
}

Result<Eigen::MatrixXd> ReadArrayMtx(const std::string& path) {
  Result<LineReader> opened = LineReader::Open(path);
  if (!opened.ok()) return opened.status();
  LineReader& reader = opened.value();
  std::string_view line;
  if (!reader.Next(&line)) {
    STRADS_RETURN_IF_ERROR(reader.status());
    return LineError(path, 1, "empty file, expected a '%%MatrixMarket' banner");
  }
  {
    std::string_view rest = line;
    const std::string banner = Lower(NextToken(&rest));
    const std::string object = Lower(NextToken(&rest));
    const std::string format = Lower(NextToken(&rest));
    const std::string field = Lower(NextToken(&rest));
    const std::string symmetry = Lower(NextToken(&rest));
    if (banner != "%%matrixmarket" || object != "matrix" || format != "array" ||
        (field != "real" && field != "integer") || symmetry != "general" ||
        !NextToken(&rest).empty()) {
      return LineError(
          path, 1,
          "expected '%%MatrixMarket matrix array real general', got '" + Excerpt(line) + "'");
    }
  }
  int64_t rows = -1, cols = -1;
  while (reader.Next(&line)) {
    if (!IsDataLine(line, '%')) continue;
    std::string_view rest = line;
    if (!ParseInt64(NextToken(&rest), &rows) || !ParseInt64(NextToken(&rest), &cols) || rows < 0 ||
        cols < 0 || !NextToken(&rest).empty()) {
      return LineError(path, reader.line_number(),
                       "expected a size line 'rows cols', got '" + Excerpt(line) + "'");
    }
    break;
  }
  STRADS_RETURN_IF_ERROR(reader.status());
  if (rows < 0) return LineError(path, reader.line_number() + 1, "missing size line 'rows cols'");
  const uint64_t size_line = reader.line_number();
  const uint64_t expected = static_cast<uint64_t>(rows) * static_cast<uint64_t>(cols);
  std::vector<double> values;
  while (reader.Next(&line)) {
    if (!IsDataLine(line, '%')) continue;
    std::string_view rest = line;
    std::string_view token = NextToken(&rest);
    double v;
    if (!ParseFiniteDouble(token, &v) || !NextToken(&rest).empty()) {
      return LineError(path, reader.line_number(),
                       "expected one value, got '" + Excerpt(line) + "'");
    }
    if (values.size() == expected) {
      return LineError(path, reader.line_number(),
                       "more than the " + std::to_string(expected) + " values declared on line " +
                           std::to_string(size_line));
    }
    values.push_back(v);
  }
  STRADS_RETURN_IF_ERROR(reader.status());
  if (values.size() != expected) {
    return LineError(path, size_line,
                     "declares " + std::to_string(expected) + " values but the file has " +
                         std::to_string(values.size()));
  }
  return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(values.data(), rows, cols));
}

}  // namespace strads::mf
