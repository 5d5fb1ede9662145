// Bad input never hangs (issue 10): error text that crosses the wire is valid UTF-8 and quotes
// at most a short token of the file, a shard that would not fit in memory is refused before it is
// allocated, and job paths are made absolute where the user typed them.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

#include "apps/lda.pb.h"
#include "apps/mf.pb.h"
#include "test/temp_dir.h"
#include "test/wait_until.h"

#include "apps/builtin_apps.h"
#include "common/background_load.h"
#include "common/data_loader.h"
#include "common/line_reader.h"
#include "common/load_cancellation.h"
#include "common/memory_budget.h"
#include "common/protocol.h"
#include "common/wire_text.h"
#include "engine/app_params.h"
#include "engine/job_spec.h"

namespace strads {
namespace {

using strads::testing::TempDir;

// True when protobuf accepts `text` in a string field on the receiving side.
bool SurvivesTheWire(const std::string& text) {
  auto e = MakeEnvelope("worker-0", 1);
  e.mutable_job_failed()->set_error(text);
  std::string bytes;
  if (!e.SerializeToString(&bytes)) return false;
  proto::Envelope back;
  return back.ParseFromString(bytes) && back.job_failed().error() == text;
}

// Every byte value, and the classic broken sequences.
std::string Garbage() {
  std::string s;
  for (int b = 0; b < 256; ++b) s += static_cast<char>(b);
  s += "\xc0\xaf";          // overlong '/'
  s += "\xed\xa0\x80";      // a surrogate
  s += "\xf4\x90\x80\x80";  // above U+10FFFF
  s += "\xe2\x82";          // truncated
  return s;
}

}  // namespace

TEST_CASE("WireText: any bytes become text protobuf accepts, printable UTF-8 is kept as is",
          "[hostile]") {
  const std::string garbage = Garbage();
  REQUIRE_FALSE(SurvivesTheWire(garbage));  // what the escaping is for
  const std::string text = WireText(garbage);
  CHECK(SurvivesTheWire(text));
  CHECK_THAT(text, Catch::Contains("\\x00") && Catch::Contains("\\x7f") &&
                       Catch::Contains("\\xc0\\xaf") && Catch::Contains("\\xed\\xa0\\x80"));
  CHECK(WireText("x.svm:3: bad label 'é€😀'") == "x.svm:3: bad label 'é€😀'");
  CHECK(WireText("a\nb\tc\x1b[2J") == "a\\x0ab\\x09c\\x1b[2J");
}

TEST_CASE("WireText: cuts long text at a character boundary, marked with ...", "[hostile]") {
  CHECK(WireText("abcdef", 6) == "abcdef");
  CHECK(WireText("abcdefg", 6) == "abc...");
  CHECK(WireText("\x01\x02\x03", 8) == "\\x01...");
  const std::string cut = WireText(std::string(10000, '\xff'));
  CHECK(cut.size() <= kMaxWireTextBytes);
  CHECK(SurvivesTheWire(cut));
}

TEST_CASE(
    "a binary file as libsvm data fails at its first line with an error that survives the "
    "wire",
    "[hostile]") {
  TempDir dir;
  std::string binary =
      "\x7f"
      "ELF\x02\x01\x01";
  for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 131 + 7) % 256);
  const std::string path = dir.Write("garbage.bin", binary);
  Result<Dataset> ds = LoadDataset({path, "", ""}, {});
  REQUIRE_FALSE(ds.ok());
  INFO(ds.status().message());
  CHECK_THAT(ds.status().message(), Catch::StartsWith(path + ":1: bad label '\\x7fELF\\x02"));
  CHECK(SurvivesTheWire(WireText(ds.status().message())));
}

