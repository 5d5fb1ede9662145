// Tests of the data layer: libsvm and MatrixMarket loading, row shards, and error reporting.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "test/status_testing.h"
#include "test/temp_dir.h"

#include "common/data_loader.h"
#include "common/huge_pages.h"
#include "common/libsvm_reader.h"
#include "common/line_reader.h"
#include "common/matrix_market_reader.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

using strads::testing::TempDir;

Eigen::MatrixXd Dense(const SparseColMatrix& x) { return Eigen::MatrixXd(x); }

Dataset MustLoad(const DataSource& src, RowRange rows = {}) {
  return testing::Must(LoadDataset(src, rows));
}

// Expects LoadDataset to fail with InvalidArgument whose message contains `needle`.
void ExpectInvalid(const DataSource& src, const std::string& needle, RowRange rows = {}) {
  Result<Dataset> ds = LoadDataset(src, rows);
  REQUIRE_FALSE(ds.ok());
  INFO(ds.status().message());
  CHECK(ds.status().code() == StatusCode::kInvalidArgument);
  CHECK(ds.status().message().find(needle) != std::string::npos);
}

const char kSmallLibsvm[] =
    "# a comment line\n"
    "1 1:0.5 3:2\n"
    "\n"
    "-1 qid:7 2:-1.25 5:3e2 # trailing comment\n"
    "   \t\n"
    "0.5\n"
    "2 1:1 7:4\n";

// kSmallLibsvm in a file of its own, at `path`.
struct SmallLibsvm {
  TempDir dir;
  const std::string path = dir.Write("small.svm", kSmallLibsvm);
};

TEST_CASE_METHOD(
    SmallLibsvm,
    "data: libsvm: a full load reads labels, values, id gaps, and skips comments and blanks",
    "[data]") {
  Dataset ds = MustLoad({path, "", ""});
  CHECK(ds.path == path);
  CHECK(ds.total_rows == 4);
  CHECK(ds.first_row == 0);
  REQUIRE(ds.x.rows() == 4);
  CHECK(ds.x.cols() == 7);  // the largest id
  CHECK(ds.x.nonZeros() == 6);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 7);
  expected(0, 0) = 0.5;
  expected(0, 2) = 2;
  expected(1, 1) = -1.25;
  expected(1, 4) = 300;
  expected(3, 0) = 1;
  expected(3, 6) = 4;
  CHECK(Dense(ds.x) == expected);
  REQUIRE(ds.y.size() == 4);
  CHECK(ds.y[0] == 1);
  CHECK(ds.y[1] == -1);
  CHECK(ds.y[2] == 0.5);
  CHECK(ds.y[3] == 2);
}

TEST_CASE_METHOD(
    SmallLibsvm,
    "data: libsvm: a row range loads only those rows, with total_rows of the whole file",
    "[data]") {
  Dataset ds = MustLoad({path, "libsvm", ""}, {1, 3});
  CHECK(ds.total_rows == 4);
  CHECK(ds.first_row == 1);
  REQUIRE(ds.x.rows() == 2);
  CHECK(ds.x.cols() == 5);  // the largest id in the loaded rows, not the file
  CHECK(ds.x.coeff(0, 1) == -1.25);
  CHECK(ds.x.coeff(0, 4) == 300);
  CHECK(ds.x.col(0).nonZeros() == 0);
  CHECK(ds.y[0] == -1);
  CHECK(ds.y[1] == 0.5);
}

TEST_CASE_METHOD(SmallLibsvm,
                 "data: libsvm: a range past the end is clipped, an inverted range is rejected",
                 "[data]") {
  Dataset tail = MustLoad({path, "", ""}, {3, 100});
  CHECK(tail.x.rows() == 1);
  CHECK(tail.first_row == 3);
  Dataset beyond = MustLoad({path, "", ""}, {10, 20});
  CHECK(beyond.x.rows() == 0);
  CHECK(beyond.y.size() == 0);
  CHECK(beyond.first_row == 4);
  CHECK(beyond.total_rows == 4);
  ExpectInvalid({path, "", ""}, "inverted", {3, 1});
}

TEST_CASE("data: libsvm: an empty file is a data set with no rows", "[data]") {
  TempDir dir;
  const std::string path = dir.Write("empty.svm", "# nothing here\n\n");
  Dataset ds = MustLoad({path, "", ""});
  CHECK(ds.total_rows == 0);
  CHECK(ds.x.rows() == 0);
  CHECK(ds.x.cols() == 0);
  Result<uint64_t> n = CountRows({path, "", ""});
  REQUIRE(n.ok());
  CHECK(*n == 0);
}

TEST_CASE(
    "data: libsvm: '+1' labels, CRLF endings, tabs and a last line without newline are accepted",
    "[data]") {
  TempDir dir;
  const std::string path = dir.Write("crlf.svm", "+1\t1:+2 2:.5\r\n-1 3:1e-3\r\n+0.5 1:1");
  Dataset ds = MustLoad({path, "", ""});
  REQUIRE(ds.x.rows() == 3);
  CHECK(ds.y[0] == 1);
  CHECK(ds.y[2] == 0.5);
  CHECK(ds.x.coeff(0, 0) == 2);
  CHECK(ds.x.coeff(0, 1) == 0.5);
  CHECK(ds.x.coeff(1, 2) == 1e-3);
  CHECK(ds.x.coeff(2, 0) == 1);
}

