// What the CLI shows (cli/fitted_line.h, cli/text_table.h, cli/job_view.h, cli/status_view.h):
// the progress line and the status tables fitted to a width, columns per engine, and the JSON of
// `strads status --json`. Pure functions of their inputs; no sockets, no terminal.
#include <catch2/catch.hpp>

#include <sstream>

#include <google/protobuf/text_format.h>

#include "cli/fitted_line.h"
#include "cli/job_view.h"
#include "cli/status_view.h"
#include "cli/text_table.h"

using namespace strads;

namespace {

size_t WidestLine(const std::string& text) {
  std::istringstream in(text);
  size_t widest = 0;
  for (std::string line; std::getline(in, line);) widest = std::max(widest, DisplayWidth(line));
  return widest;
}

proto::JobInfo ParseJob(const std::string& text) {
  proto::JobInfo j;
  REQUIRE(google::protobuf::TextFormat::ParseFromString(text, &j));
  return j;
}

proto::JobInfo DynamicJob() {
  return ParseJob(R"pb(
    job_id: 12
    app: "lasso"
    state: JOB_RUNNING
    round: 123456
    updates: 18900393
    updates_per_s: 1234567
    objective: 1234.56789012
    violation: 1.5e-4
    seconds: 12.34
    spec { dynamic { schedule: SCHEDULE_DYNAMIC } }
  )pb");
}

proto::JobInfo LdaJob() {
  return ParseJob(R"pb(
    job_id: 13
    app: "lda"
    state: JOB_RUNNING
    round: 39
    updates: 18900393
    updates_per_s: 2.5e6
    objective: -7.26
    objective_name: "loglik_per_token"
    work_unit: "tokens"
    iteration: 3
    imbalance: 1.07
    violation: -1
    worker_seconds: [ 0.12, 0.1 ]
    seconds: 40
    spec { static_engine { iterations: 30 } }
  )pb");
}

}  // namespace

TEST_CASE("FitLine: everything when it fits, joined by single spaces", "[cli_view]") {
  const std::vector<LineField> fields = {{"job 1", 0}, {"round 5", 2}, {"objective 3", 0}};
  CHECK(FitLine(fields, 80) == "job 1 round 5 objective 3");
  CHECK(FitLine(fields, 0) == "job 1 round 5 objective 3");
  CHECK(FitLine(fields, 25) == "job 1 round 5 objective 3");
}

TEST_CASE("FitLine: drops the least important fields first, the rightmost among equals",
          "[cli_view]") {
  const std::vector<LineField> fields = {
      {"aaaa", 0}, {"bbbb", 2}, {"cccc", 1}, {"dddd", 2}, {"eeee", 0}};
  CHECK(FitLine(fields, 24) == "aaaa bbbb cccc dddd eeee");
  CHECK(FitLine(fields, 23) == "aaaa bbbb cccc eeee");  // dddd: priority 2, rightmost
  CHECK(FitLine(fields, 18) == "aaaa cccc eeee");
  CHECK(FitLine(fields, 14) == "aaaa cccc eeee");
  CHECK(FitLine(fields, 13) == "aaaa eeee");
  // Priority 0 is never dropped; a line of them alone is cut.
  CHECK(FitLine(fields, 7) == "aaaa ee");
}

TEST_CASE("FitLine: widths count characters, not UTF-8 bytes", "[cli_view]") {
  CHECK(DisplayWidth("λ_max ≤ 1") == 9);
  CHECK(CutToWidth("λλλλ", 2) == "λλ");
  CHECK(FitLine({{"λλλ", 0}, {"μ", 1}}, 5) == "λλλ μ");
  CHECK(FitLine({{"λλλ", 0}, {"μ", 1}}, 4) == "λλλ");
}

TEST_CASE("Progress line: 80 columns hold a dynamic and a static job's essentials", "[cli_view]") {
  for (const auto& job : {DynamicJob(), LdaJob()}) {
    const std::string full = FitLine(ProgressFields(job), 0);
    const std::string fitted = FitLine(ProgressFields(job), 79);
    INFO(full);
    INFO(fitted);
    CHECK(DisplayWidth(full) > 79);  // the case this is about
    CHECK(DisplayWidth(fitted) <= 79);
    CHECK_THAT(fitted, Catch::StartsWith(job.app() == "lda" ? "job 13 RUNNING" : "job 12 RUNNING"));
  }
  const std::string dynamic = FitLine(ProgressFields(DynamicJob()), 79);
  CHECK_THAT(dynamic, Catch::Contains("objective 1234.5679") && Catch::Contains("violation"));
  const std::string lda = FitLine(ProgressFields(LdaJob()), 79);
  CHECK_THAT(lda, Catch::Contains("iteration 3/30") && Catch::Contains("loglik_per_token -7.26") &&
                      Catch::Contains("tokens/s"));
}