TEST_CASE("an error quotes at most 16 bytes of the offending token, never the line", "[hostile]") {
  TempDir dir;
  const std::string path =
      dir.Write("shadow", "root:$y$j9T$SALTSALTSALT$SECRETHASHSECRETHASH:19000:0:99999:7:::\n");
  Result<Dataset> ds = LoadDataset({path, "", ""}, {});
  REQUIRE_FALSE(ds.ok());
  INFO(ds.status().message());
  CHECK(ds.status().message() == path + ":1: bad label 'root:$y$j9T$SALT...'");
  const std::string two = dir.Write("two.svm", "1 2:0.5 3:oops 4:SECRET\n");
  ds = LoadDataset({two, "", ""}, {});
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() == two + ":1: bad value in '3:oops'");
}

TEST_CASE(
    "a feature id beyond the host's memory is refused before allocating, saying what it needs",
    "[hostile]") {
  TempDir dir;
  const std::string path = dir.Write("huge.svm", "1 1:1 2147483647:1\n-1 2:1\n");
  const uint64_t available = uint64_t{22800} * 1000 * 1000;  // 22.8 GB
  Result<Dataset> ds = LoadDataset({path, "", ""}, {}, available);
  REQUIRE_FALSE(ds.ok());
  CHECK(ds.status().message() ==
        path +
            ": needs 25.8 GB for 2147483647 features (the largest feature id; ids are not "
            "remapped); 22.8 GB available");
  // The same file loads where the memory is there (ids as they are: no remapping).
  const std::string small = dir.Write("sparse.svm", "1 1:1 100000:1\n-1 2:1\n");
  ds = LoadDataset({small, "", ""}, {}, available);
  REQUIRE(ds.ok());
  CHECK(ds->x.cols() == 100000);
  ds = LoadDataset({small, "", ""}, {}, 1000);
  REQUIRE_FALSE(ds.ok());
  CHECK_THAT(ds.status().message(), Catch::Contains("needs 1.2 MB for 100000 features"));
}

TEST_CASE("a MatrixMarket header declaring billions of columns is refused before allocating",
          "[hostile]") {
  TempDir dir;
  const std::string x = dir.Write(
      "x.mtx", "%%MatrixMarket matrix coordinate real general\n2 2000000000 1\n1 1 1.0\n");
  const std::string y = dir.Write("y.txt", "1\n2\n");
  Result<Dataset> ds = LoadDataset({x, "mm", y}, {}, uint64_t{1} << 30);
  REQUIRE_FALSE(ds.ok());
  CHECK_THAT(ds.status().message(),
             Catch::StartsWith(x + ": needs 24.0 GB for 2000000000 columns (the header's)"));
  // Where the memory is there, a shard's rows past the 32-bit indices are refused before the
  // entries are read (the header's columns past them are refused by the header's own check).
  const std::string tall = dir.Write(
      "tall.mtx", "%%MatrixMarket matrix coordinate real general\n3000000000 2 1\n1 1 1.0\n");
  ds = LoadDataset({tall, "mm", y}, {}, uint64_t{1} << 50);
  REQUIRE_FALSE(ds.ok());
  CHECK_THAT(ds.status().message(),
             Catch::StartsWith(tall + ": 3000000000 rows for one member, more than the "
                                      "2147483647 one can index"));
}

TEST_CASE(
    "a member's matrix past the 32-bit indices (rows, columns or entries) is refused with what "
    "to do",
    "[hostile]") {
  CHECK(CheckIndexable("x.svm", kMaxIndex, kMaxIndex, kMaxIndex).ok());
  const Status rows = CheckIndexable("x.svm", kMaxIndex + 1, 10, 10);
  CHECK(rows.code() == StatusCode::kInvalidArgument);
  CHECK(rows.message() ==
        "x.svm: 2147483648 rows for one member, more than the 2147483647 one can index; each "
        "worker holds every row, so the file must have fewer");
  CHECK(CheckIndexable("x.svm", 10, uint64_t{1} << 32, 10).message() ==
        "x.svm: 4294967296 columns for one member, more than the 2147483647 one can index; "
        "renumber the features");
  CHECK(CheckIndexable("x.svm", 10, 10, uint64_t{3} << 30).message() ==
        "x.svm: 3221225472 non-zero entries for one member, more than the 2147483647 one can "
        "index; more workers each hold fewer");
}