TEST_CASE("data: libsvm: ids may come in any order within a row but must not repeat", "[data]") {
  TempDir dir;
  const std::string unsorted = dir.Write("unsorted.svm", "1 5:5 2:2 9:9\n");
  Dataset ds = MustLoad({unsorted, "", ""});
  CHECK(ds.x.cols() == 9);
  CHECK(ds.x.coeff(0, 4) == 5);
  CHECK(ds.x.coeff(0, 1) == 2);
  CHECK(ds.x.coeff(0, 8) == 9);

  const std::string repeated = dir.Write("repeated.svm", "1 1:1\n1 4:1 2:1 4:2\n");
  ExpectInvalid({repeated, "", ""}, repeated + ":2: duplicate feature id 4");
  const std::string adjacent = dir.Write("adjacent.svm", "1 3:1 3:1\n");
  ExpectInvalid({adjacent, "", ""}, adjacent + ":1: duplicate feature id 3");
}

TEST_CASE("data: libsvm: every malformed row is an InvalidArgument naming FILE:LINE", "[data]") {
  struct Case {
    const char* row;
    const char* what;
  };
  const std::vector<Case> cases = {
      {"1 0:1", "feature id 0 is not positive"},
      {"1 -3:1", "feature id -3 is not positive"},
      {"1 2:abc", "bad value in '2:abc'"},
      {"1 2:", "bad value"},
      {"1 2:1.5x", "bad value"},
      {"1 2:nan", "bad value"},
      {"1 2:inf", "bad value"},
      {"1 2:1:3", "bad value"},
      {"1 2", "missing ':'"},
      {"1 2 3:1", "missing ':'"},
      {"1 x:1", "bad feature id"},
      {"1 0x3:1", "bad feature id"},
      {"1 :1", "bad feature id"},
      {"1 99999999999999999999:1", "bad feature id"},
      {"1 3000000000:1", "exceeds 2147483647"},
      {"abc 1:1", "bad label 'abc'"},
      {"1,2 1:1", "bad label"},
      {"nan 1:1", "bad label"},
  };
  TempDir dir;
  for (const Case& c : cases) {
    // The bad row is on line 4, after a comment, a good row and a blank line.
    const std::string path =
        dir.Write("bad.svm", std::string("# header\n1 1:1\n\n") + c.row + "\n2 2:2\n");
    INFO("row: " << c.row);
    ExpectInvalid({path, "", ""}, path + ":4: ");
    ExpectInvalid({path, "", ""}, c.what);
  }
}

TEST_CASE("data: libsvm: rows outside the loaded range are counted but not parsed", "[data]") {
  TempDir dir;
  const std::string path = dir.Write("partly_bad.svm", "1 1:1\n1 0:zz\n");
  Dataset first = MustLoad({path, "", ""}, {0, 1});
  CHECK(first.total_rows == 2);
  CHECK(first.x.rows() == 1);
  ExpectInvalid({path, "", ""}, path + ":2:", {1, 2});
}

TEST_CASE("data: a missing file is NotFound and names the file", "[data]") {
  TempDir dir;
  const std::string missing = dir.Path("no_such_file.svm");
  for (const DataSource& src : {DataSource{missing, "", ""}, DataSource{missing, "mm", "y.txt"}}) {
    Result<Dataset> ds = LoadDataset(src, {});
    REQUIRE_FALSE(ds.ok());
    CHECK(ds.status().code() == StatusCode::kNotFound);
    CHECK(ds.status().message().find(missing) != std::string::npos);
    Result<uint64_t> n = CountRows(src);
    REQUIRE_FALSE(n.ok());
    CHECK(n.status().code() == StatusCode::kNotFound);
    CHECK(n.status().message().find(missing) != std::string::npos);
  }
  // A missing labels file, too.
  const std::string mm =
      dir.Write("m.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 0\n");
  Result<Dataset> ds = LoadDataset({mm, "", dir.Path("no_labels.txt")}, {});
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().code() == StatusCode::kNotFound);
  CHECK(ds.status().message().find("no_labels.txt") != std::string::npos);
}

TEST_CASE("data: the format comes from DataSource::format, else from the file extension",
          "[data]") {
  auto format = [](const std::string& path, const std::string& fmt) {
    Result<DataFormat> f = ResolveFormat({path, fmt, ""});
    REQUIRE(f.ok());
    return *f;
  };
  CHECK(format("a.mtx", "") == DataFormat::kMatrixMarket);
  CHECK(format("a.mm", "") == DataFormat::kMatrixMarket);
  CHECK(format("a.svm", "") == DataFormat::kLibsvm);
  CHECK(format("a.mtx", "libsvm") == DataFormat::kLibsvm);
  CHECK(format("a.txt", "svmlight") == DataFormat::kLibsvm);
  CHECK(format("a.txt", "mm") == DataFormat::kMatrixMarket);
  Result<DataFormat> bad = ResolveFormat({"a.txt", "csv", ""});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
  CHECK(bad.status().message().find("csv") != std::string::npos);
}

const char kSmallMatrixMarket[] =
    "%%MatrixMarket matrix coordinate real general\n"
    "% a comment\n"
    "%\n"
    "4 6 5\n"
    "3 2 -1.5\n"
    "1 1 2\n"
    "\n"
    "4 6 7\n"
    "1 5 0.25\n"
    "3 1 1e1\n";
const char kSmallLabels[] = "1\n-2\n\n3.5\n4\n";

