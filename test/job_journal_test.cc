// JobJournal (coordinator/job_journal.h) and WriteFileAtomically (common/atomic_file.h): the
// coordinator's job table on disk, without a coordinator or a socket.
#include <catch2/catch.hpp>

#include <sys/resource.h>

#include <csignal>
#include <filesystem>

#include "common/atomic_file.h"
#include "coordinator/job_journal.h"
#include "temp_dir.h"

namespace strads {
namespace {

using testing::TempDir;

proto::JobRecord Record(uint64_t id, proto::JobState state) {
  proto::JobRecord r;
  r.mutable_info()->set_job_id(id);
  r.mutable_info()->set_app("lasso");
  r.mutable_info()->set_state(state);
  r.mutable_info()->mutable_spec()->set_app("lasso");
  r.mutable_info()->mutable_spec()->set_data_path("/data/x.svm");
  r.set_submitter("client@host:1");
  r.set_submitted_unix_s(1700000000.5);
  return r;
}

}  // namespace

TEST_CASE("JobJournal: records written are recovered with spec, state, submitter and cause",
          "[journal]") {
  TempDir dir;
  JobJournal journal(dir.Path("work"));
  auto failed = Record(2, proto::JOB_FAILED);
  failed.mutable_info()->set_error("worker w stopped responding");
  failed.set_finished_unix_s(1700000100);
  REQUIRE(journal.Write(Record(1, proto::JOB_SUCCEEDED)).ok());
  REQUIRE(journal.Write(failed).ok());
  REQUIRE(journal.Write(Record(3, proto::JOB_QUEUED)).ok());
  auto queued_later = Record(3, proto::JOB_CANCELLED);  // a rewrite replaces the record
  REQUIRE(journal.Write(queued_later).ok());

  const auto recovered = JobJournal(dir.Path("work")).Recover();
  REQUIRE(recovered.ok());
  CHECK(recovered->problems.empty());
  REQUIRE(recovered->records.size() == 3);
  CHECK(recovered->records[0].info().state() == proto::JOB_SUCCEEDED);
  CHECK(recovered->records[1].info().error() == "worker w stopped responding");
  CHECK(recovered->records[1].finished_unix_s() == 1700000100);
  CHECK(recovered->records[1].submitter() == "client@host:1");
  CHECK(recovered->records[1].info().spec().data_path() == "/data/x.svm");
  CHECK(recovered->records[2].info().state() == proto::JOB_CANCELLED);
  CHECK(recovered->next_job_id == 4);
  CHECK_FALSE(std::filesystem::exists(journal.RecordPath(3).string() + ".tmp"));
}

TEST_CASE("JobJournal: an empty work dir starts at job 1", "[journal]") {
  TempDir dir;
  const auto recovered = JobJournal(dir.Path("fresh")).Recover();
  REQUIRE(recovered.ok());
  CHECK(recovered->records.empty());
  CHECK(recovered->next_job_id == 1);
  CHECK(std::filesystem::is_directory(dir.Path("fresh/journal")));
}

TEST_CASE("JobJournal: a torn or corrupt record is reported with its file and skipped",
          "[journal][faults]") {
  TempDir dir;
  JobJournal journal(dir.Path("work"));
  REQUIRE(journal.Write(Record(1, proto::JOB_SUCCEEDED)).ok());
  REQUIRE(journal.Write(Record(2, proto::JOB_SUCCEEDED)).ok());
  REQUIRE(journal.Write(Record(3, proto::JOB_SUCCEEDED)).ok());
  REQUIRE(journal.Write(Record(4, proto::JOB_SUCCEEDED)).ok());
  const std::string whole = EncodeJobRecord(Record(2, proto::JOB_SUCCEEDED));
  // 2: cut in the middle of its payload; 3: one payload byte flipped; 4: cut inside the header.
  REQUIRE(WriteFileAtomically(journal.RecordPath(2), whole.substr(0, whole.size() - 5)).ok());
  std::string flipped = EncodeJobRecord(Record(3, proto::JOB_SUCCEEDED));
  flipped.back() ^= 0x20;
  REQUIRE(WriteFileAtomically(journal.RecordPath(3), flipped).ok());
  REQUIRE(WriteFileAtomically(journal.RecordPath(4), whole.substr(0, 6)).ok());
  dir.Write("work/journal/notes.txt", "hello");

  const auto recovered = journal.Recover();
  REQUIRE(recovered.ok());
  REQUIRE(recovered->records.size() == 1);
  CHECK(recovered->records[0].info().job_id() == 1);
  std::map<std::string, std::string> problems;
  for (const auto& p : recovered->problems) problems[p.file] = p.reason;
  CHECK_THAT(problems[journal.RecordPath(2).string()], Catch::Contains("torn record"));
  CHECK_THAT(problems[journal.RecordPath(3).string()], Catch::Contains("checksum mismatch"));
  CHECK_THAT(problems[journal.RecordPath(4).string()], Catch::Contains("shorter than"));
  CHECK_THAT(problems[dir.Path("work/journal/notes.txt")], Catch::Contains("not a job record"));
  // The damaged records' ids stay taken.
  CHECK(recovered->next_job_id == 5);
}

TEST_CASE("JobJournal: ids continue above every record, temp file and result dir ever written",
          "[journal]") {
  TempDir dir;
  JobJournal journal(dir.Path("work"));
  REQUIRE(journal.Write(Record(3, proto::JOB_SUCCEEDED)).ok());
  // The next id after a recovery, which must succeed.
  auto next_id = [&journal]() -> uint64_t {
    const auto recovered = journal.Recover();
    REQUIRE(recovered.ok());
    return recovered->next_job_id;
  };
  SECTION("a write interrupted before its rename") {
    dir.Write("work/journal/7.job.tmp", "half a rec");
    CHECK(next_id() == 8);
  }
  SECTION("results whose record was lost") {
    std::filesystem::create_directories(dir.Path("work/jobs/12"));
    CHECK(next_id() == 13);
  }
  SECTION("nothing else") { CHECK(next_id() == 4); }
}

TEST_CASE("JobJournal: result files written are read back by the names the record keeps",
          "[journal]") {
  TempDir dir;
  JobJournal journal(dir.Path("work"));
  std::vector<proto::ResultFile> files(2);
  files[0].set_name("coefficients.tsv");
  files[0].set_content(std::string("1\t0.5\n\0binary", 14));
  files[1].set_name("summary.json");
  files[1].set_content("{}");
  auto written = journal.WriteResults(5, files);
  REQUIRE(written.ok());
  auto record = Record(5, proto::JOB_SUCCEEDED);
  record.set_result_dir(*written);
  for (const auto& f : files) record.add_result_files(f.name());
  const auto read = journal.ReadResults(record);
  REQUIRE(read.ok());
  REQUIRE(read->size() == 2);
  CHECK(read.value()[0].content() == files[0].content());
  CHECK(read.value()[1].name() == "summary.json");

  std::filesystem::remove(std::filesystem::path(*written) / "summary.json");
  const auto lost = journal.ReadResults(record);
  REQUIRE_FALSE(lost.ok());
  CHECK_THAT(lost.status().message(), Catch::Contains("summary.json"));

  files[0].set_name("../escape");
  CHECK_FALSE(journal.WriteResults(6, files).ok());
}

TEST_CASE("DecodeJobRecord: bytes that are not a record are refused, never parsed", "[journal]") {
  CHECK_THAT(DecodeJobRecord("").status().message(), Catch::Contains("shorter than"));
  CHECK_THAT(DecodeJobRecord("XXXXXXXXaaaabbbb").status().message(), Catch::Contains("bad magic"));
  const std::string ok = EncodeJobRecord(Record(9, proto::JOB_QUEUED));
  CHECK(DecodeJobRecord(ok)->info().job_id() == 9);
  CHECK_THAT(DecodeJobRecord(ok + "x").status().message(), Catch::Contains("torn record"));
}

TEST_CASE("WriteFileAtomically: replaces the content and reports an unwritable path", "[journal]") {
  TempDir dir;
  const std::string p = dir.Write("f", "old");
  REQUIRE(WriteFileAtomically(p, "new content").ok());
  CHECK(ReadWholeFile(p).value() == "new content");
  const Status st = WriteFileAtomically(dir.Path("no/such/dir/f"), "x");
  CHECK(st.code() == StatusCode::kIoError);
  CHECK_THAT(st.message(), Catch::Contains("no/such/dir/f.tmp"));
  CHECK(ReadWholeFile(dir.Path("missing")).status().code() == StatusCode::kNotFound);
}

TEST_CASE("WriteFileAtomically: a write the disk refuses leaves the old file and no PATH.tmp",
          "[journal][faults]") {
  TempDir dir;
  const std::string p = dir.Write("f", "old");
  // A real write failure without a small file system: files may not grow past 4 KB (EFBIG, as
  // ENOSPC on a full disk).
  struct rlimit saved {};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &saved) == 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const Status st = WriteFileAtomically(p, std::string(1 << 20, 'x'));
  REQUIRE(setrlimit(RLIMIT_FSIZE, &saved) == 0);
  std::signal(SIGXFSZ, previous);
  CHECK(st.code() == StatusCode::kIoError);
  CHECK_THAT(st.message(),
             Catch::Contains("cannot write") && Catch::Contains("f.tmp: File too large"));
  CHECK(ReadWholeFile(p).value() == "old");
  CHECK_FALSE(std::filesystem::exists(p + ".tmp"));
}