TEST_CASE("MemoryBudget: MemAvailable is read from /proc/meminfo, estimates saturate",
          "[hostile]") {
  const uint64_t available = AvailableMemoryBytes();
  CHECK(available > 0);
  CHECK(available != kUnknownMemory);
  CHECK(SaturatingMulAdd(UINT64_MAX / 2, 3, 1) == UINT64_MAX);
  CHECK(SaturatingMulAdd(2, 3, UINT64_MAX) == UINT64_MAX);
  CHECK(CheckMemory("f", 10, "x", kUnknownMemory).ok());
  CHECK(FormatBytes(17179869184) == "17.2 GB");
}

TEST_CASE("job paths typed relative are made absolute against the caller's directory",
          "[hostile]") {
  TempDir dir;
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.Path(""));
  const AppRegistry apps = BuiltinApps();
  auto lasso = ParseJobSpec(
      apps, "lasso", {"--data", "x.mtx", "--labels", "sub/y.txt", "--lambda", "1"}, {}, nullptr);
  auto lda = ParseJobSpec(apps, "lda", {"--data", "d.txt", "--vocab", "../v.txt"}, {}, nullptr);
  auto mf = ParseJobSpec(apps, "mf", {"--data", "r.mtx", "--test", "t.mtx"}, {}, nullptr);
  std::filesystem::current_path(cwd);
  REQUIRE(lasso.ok());
  REQUIRE(lda.ok());
  REQUIRE(mf.ok());
  const auto here = [&](const std::string& name) {
    return (std::filesystem::path(dir.Path("")) / name).string();
  };
  CHECK(lasso->data_path() == here("x.mtx"));
  CHECK(lasso->dynamic().labels_path() == here("sub/y.txt"));
  CHECK(lda->data_path() == here("d.txt"));
  CHECK(AppParams<proto::LdaSpec>(*lda)->vocab_path() == here("../v.txt"));
  CHECK(AppParams<proto::MfSpec>(*mf)->test_path() == here("t.mtx"));
}

TEST_CASE("a reader whose load was abandoned stops at its next buffer refill, Cancelled",
          "[hostile][cancel]") {
  testing::TempDir dir;
  std::string rows;
  for (int i = 0; i < 200000; ++i) rows += "1 1:0.5 2:0.25 3:0.125 4:1 5:2\n";  // ~6 MB
  const auto path = dir.Write("big.svm", rows);
  auto flag = std::make_shared<std::atomic<bool>>(false);
  ScopedLoadCancellation scope(flag);
  auto reader = LineReader::Open(path);
  REQUIRE(reader.ok());
  std::string_view line;
  REQUIRE(reader->Next(&line));
  flag->store(true);  // the job ended while its file was being read
  uint64_t lines = 1;
  while (reader->Next(&line)) ++lines;
  CHECK(lines < 200000);  // the first 4 MB buffer, not the whole file
  CHECK(reader->status().code() == StatusCode::kCancelled);
  CHECK_THAT(reader->status().message(), Catch::Contains("big.svm: the load was cancelled"));
}

TEST_CASE("an abandoned background load ends early instead of running to the end",
          "[hostile][cancel]") {
  testing::TempDir dir;
  const auto path = dir.Write("rows.txt", std::string(8 << 20, 'x') + "\n");
  std::atomic<int> passes{0};
  BackgroundLoad<int> load;
  // Reads the file again and again: without cancellation it would never end.
  load.Start(
      [&passes](const std::string& p) -> Result<int> {
        while (true) {
          auto reader = LineReader::Open(p);
          if (!reader.ok()) return reader.status();
          std::string_view line;
          while (reader->Next(&line)) {
          }
          if (!reader->status().ok()) return reader->status();
          ++passes;
        }
      },
      path);
  REQUIRE(testing::WaitUntil([&] { return passes.load() > 0; }));
  load.Abandon();
  CHECK(testing::WaitUntil([&] { return !load.Busy(); }));
}

}  // namespace strads