TEST_CASE("data: mm: loads entries in any order with labels and the header's column count",
          "[data]") {
  TempDir dir;
  const std::string x = dir.Write("m.mtx", kSmallMatrixMarket);
  const std::string y = dir.Write("y.txt", kSmallLabels);
  Dataset ds = MustLoad({x, "", y});
  CHECK(ds.total_rows == 4);
  CHECK(ds.first_row == 0);
  REQUIRE(ds.x.rows() == 4);
  CHECK(ds.x.cols() == 6);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(4, 6);
  expected(2, 1) = -1.5;
  expected(0, 0) = 2;
  expected(3, 5) = 7;
  expected(0, 4) = 0.25;
  expected(2, 0) = 10;
  CHECK(Dense(ds.x) == expected);
  CHECK(ds.y == Eigen::Vector4d(1, -2, 3.5, 4));

  Dataset shard = MustLoad({x, "", y}, {1, 3});
  CHECK(shard.total_rows == 4);
  CHECK(shard.first_row == 1);
  CHECK(shard.x.cols() == 6);
  CHECK(Dense(shard.x) == expected.middleRows(1, 2));
  CHECK(shard.y == Eigen::Vector2d(-2, 3.5));

  Result<uint64_t> n = CountRows({x, "", y});
  REQUIRE(n.ok());
  CHECK(*n == 4);
}

TEST_CASE("data: mm: integer and pattern fields, and case-insensitive banners, are accepted",
          "[data]") {
  TempDir dir;
  const std::string y = dir.Write("y.txt", "0\n1\n");
  const std::string integer = dir.Write(
      "i.mtx", "%%MatrixMarket MATRIX Coordinate Integer General\n2 2 2\n1 1 3\n2 2 -4\n");
  Dataset di = MustLoad({integer, "", y});
  CHECK(di.x.coeff(0, 0) == 3);
  CHECK(di.x.coeff(1, 1) == -4);
  const std::string pattern =
      dir.Write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n");
  Dataset dp = MustLoad({pattern, "", y});
  CHECK(dp.x.cols() == 3);
  CHECK(dp.x.coeff(0, 2) == 1);
  CHECK(dp.x.coeff(1, 0) == 1);
  CHECK(dp.x.nonZeros() == 2);
}

TEST_CASE("data: mm: a label count other than the row count names the labels file and both counts",
          "[data]") {
  TempDir dir;
  const std::string x = dir.Write("m.mtx", kSmallMatrixMarket);
  const std::string few = dir.Write("few.txt", "1\n2\n3\n");
  ExpectInvalid({x, "", few}, few + ": has 3 labels but " + x + " has 4 rows");
  const std::string many = dir.Write("many.txt", "1\n2\n3\n4\n5\n");
  ExpectInvalid({x, "", many}, many + ": has 5 labels but " + x + " has 4 rows");
  // Also when the shard's own labels are all present.
  ExpectInvalid({x, "", few}, "has 3 labels", {0, 1});
  const std::string bad = dir.Write("bad.txt", "1\n2\nthree\n4\n");
  ExpectInvalid({x, "", bad}, bad + ":3: expected one number");
}

TEST_CASE("data: mm: an entry count other than the header's is an error at FILE:LINE", "[data]") {
  TempDir dir;
  const std::string y = dir.Write("y.txt", "1\n2\n");
  const std::string fewer =
      dir.Write("fewer.mtx", "%%MatrixMarket matrix coordinate real general\n%c\n2 2 3\n1 1 1\n");
  ExpectInvalid({fewer, "", y}, fewer + ":3: declares 3 entries but the file has 1");
  const std::string more =
      dir.Write("more.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n");
  ExpectInvalid({more, "", y}, more + ":4: more entries than the 1 declared on line 2");
}

TEST_CASE("data: mm: an entry outside the matrix is an error at FILE:LINE, whatever the shard",
          "[data]") {
  TempDir dir;
  const std::string y = dir.Write("y.txt", "1\n2\n");
  for (const char* entry : {"3 1 1", "1 3 1", "0 1 1", "1 0 1", "-1 1 1"}) {
    INFO(entry);
    const std::string x = dir.Write(
        "m.mtx", std::string("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n") +
                     entry + "\n");
    ExpectInvalid({x, "", y}, x + ":4: entry (");
    ExpectInvalid({x, "", y}, "outside the 2 x 2 matrix");
    ExpectInvalid({x, "", y}, x + ":4:", {0, 0});
  }
}

