#include "apps/mf/array_mtx.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include "common/matrix_market_reader.h"

namespace strads::mf {
namespace {

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
  try {
    MatrixMarketReader::Options options;
    options.format = MatrixMarketFormat::kArray;
    STRADS_ASSIGN_OR_RETURN(MatrixMarketReader opened, MatrixMarketReader::Open(path, options));
    MatrixMarketReader& reader = opened;
    std::vector<double> values;
    double v;
    while (reader.NextValue(&v)) values.push_back(v);
    STRADS_RETURN_IF_ERROR(reader.status());
    const MatrixMarketHeader& h = reader.header();
    return Eigen::MatrixXd(Eigen::Map<const Eigen::MatrixXd>(
        values.data(), static_cast<Eigen::Index>(h.rows), static_cast<Eigen::Index>(h.cols)));
  } catch (const std::bad_alloc&) {
    return Status::Internal(path + ": out of memory while loading");
  }
}

}  // namespace strads::mf