TEST_CASE("JobJournal: start-up removes the .tmp files of interrupted writes, keeping their ids",
          "[journal][faults]") {
  TempDir dir;
  JobJournal journal(dir.Path("work"));
  REQUIRE(journal.Write(Record(1, proto::JOB_SUCCEEDED)).ok());
  const std::string big(1 << 16, 'x');
  dir.Write("work/journal/7.job.tmp", big);
  std::filesystem::create_directories(dir.Path("work/jobs/1"));
  dir.Write("work/jobs/1/checkpoint.new.tmp", big);
  dir.Write("work/jobs/1/doc_topic.mtx.tmp", big);
  dir.Write("work/jobs/1/coefficients.tsv", "kept");
  const auto recovered = JobJournal(dir.Path("work")).Recover();
  REQUIRE(recovered.ok());
  CHECK(recovered->removed_temp_files == 3);
  CHECK(recovered->next_job_id == 8);  // 7 was used by the interrupted write
  CHECK_FALSE(std::filesystem::exists(dir.Path("work/journal/7.job.tmp")));
  CHECK_FALSE(std::filesystem::exists(dir.Path("work/jobs/1/doc_topic.mtx.tmp")));
  CHECK(std::filesystem::exists(dir.Path("work/jobs/1/coefficients.tsv")));
}

}  // namespace strads