TEST_CASE("data: mm: malformed banners, size lines and entries are errors at FILE:LINE", "[data]") {
  struct Case {
    const char* text;
    const char* where;  // ":LINE: what"
  };
  const std::vector<Case> cases = {
      {"", ":1: empty file"},
      {"1 1 1\n1 1 1\n", ":1: expected a '%%MatrixMarket' banner"},
      {"%%MatrixMarket matrix array real general\n1 1\n1\n", ":1: only 'matrix coordinate'"},
      {"%%MatrixMarket matrix coordinate complex general\n1 1 0\n", ":1: field 'complex'"},
      {"%%MatrixMarket matrix coordinate real symmetric\n1 1 0\n", ":1: symmetry 'symmetric'"},
      {"%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", ":1: unexpected text"},
      {"%%MatrixMarket matrix coordinate real general\n%\n", ":3: missing size line"},
      {"%%MatrixMarket matrix coordinate real general\n2 2\n", ":2: expected a size line"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 x\n", ":2: expected a size line"},
      {"%%MatrixMarket matrix coordinate real general\n2 -2 1\n", ":2: expected a size line"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1 4\n", ":2: expected a size line"},
      {"%%MatrixMarket matrix coordinate real general\n2 9999999999 0\n", ":2: 9999999999 columns"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n", ":3: expected an entry"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1\n", ":3: expected an entry"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n", ":3: bad value 'abc'"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", ":3: bad value"},
      {"%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1 1\n", ":3: unexpected text"},
      {"%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1\n", ":3: unexpected text"},
  };
  TempDir dir;
  const std::string y = dir.Write("y.txt", "1\n2\n");
  for (const Case& c : cases) {
    INFO("file: " << c.text);
    const std::string x = dir.Write("bad.mtx", c.text);
    ExpectInvalid({x, "", y}, x + c.where);
  }
}

// The status that ends reading the body of `text` (a coordinate file) with `options`, taking
// every value.
Status ReadAllEntries(const TempDir& dir, const std::string& text,
                      MatrixMarketReader::Options options) {
  Result<MatrixMarketReader> reader = MatrixMarketReader::Open(dir.Write("r.mtx", text), options);
  if (!reader.ok()) return reader.status();
  uint64_t i, j;
  double v;
  while (reader->Next(&i, &j, &v)) {
  }
  return reader->status();
}

TEST_CASE("data: mm reader: entries stream in file order, values are checked when taken",
          "[data]") {
  TempDir dir;
  const std::string path = dir.Write("m.mtx",
                                     "%%MatrixMarket matrix coordinate integer general\n% note\n"
                                     "3 2 3\n3 1 7\n\n1 2 x\n2 2 +4\n");
  Result<MatrixMarketReader> reader = MatrixMarketReader::Open(path);
  REQUIRE(reader.ok());
  CHECK(reader->header().field == MatrixMarketHeader::Field::kInteger);
  CHECK(reader->header().size_line == 3);
  uint64_t i = 0, j = 0;
  double v = 0;
  REQUIRE(reader->Next(&i, &j, &v));
  CHECK((i == 3 && j == 1 && v == 7));
  CHECK(reader->line_number() == 4);
  REQUIRE(reader->NextCoordinate(&i, &j));  // "1 2 x": the bad value is not looked at
  CHECK((i == 1 && j == 2));
  REQUIRE(reader->Next(&i, &j, &v));
  CHECK((i == 2 && j == 2 && v == 4));
  CHECK_FALSE(reader->Next(&i, &j, &v));
  CHECK(reader->status().ok());

  const std::string header = "%%MatrixMarket matrix coordinate real general\n2 2 1\n";
  MatrixMarketReader::Options whole;
  whole.entry_name = "a rating";
  whole.whole_entry_errors = true;
  CHECK(ReadAllEntries(dir, header + "1 1 x\n", {}).message() ==
        dir.Path("r.mtx") + ":3: bad value 'x'");
  CHECK(ReadAllEntries(dir, header + "1 1 x\n", whole).message() ==
        dir.Path("r.mtx") + ":3: expected a rating 'i j v', got '1 1 x'");
  CHECK(ReadAllEntries(dir, header + "1 1 1 2\n", whole).message() ==
        dir.Path("r.mtx") + ":3: expected a rating 'i j v', got '1 1 1 2'");
  CHECK(ReadAllEntries(dir, header + "3 1 1\n", whole).message() ==
        dir.Path("r.mtx") + ":3: entry (3, 1) is outside the 2 x 2 matrix");
  CHECK(ReadAllEntries(dir, header + "1 1 1\n", whole).ok());
}

TEST_CASE("data: mm reader: array files, values in column-major order, errors at FILE:LINE",
          "[data]") {
  TempDir dir;
  MatrixMarketReader::Options array;
  array.format = MatrixMarketFormat::kArray;
  const std::string ok =
      dir.Write("a.mtx", "%%MatrixMarket matrix array real general\n% c\n2 2\n1\n2.5\n\n-3\n4e1\n");
  Result<MatrixMarketReader> reader = MatrixMarketReader::Open(ok, array);
  REQUIRE(reader.ok());
  CHECK((reader->header().rows == 2 && reader->header().cols == 2 && reader->header().nnz == 4));
  std::vector<double> values;
  double v;
  while (reader->NextValue(&v)) values.push_back(v);
  CHECK(reader->status().ok());
  CHECK(values == std::vector<double>{1, 2.5, -3, 40});

  struct Case {
    const char* text;
    const char* what;  // ":LINE: what"
  };
  const std::vector<Case> cases = {
      {"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n",
       ":1: only 'matrix array' is supported"},
      {"%%MatrixMarket matrix array pattern general\n1 1\n",
       ":1: field 'pattern' is not one of real, integer"},
      {"%%MatrixMarket matrix array real general\n", ":2: missing size line 'rows cols'"},
      {"%%MatrixMarket matrix array real general\n1 1 1\n", ":2: expected a size line 'rows cols'"},
      {"%%MatrixMarket matrix array real general\n4294967296 4294967296\n",
       ":2: a 4294967296 x 4294967296 array has too many values"},
      {"%%MatrixMarket matrix array real general\n1 1\nnan\n", ":3: expected one value"},
      {"%%MatrixMarket matrix array real general\n1 1\n1 2\n", ":3: expected one value"},
      {"%%MatrixMarket matrix array real general\n1 1\n1\n2\n",
       ":4: more than the 1 values declared on line 2"},
      {"%%MatrixMarket matrix array real general\n1 2\n1\n",
       ":2: declares 2 values but the file has 1"},
  };
  for (const Case& c : cases) {
    INFO("file: " << c.text);
    const std::string path = dir.Write("bad.mtx", c.text);
    Status st = [&] {
      Result<MatrixMarketReader> r = MatrixMarketReader::Open(path, array);
      if (!r.ok()) return r.status();
      double x;
      while (r->NextValue(&x)) {
      }
      return r->status();
    }();
    CHECK(st.code() == StatusCode::kInvalidArgument);
    CHECK_THAT(st.message(), Catch::StartsWith(path + c.what));
  }
}

TEST_CASE("data: mm: a repeated entry is rejected", "[data]") {
  TempDir dir;
  const std::string y = dir.Write("y.txt", "1\n2\n");
  const std::string x = dir.Write(
      "dup.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n2 1 1\n1 2 1\n2 1 5\n");
  ExpectInvalid({x, "", y}, x + ": entry (2, 1) appears more than once");
  const std::string sorted = dir.Write(
      "dup_sorted.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 1 1\n");
  ExpectInvalid({sorted, "", y}, sorted + ": entry (1, 1) appears more than once");
}

TEST_CASE("data: mm: a data set without a labels file is rejected", "[data]") {
  TempDir dir;
  const std::string x = dir.Write("m.mtx", kSmallMatrixMarket);
  ExpectInvalid({x, "", ""}, "labels");
}

TEST_CASE("data: ShardRows tiles rows 0 to total in order with sizes differing by at most one",
          "[data]") {
  for (uint64_t total : {0ull, 1ull, 5ull, 7ull, 100ull, 1000003ull}) {
    for (uint32_t parts : {1u, 2u, 3u, 7u, 16u}) {
      uint64_t next = 0;
      uint64_t smallest = UINT64_MAX, largest = 0;
      for (uint32_t rank = 0; rank < parts; ++rank) {
        RowRange r = ShardRows(total, rank, parts);
        CHECK(r.begin == next);
        CHECK(r.end >= r.begin);
        smallest = std::min(smallest, r.end - r.begin);
        largest = std::max(largest, r.end - r.begin);
        next = r.end;
      }
      CHECK(next == total);
      CHECK(largest - smallest <= 1);
    }
  }
  const uint64_t huge = uint64_t{1} << 62;
  CHECK(ShardRows(huge, 2, 3).end - ShardRows(huge, 2, 3).begin == huge / 3);
  CHECK(ShardRows(10, 3, 3).begin == 10);  // rank out of range: empty
  CHECK(ShardRows(10, 3, 3).end == 10);
}

// A random libsvm file and the same data as MatrixMarket plus labels.
struct RandomFiles {
  std::string libsvm, mm, mm_by_column, labels;  // mm has its entries shuffled
  Eigen::MatrixXd x;
  Eigen::VectorXd y;
};

RandomFiles WriteRandomFiles(const TempDir& dir, int rows, int cols) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  RandomFiles f;
  f.x = Eigen::MatrixXd::Zero(rows, cols);
  f.y.resize(rows);
  std::ostringstream svm, mm, labels;
  svm.precision(17);
  mm.precision(17);
  labels.precision(17);
  std::vector<std::string> entries;
  for (int i = 0; i < rows; ++i) {
    f.y[i] = u(rng);
    svm << f.y[i];
    labels << f.y[i] << "\n";
    if (i % 10 == 3) svm << " # note";
    for (int j = 0; j < cols; ++j) {
      if (i % 10 == 3 || u(rng) < 0.6) continue;
      f.x(i, j) = u(rng);
      svm << " " << j + 1 << ":" << f.x(i, j);
      std::ostringstream e;
      e.precision(17);
      e << i + 1 << " " << j + 1 << " " << f.x(i, j) << "\n";
      entries.push_back(e.str());
    }
    svm << "\n";
    if (i % 7 == 0) svm << "# comment\n\n";
  }
  std::shuffle(entries.begin(), entries.end(), rng);
  mm << "%%MatrixMarket matrix coordinate real general\n"
     << rows << " " << cols << " " << entries.size() << "\n";
  for (const std::string& e : entries) mm << e;
  std::ostringstream by_column;
  by_column.precision(17);
  by_column << "%%MatrixMarket matrix coordinate real general\n"
            << rows << " " << cols << " " << entries.size() << "\n";
  for (int j = 0; j < cols; ++j) {
    for (int i = 0; i < rows; ++i) {
      if (f.x(i, j) != 0) by_column << i + 1 << " " << j + 1 << " " << f.x(i, j) << "\n";
    }
  }
  f.mm_by_column = dir.Write("random_by_column.mtx", by_column.str());
  f.libsvm = dir.Write("random.svm", svm.str());
  f.mm = dir.Write("random.mtx", mm.str());
  f.labels = dir.Write("random_labels.txt", labels.str());
  return f;
}

TEST_CASE("data: shards over CountRows, concatenated, equal the full load, for libsvm and mm",
          "[data]") {
  TempDir dir;
  const int rows = 203, cols = 37;
  RandomFiles f = WriteRandomFiles(dir, rows, cols);
  for (const DataSource& src : {DataSource{f.libsvm, "", ""}, DataSource{f.mm, "", f.labels},
                                DataSource{f.mm_by_column, "", f.labels}}) {
    INFO(src.path);
    Result<uint64_t> total = CountRows(src);
    REQUIRE(total.ok());
    REQUIRE(*total == rows);
    Dataset full = MustLoad(src);
    CHECK(Dense(full.x) == f.x);
    CHECK(full.y == f.y);
    for (uint32_t parts : {1u, 2u, 5u, 8u}) {
      Eigen::MatrixXd joined = Eigen::MatrixXd::Zero(rows, cols);
      Eigen::VectorXd joined_y(rows);
      uint64_t next = 0;
      for (uint32_t rank = 0; rank < parts; ++rank) {
        Dataset shard = MustLoad(src, ShardRows(*total, rank, parts));
        CHECK(shard.first_row == next);
        CHECK(shard.total_rows == static_cast<uint64_t>(rows));
        REQUIRE(shard.x.cols() <= cols);
        const auto n = shard.x.rows();
        joined.block(next, 0, n, shard.x.cols()) = Dense(shard.x);
        joined_y.segment(next, n) = shard.y;
        next += n;
      }
      CHECK(next == static_cast<uint64_t>(rows));
      CHECK(joined == Dense(full.x));
      CHECK(joined_y == full.y);
    }
  }
}

TEST_CASE("data: lines longer than the read buffer are read whole", "[data]") {
  TempDir dir;
  std::string text = "2 1:1\n1";
  const int features = 600000;  // about 8 MB on one line, twice the initial buffer
  for (int j = 1; j <= features; ++j) {
    text += ' ';
    text += std::to_string(j);
    text += ":1.5";
  }
  text += "\n3 2:2\n";
  const std::string path = dir.Write("long.svm", text);
  Dataset ds = MustLoad({path, "", ""});
  REQUIRE(ds.x.rows() == 3);
  CHECK(ds.x.cols() == features);
  CHECK(ds.x.row(1).sum() == 1.5 * features);
  CHECK(ds.y[2] == 3);
}

TEST_CASE("data: LoadColumns keeps the selected columns of every row, at the file's full width",
          "[data]") {
  TempDir dir;
  const std::string svm = dir.Write("small.svm", kSmallLibsvm);
  const std::string mtx = dir.Write("m.mtx", kSmallMatrixMarket);
  const std::string labels = dir.Write("y.txt", kSmallLabels);
  const std::vector<ColumnRange> ranges = {{0, 1}, {4, 6}};
  for (const DataSource& src : {DataSource{svm, "", ""}, DataSource{mtx, "", labels}}) {
    CAPTURE(src.path);
    const Dataset all = MustLoad(src);
    Result<Dataset> some = LoadColumns(src, ranges);
    INFO(some.status().ToString());
    REQUIRE(some.ok());
    CHECK(some->total_rows == all.total_rows);
    CHECK(some->x.cols() == all.x.cols());
    CHECK(some->y == all.y);
    Eigen::MatrixXd expected = Dense(all.x);
    for (int64_t j = 0; j < expected.cols(); ++j) {
      if (!InRanges(ranges, static_cast<uint64_t>(j))) expected.col(j).setZero();
    }
    CHECK(Dense(some->x) == expected);
    CHECK(some->x.nonZeros() < all.x.nonZeros());
    Result<Dataset> none = LoadColumns(src, std::vector<ColumnRange>{{3, 3}});  // an empty range
    REQUIRE(none.ok());
    CHECK(none->x.nonZeros() == 0);
    CHECK(none->x.cols() == all.x.cols());
  }
}

TEST_CASE("data: CountColumnEntries counts the entries of every column as a full load holds them",
          "[data]") {
  TempDir dir;
  const std::string svm = dir.Write(
      "unordered.svm", "1 qid:3 7:1 2:0.5 # 9:9 comment\n\n-1 2:1 1:3\n# 8:8\n0 5:2 1:1 7:0\n");
  const std::string mtx = dir.Write("m.mtx", kSmallMatrixMarket);
  const std::string labels = dir.Write("y.txt", kSmallLabels);
  for (const DataSource& src : {DataSource{svm, "", ""}, DataSource{mtx, "", labels}}) {
    CAPTURE(src.path);
    const Dataset all = MustLoad(src);
    Result<std::vector<uint64_t>> counts = CountColumnEntries(src);
    INFO(counts.status().ToString());
    REQUIRE(counts.ok());
    REQUIRE(counts->size() == static_cast<size_t>(all.x.cols()));
    for (int64_t j = 0; j < all.x.cols(); ++j) {
      CHECK((*counts)[j] ==
            static_cast<uint64_t>(all.x.outerIndexPtr()[j + 1] - all.x.outerIndexPtr()[j]));
    }
    std::vector<double> sq_norms;
    uint64_t rows = 0;
    REQUIRE(CountColumnEntries(src, AvailableMemoryBytes(), &sq_norms, &rows).ok());
    CHECK(rows == all.total_rows);
    REQUIRE(sq_norms.size() == counts->size());
    for (int64_t j = 0; j < all.x.cols(); ++j) {
      CHECK(sq_norms[j] == Approx(all.x.col(j).squaredNorm()).epsilon(1e-15));
    }
  }
}

TEST_CASE("data: range readers over any byte cuts read every line once, and column counts add up",
          "[data]") {
  TempDir dir;
  // A comment, a blank line, CRLF, an empty data row, and a last line without a terminator.
  const std::string text =
      "1 qid:3 7:1 2:0.5 # 9:9 comment\n\n-1 2:1 1:3\r\n# 8:8\n0 5:2 1:1 7:0\n2\n-1 3:1 7:2";
  const std::string svm = dir.Write("cut.svm", text);
  std::vector<std::string> lines;
  {
    auto whole = LineReader::Open(svm);
    REQUIRE(whole.ok());
    std::string_view line;
    while (whole->Next(&line)) lines.emplace_back(line);
  }
  for (uint64_t cut = 0; cut <= text.size(); ++cut) {
    CAPTURE(cut);
    std::vector<std::string> got;
    for (auto [begin, end] : {std::pair<uint64_t, uint64_t>{0, cut}, {cut, ~0ull}}) {
      auto part = LineReader::Open(svm, begin, end);
      REQUIRE(part.ok());
      std::string_view line;
      while (part->Next(&line)) got.emplace_back(line);
    }
    CHECK(got == lines);
  }
  const DataSource src{svm, "", ""};
  uint64_t all_rows = 0;
  auto all = CountColumnEntries(src, AvailableMemoryBytes(), nullptr, &all_rows);
  REQUIRE(all.ok());
  for (uint32_t parts : {1u, 2u, 3u, 7u, 200u}) {
    CAPTURE(parts);
    std::vector<uint64_t> sum;
    uint64_t rows = 0;
    for (uint32_t p = 0; p < parts; ++p) {
      uint64_t part_rows = 0;
      auto counts = CountColumnEntriesPart(src, p, parts, &part_rows);
      REQUIRE(counts.ok());
      if (counts->size() > sum.size()) sum.resize(counts->size(), 0);
      for (size_t j = 0; j < counts->size(); ++j) sum[j] += (*counts)[j];
      rows += part_rows;
    }
    CHECK(sum == *all);
    CHECK(rows == all_rows);
  }
  // Over the reader's 4 MiB buffer: cuts near and across its refills.
  std::string big;
  for (int r = 0; big.size() < (size_t{9} << 20); ++r) {
    big += std::to_string(r % 3 - 1) + " " + std::to_string(1 + r % 97) + ":1 " +
           std::to_string(100 + r % 13) + ":0.5\n";
  }
  const std::string big_svm = dir.Write("big.svm", big);
  uint64_t big_rows = 0;
  auto big_all =
      CountColumnEntries(DataSource{big_svm, "", ""}, AvailableMemoryBytes(), nullptr, &big_rows);
  REQUIRE(big_all.ok());
  for (uint64_t cut : {uint64_t{1} << 22, (uint64_t{1} << 22) + 1, (uint64_t{1} << 22) - 1,
                       uint64_t{5000001}, uint64_t{8388608}}) {
    CAPTURE(cut);
    std::vector<uint64_t> sum(big_all->size(), 0);
    uint64_t rows = 0;
    for (auto [begin, end] : {std::pair<uint64_t, uint64_t>{0, cut}, {cut, ~0ull}}) {
      uint64_t part_rows = 0;
      auto counts =
          CountLibsvmColumns(big_svm, AvailableMemoryBytes(), nullptr, &part_rows, {begin, end});
      REQUIRE(counts.ok());
      for (size_t j = 0; j < counts->size(); ++j) sum[j] += (*counts)[j];
      rows += part_rows;
    }
    CHECK(sum == *big_all);
    CHECK(rows == big_rows);
  }
  // MatrixMarket: part 0 counts the whole file, the others nothing.
  const std::string mtx = dir.Write("m.mtx", kSmallMatrixMarket);
  const std::string labels = dir.Write("y.txt", kSmallLabels);
  const DataSource mm{mtx, "", labels};
  uint64_t mm_rows = 0;
  auto mm_all = CountColumnEntries(mm, AvailableMemoryBytes(), nullptr, &mm_rows);
  REQUIRE(mm_all.ok());
  uint64_t rows0 = 0, rows1 = 7;
  auto first = CountColumnEntriesPart(mm, 0, 2, &rows0);
  auto second = CountColumnEntriesPart(mm, 1, 2, &rows1);
  REQUIRE(first.ok());
  REQUIRE(second.ok());
  CHECK(*first == *mm_all);
  CHECK(rows0 == mm_rows);
  CHECK(second->empty());
  CHECK(rows1 == 0);
  uint64_t ignored = 0;
  CHECK(CountColumnEntriesPart(DataSource{dir.Path("absent.svm"), "", ""}, 0, 2, &ignored)
            .status()
            .code() == StatusCode::kNotFound);
}

TEST_CASE("data: CountColumnEntries refuses a huge feature id before allocating, as a load does",
          "[data]") {
  TempDir dir;
  const std::string svm = dir.Write("huge.svm", "1 1:1\n2 2147483647:1\n");
  const uint64_t one_gb = 1000 * 1000 * 1000;
  Result<std::vector<uint64_t>> counts = CountColumnEntries({svm, "", ""}, one_gb);
  REQUIRE_FALSE(counts.ok());
  CHECK_THAT(counts.status().message(),
             Catch::Contains("huge.svm: needs 25.8 GB for 2147483647 features"));
  Result<Dataset> load = LoadDataset({svm, "", ""}, {}, one_gb);
  REQUIRE_FALSE(load.ok());
  CHECK_THAT(load.status().message(), Catch::Contains("needs 25.8 GB for 2147483647 features"));
}

TEST_CASE(
    "data: a malformed value is skipped by the count and reported by the load that keeps its "
    "column",
    "[data]") {
  TempDir dir;
  const std::string svm = dir.Write("bad.svm", "1 1:1 2:0.5\n2 3:x\n");
  Result<std::vector<uint64_t>> counts = CountColumnEntries({svm, "", ""});
  REQUIRE(counts.ok());
  CHECK(counts->size() == 3);
  Result<Dataset> owner = LoadColumns({svm, "", ""}, std::vector<ColumnRange>{{2, 3}});
  REQUIRE_FALSE(owner.ok());
  CHECK_THAT(owner.status().message(), Catch::Contains("bad.svm:2: bad value in '3:x'"));
  // Another member checks only the id, and keeps its own columns.
  Result<Dataset> other = LoadColumns({svm, "", ""}, std::vector<ColumnRange>{{0, 2}});
  REQUIRE(other.ok());
  CHECK(other->x.cols() == 3);
  CHECK(other->x.nonZeros() == 2);
  // A malformed id is everyone's error.
  const std::string bad_id = dir.Write("bad-id.svm", "1 1:1 x:0.5\n");
  Result<Dataset> any = LoadColumns({bad_id, "", ""}, std::vector<ColumnRange>{{0, 1}});
  REQUIRE_FALSE(any.ok());
  CHECK_THAT(any.status().message(), Catch::Contains("bad-id.svm:1: bad feature id in 'x:0.5'"));
}

TEST_CASE("data: LoadColumns from the counts fills the columns directly, equal to a filtered load",
          "[data]") {
  TempDir dir;
  const std::string svm = dir.Write(
      "unordered.svm", "1 qid:3 7:1 2:0.5 # 9:9 comment\n\n-1 2:1 1:3\n# 8:8\n0 5:2 1:1 7:0\n");
  const DataSource src{svm, "", ""};
  uint64_t rows = 0;
  Result<std::vector<uint64_t>> counts =
      CountColumnEntries(src, AvailableMemoryBytes(), nullptr, &rows);
  REQUIRE(counts.ok());
  for (const std::vector<ColumnRange>& ranges :
       {std::vector<ColumnRange>{{0, 7}}, std::vector<ColumnRange>{{0, 1}, {4, 7}},
        std::vector<ColumnRange>{{2, 2}}}) {
    Result<Dataset> filtered = LoadColumns(src, ranges);
    Result<Dataset> direct = LoadColumns(src, ranges, *counts, rows);
    INFO(direct.status().ToString());
    REQUIRE(filtered.ok());
    REQUIRE(direct.ok());
    CHECK(direct->total_rows == filtered->total_rows);
    CHECK(direct->y == filtered->y);
    CHECK(direct->x.cols() == filtered->x.cols());
    CHECK(Dense(direct->x) == Dense(filtered->x));
    CHECK(direct->x.nonZeros() == filtered->x.nonZeros());
  }
  // Counts of another file: the load notices instead of writing past a column.
  const std::string other = dir.Write("other.svm", "1 1:1 2:1\n2 1:1\n-1 2:1 1:3\n");
  Result<Dataset> changed =
      LoadColumns({other, "", ""}, std::vector<ColumnRange>{{0, 7}}, *counts, rows);
  REQUIRE_FALSE(changed.ok());
  CHECK_THAT(changed.status().message(), Catch::Contains("other.svm: changed while loading"));
}

TEST_CASE("data: moving a Dataset hands over the matrix's storage instead of copying it",
          "[data]") {
  TempDir dir;
  Dataset a = MustLoad({dir.Write("small.svm", kSmallLibsvm), "", ""});
  const Eigen::MatrixXd before = Dense(a.x);
  const double* values = a.x.valuePtr();
  Dataset b(std::move(a));
  CHECK(b.x.valuePtr() == values);  // Eigen 3.4's own "move" would have copied
  CHECK(Dense(b.x) == before);
  Dataset c;
  c = std::move(b);
  CHECK(c.x.valuePtr() == values);
  CHECK(Dense(c.x) == before);
  CHECK(c.y.size() == 4);
}

TEST_CASE("data: TokenEnd, eight bytes at a time, stops where the byte-by-byte scan stops",
          "[data]") {
  // Token bytes, every IsSpace character, control bytes that are not spaces (0x00 too), the
  // first byte above the separators ('!'), and high bytes where a borrow could go wrong.
  const std::string alphabet = std::string("0123456789.:-+eE! \t\r\v\f\x01\x1f\x7f") +
                               std::string(1, '\0') + "\x80\xa0\xa1\xff\xc3\xa9";
  std::mt19937 rng(7);
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> length(0, 40);
  size_t checked = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string s(static_cast<size_t>(length(rng)), ' ');
    for (char& c : s) c = rng() % 4 == 0 ? alphabet[pick(rng)] : '7';  // long tokens too
    const char* end = s.data() + s.size();
    for (const char* p = s.data(); p <= end; ++p) {
      const char* slow = p;
      while (slow < end && !IsSpace(*slow)) ++slow;
      REQUIRE(TokenEnd(p, end) == slow);
      ++checked;
    }
  }
  CHECK(checked > 200000);
}