TEST_CASE("TextTable: columns as wide as their widest cell, least important left out to fit",
          "[cli_view]") {
  TextTable t;
  t.AddColumn("ID", TextTable::Align::kRight, 0);
  t.AddColumn("NAME", TextTable::Align::kLeft, 0);
  t.AddColumn("DETAIL", TextTable::Align::kLeft, 2);
  t.AddColumn("N", TextTable::Align::kRight, 1);
  t.AddRow({"1", "alpha", "a long detail", "10"});
  t.AddRow({"22", "b", "", "7"});
  CHECK(t.Render(0) ==
        "ID  NAME   DETAIL          N\n"
        " 1  alpha  a long detail  10\n"
        "22  b                      7\n");
  CHECK(t.Render(28) == t.Render(0));
  CHECK(t.Render(27) ==
        "ID  NAME    N\n"
        " 1  alpha  10\n"
        "22  b       7\n");
  CHECK(t.Render(10) ==
        "ID  NAME\n"
        " 1  alpha\n"
        "22  b\n");
}

TEST_CASE("Status: dynamic and static jobs in separate tables, named for what they hold",
          "[cli_view]") {
  proto::StatusReply s;
  *s.add_jobs() = DynamicJob();
  *s.add_jobs() = LdaJob();
  const std::string text = RenderJobs(s, 0);
  INFO(text);
  CHECK_THAT(text, Catch::Contains("ROUND") && Catch::Contains("UPDATES/S") &&
                       Catch::Contains("VIOLATION") && Catch::Contains("1.50e-04"));
  CHECK_THAT(text, Catch::Contains("ITERATION") && Catch::Contains("SUB-ROUNDS") &&
                       Catch::Contains("TOKENS/S") && Catch::Contains("LOGLIK/TOKEN") &&
                       Catch::Contains("IMBALANCE") && Catch::Contains("WORKER-S") &&
                       Catch::Contains("3/30") && Catch::Contains("0.12/0.1"));
  // The lda row is not under the lasso headers.
  const auto lda_header = text.find("ITERATION");
  const auto lda_row = text.find(" lda ");
  REQUIRE(lda_header != std::string::npos);
  CHECK(lda_row > lda_header);
  CHECK(text.find("ROUND") < text.find(" lasso "));
  CHECK(text.find(" lasso ") < lda_header);
}

TEST_CASE("Status: every table fits 80 columns, errors follow on their own lines", "[cli_view]") {
  proto::StatusReply s;
  s.set_uptime_s(100);
  auto* m = s.add_members();
  m->set_role(proto::ROLE_WORKER);
  m->set_id("worker@a-rather-long-host-name.example.org:123456");
  m->set_host("a-rather-long-host-name.example.org");
  m->set_pid(123456);
  *s.add_jobs() = DynamicJob();
  *s.add_jobs() = LdaJob();
  auto failed = DynamicJob();
  failed.set_job_id(14);
  failed.set_state(proto::JOB_FAILED);
  failed.set_error("worker-1: /data/x.svm:3: bad token");
  *s.add_jobs() = failed;
  const std::string text = RenderStatus(s, 80);
  INFO(text);
  CHECK(WidestLine(RenderStatus(s, 0)) > 80);
  CHECK(WidestLine(text) <= 80);
  CHECK_THAT(text, Catch::Contains("OBJECTIVE") && Catch::Contains("LOGLIK/TOKEN") &&
                       Catch::Contains("job 14: worker-1: /data/x.svm:3: bad token"));
}

TEST_CASE(
    "Status JSON: per-engine fields, a static job has no violation, an unmeasured one is null",
    "[cli_view]") {
  proto::StatusReply s;
  *s.add_jobs() = DynamicJob();
  *s.add_jobs() = LdaJob();
  auto queued = DynamicJob();
  queued.set_state(proto::JOB_QUEUED);
  queued.set_violation(-1);
  *s.add_jobs() = queued;
  const auto j = StatusJson(s);
  const auto& dynamic = j["jobs"][0];
  CHECK(dynamic["engine"] == "dynamic");
  CHECK(dynamic["violation"] == 1.5e-4);
  CHECK(dynamic["updates"] == 18900393);
  const auto& lda = j["jobs"][1];
  CHECK(lda["engine"] == "static");
  CHECK_FALSE(lda.contains("violation"));
  CHECK_FALSE(lda.contains("updates"));
  CHECK(lda["work"] == 18900393);
  CHECK(lda["work_unit"] == "tokens");
  CHECK(lda["sub_rounds"] == 39);
  CHECK(lda["iterations"] == 30);
  CHECK(lda["objective_name"] == "loglik_per_token");
  CHECK(j["jobs"][2]["violation"].is_null());
}