TEST_CASE("huge pages: only the whole 2 MB pages inside a range are marked", "[data]") {
  constexpr uintptr_t kMb = uintptr_t{1} << 20;
  const auto span = [](uintptr_t begin, size_t bytes) {
    const HugePageSpan s = WholeHugePages(begin, bytes);
    return std::pair<uintptr_t, size_t>(s.start, s.length);
  };
  using P = std::pair<uintptr_t, size_t>;
  CHECK(span(10 * kMb, 2 * kMb) == P(10 * kMb, 2 * kMb));      // exactly one page
  CHECK(span(10 * kMb + 1, 7 * kMb) == P(12 * kMb, 4 * kMb));  // rounded inwards
  CHECK(span(10 * kMb + 1, 2 * kMb) == P(0, 0));               // no whole page inside
  CHECK(span(10 * kMb, 2 * kMb - 1) == P(0, 0));               // one byte short
  CHECK(span(11 * kMb, 3 * kMb) == P(12 * kMb, 2 * kMb));      // a page in the middle
  CHECK(span(0, 8 * kMb) == P(0, 0));                          // null
  CHECK(span(10 * kMb, 0) == P(0, 0));                         // empty
  // On real memory: the kernel marks that span or refuses (a kernel without THP), and moving
  // touched pages onto huge pages keeps their contents.
  void* mapped =
      mmap(nullptr, 10 * kMb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mapped != MAP_FAILED);
  char* base = static_cast<char*>(mapped);
  const size_t marked = AdviseHugePages(base + 1, 7 * kMb);
  CHECK((marked == 0 || marked == span(reinterpret_cast<uintptr_t>(base) + 1, 7 * kMb).second));
  CHECK(AdviseHugePages(base, kMb) == 0);
  for (size_t k = 0; k < 10 * kMb; ++k) base[k] = static_cast<char>(k % 251);
  CollapseHugePages(base, 10 * kMb);
  size_t wrong = 0;
  for (size_t k = 0; k < 10 * kMb; ++k) wrong += base[k] != static_cast<char>(k % 251);
  CHECK(wrong == 0);
  munmap(mapped, 10 * kMb);
}

}  // namespace

}  // namespace strads
