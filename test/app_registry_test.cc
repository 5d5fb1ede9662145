// The app registry (engine/app_registry.h) and job specs built from it (engine/job_spec.h): apps
// are found by name and engine, every app's options and only its own are accepted, and a spec
// is validated against its app and engine.
#include <google/protobuf/unknown_field_set.h>
#include <catch2/catch.hpp>

#include "app_stub.h"
#include "apps/builtin_apps.h"
#include "apps/lda.pb.h"
#include "apps/linear.pb.h"
#include "apps/mf.pb.h"
#include "engine/app_params.h"
#include "engine/chord_size.h"
#include "engine/dynamic_spec.h"
#include "engine/job_spec.h"
#include "test/app_params_edit.h"
#include "test/temp_dir.h"

namespace strads {
namespace {

using strads::testing::EditAppParams;

class NamedDynamicStub final : public testing::AppStub<DynamicApp> {
 public:
  explicit NamedDynamicStub(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }
  Result<std::unique_ptr<ColumnModel>> MakeColumnModel(Dataset,
                                                       const proto::JobSpec&) const override {
    return Status::Internal("not in this test");
  }
  double Violation(double, double, const proto::JobSpec&) const override { return 0; }
  double Penalty(double, const proto::JobSpec&) const override { return 0; }
  double PenaltySlope(double, double, const proto::JobSpec&) const override { return 0; }
  double LossSlope(double, double) const override { return 0; }
  double Loss(std::span<const double>, std::span<const double>) const override { return 0; }

 private:
  std::string name_;
};

// An app that says it is dynamic but implements no engine interface.
class Impostor final : public App {
 public:
  std::string name() const override { return "impostor"; }
  proto::Engine engine() const override { return proto::ENGINE_DYNAMIC; }
  std::string summary() const override { return ""; }
  boost::program_options::options_description Options() const override { return {}; }
  Status FromOptions(const boost::program_options::variables_map&, proto::JobSpec&) const override {
    return Status::Ok();
  }
  Status Validate(const proto::JobSpec&) const override { return Status::Ok(); }
  std::vector<std::string> OutputFiles() const override { return {}; }
};

}  // namespace

TEST_CASE("AppRegistry finds apps by name and engine, and names the known apps otherwise",
          "[registry]") {
  const AppRegistry apps = BuiltinApps();
  CHECK(apps.Names() == "lasso, logistic, svm, huber, lda, mf");
  REQUIRE(apps.Find("lda").ok());
  CHECK(apps.Find("lda").value()->engine() == proto::ENGINE_STATIC);
  CHECK(apps.FindDynamic("lasso").ok());
  CHECK(apps.FindStatic("mf").ok());

  auto unknown = apps.Find("als");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message() ==
        "unknown app 'als' (known apps: lasso, logistic, svm, huber, lda, mf)");
  auto wrong_engine = apps.FindDynamic("lda");
  REQUIRE_FALSE(wrong_engine.ok());
  CHECK(wrong_engine.status().message() ==
        "app 'lda' runs on the static engine, not the dynamic one");
  CHECK_FALSE(apps.FindStatic("svm").ok());
}

TEST_CASE("AppRegistry refuses a second app of one name and an app without its engine's interface",
          "[registry]") {
  AppRegistry apps;
  REQUIRE(apps.Add(std::make_unique<NamedDynamicStub>("one")).ok());
  const Status twice = apps.Add(std::make_unique<NamedDynamicStub>("one"));
  CHECK_FALSE(twice.ok());
  CHECK(twice.message() == "app 'one' is registered twice");
  CHECK_FALSE(apps.Add(std::make_unique<Impostor>()).ok());
  CHECK_FALSE(apps.Add(nullptr).ok());
  CHECK(apps.Names() == "one");
}

TEST_CASE("Every built-in app declares its files, a summary and a predictor where it has one",
          "[registry]") {
  const AppRegistry apps = BuiltinApps();
  for (const auto& app : apps.apps()) {
    CAPTURE(app->name());
    CHECK_FALSE(app->summary().empty());
    CHECK_FALSE(app->OutputFiles().empty());
    CHECK((app->AsDynamic() != nullptr) == (app->engine() == proto::ENGINE_DYNAMIC));
    CHECK((app->AsStatic() != nullptr) == (app->engine() == proto::ENGINE_STATIC));
    const auto files = ResultFileNames(*app);
    CHECK(files.back() == "summary.json");
  }
  CHECK(ResultFileNames(*apps.Find("lasso").value()) ==
        std::vector<std::string>{"coefficients.tsv", "trace.csv", "summary.json"});
  CHECK(ResultFileNames(*apps.Find("mf").value()) ==
        std::vector<std::string>{"W.mtx", "H.mtx", "unseen.txt", "subrounds.csv", "trace.csv",
                                 "summary.json"});
  CHECK(apps.Find("lasso").value()->predictor() != nullptr);
  CHECK(apps.Find("lda").value()->predictor() == nullptr);
}

TEST_CASE("A job's options are the common ones, its engine's and its app's: no other app's",
          "[registry][job_spec]") {
  const AppRegistry apps = BuiltinApps();
  testing::TempDir dir;
  const std::string data = dir.Write("d.svm", "1 1:1\n");

  auto lasso = ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5"}, {}, nullptr);
  REQUIRE(lasso.ok());
  const Result<proto::LinearModelSpec> linear = AppParams<proto::LinearModelSpec>(*lasso);
  REQUIRE(linear.ok());
  CHECK(lasso->has_dynamic());
  CHECK(linear->lambda() == 0.5);
  CHECK(lasso->dynamic().chord_size() == 2048);
  CHECK(lasso->dynamic().inner_passes() == 4);
  CHECK(lasso->dynamic().candidates() == 4096);   // 0 = 2 x chord size
  CHECK(lasso->dynamic().pipeline_depth() == 2);  // lasso's own column default
  // A filter at 0.8 on dense data only (the combined step is line-searched either way).
  CHECK(lasso->dynamic().rho() == 0.8);
  CHECK(lasso->dynamic().rho_if_dense());
  CHECK(lasso->flags().at("lambda") == "0.5");

  // logistic's column shares run on the quadratic model: chords of 4096 unless told otherwise.
  auto logistic = ParseJobSpec(apps, "logistic", {"--data", data, "--lambda", "0.5"}, {}, nullptr);
  REQUIRE(logistic.ok());
  CHECK(logistic->dynamic().chord_size() == 4096);
  CHECK(logistic->dynamic().candidates() == 8192);
  CHECK_FALSE(logistic->dynamic().exact_shares());
  CHECK(logistic->dynamic().pipeline_depth() == 1);
  CHECK(logistic->dynamic().inner_passes() == 8);  // a model pass is two multiply-adds a non-zero
  // 4096 is a cap: each scheduler sizes chords to its columns (engine/chord_size.h); Lasso's
  // model is its loss, and its chords keep their size.
  CHECK(logistic->dynamic().chord_size_adapts());
  CHECK_FALSE(lasso->dynamic().chord_size_adapts());
  auto sync = ParseJobSpec(
      apps, "lasso", {"--data", data, "--lambda", "0.5", "--pipeline-depth", "1"}, {}, nullptr);
  REQUIRE(sync.ok());
  CHECK(sync->dynamic().pipeline_depth() == 1);
  auto exact = ParseJobSpec(apps, "logistic", {"--data", data, "--lambda", "0.5", "--exact-shares"},
                            {}, nullptr);
  REQUIRE(exact.ok());
  CHECK(exact->dynamic().chord_size() == 2048);
  CHECK(exact->dynamic().exact_shares());
  CHECK(exact->dynamic().inner_passes() == 4);
  CHECK_FALSE(exact->dynamic().chord_size_adapts());  // exact steps: no model to go stale
  // --inner-passes: 0 is the app's default; any other value is the user's, never overridden.
  auto passes_of = [&](const std::string& app, std::vector<std::string> flags) -> uint32_t {
    std::vector<std::string> args{"--data", data, "--lambda", "0.5"};
    args.insert(args.end(), flags.begin(), flags.end());
    auto parsed = ParseJobSpec(apps, app, args, {}, nullptr);
    REQUIRE(parsed.ok());
    return parsed->dynamic().inner_passes();
  };
  CHECK(passes_of("logistic", {"--inner-passes", "4"}) == 4);
  CHECK(passes_of("logistic", {"--inner-passes", "0"}) == 8);
  CHECK(passes_of("logistic", {"--exact-shares", "--inner-passes", "2"}) == 2);
  CHECK(passes_of("svm", {}) == 8);
  CHECK(passes_of("svm", {"--exact-shares"}) == 4);
  CHECK(passes_of("lasso", {"--inner-passes", "0"}) == 4);
  // The rule a worker's model gets: a lone worker's passes settle 100x tighter.
  {
    auto spec = ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5"}, {}, nullptr);
    REQUIRE(spec.ok());
    for (uint32_t workers : {0u, 1u, 2u, 8u}) {
      CAPTURE(workers);
      const SharePasses rule = SharePassesOf(spec->dynamic(), workers);
      CHECK(rule.max_passes == 4);
      CHECK(rule.settle == (workers == 1 ? kLoneSettle : kSettle));
    }
    CHECK(kLoneSettle < kSettle);
  }
  auto sized = ParseJobSpec(
      apps, "logistic", {"--data", data, "--lambda", "0.5", "--chord-size", "100"}, {}, nullptr);
  REQUIRE(sized.ok());
  CHECK(sized->dynamic().chord_size() == 100);
  CHECK(sized->dynamic().candidates() == 200);
  CHECK_FALSE(sized->dynamic().chord_size_adapts());  // a given size is used as given
  auto drawn = ParseJobSpec(
      apps, "logistic", {"--data", data, "--lambda", "0.5", "--candidates", "1000"}, {}, nullptr);
  REQUIRE(drawn.ok());
  CHECK(drawn->dynamic().chord_size() == 4096);
  CHECK(drawn->dynamic().candidates() == 1000);
  CHECK_FALSE(drawn->dynamic().chord_size_adapts());  // so is a given draw
  auto zero = ParseJobSpec(apps, "logistic",
                           {"--data", data, "--lambda", "0.5", "--chord-size", "0"}, {}, nullptr);
  REQUIRE(zero.ok());
  CHECK(zero->dynamic().chord_size_adapts());  // 0 = the default
  auto svm = ParseJobSpec(apps, "svm", {"--data", data, "--lambda", "0.5"}, {}, nullptr);
  REQUIRE(svm.ok());
  CHECK(svm->dynamic().chord_size() == 4096);
  CHECK(svm->dynamic().chord_size_adapts());

  auto rho =
      ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5", "--rho", "0.3"}, {}, nullptr);
  REQUIRE(rho.ok());
  CHECK(rho->dynamic().rho() == 0.3);
  CHECK_FALSE(rho->dynamic().rho_if_dense());  // a given rho applies everywhere
  // The row layout's flag is gone, not ignored.
  auto layout = ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5", "--layout", "rows"},
                             {}, nullptr);
  REQUIRE_FALSE(layout.ok());
  CHECK_THAT(layout.status().message(), Catch::Contains("--layout"));
  // The dual pipeline (on the column layout) needs a depth of 2: lasso's default.
  auto dual = ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5", "--dual-pipeline"},
                           {}, nullptr);
  REQUIRE(dual.ok());
  CHECK(dual->dynamic().dual_pipeline());
  CHECK(dual->dynamic().pipeline_depth() == 2);
  auto shallow = ParseJobSpec(apps, "logistic",
                              {"--data", data, "--lambda", "0.5", "--dual-pipeline"}, {}, nullptr);
  REQUIRE_FALSE(shallow.ok());
  CHECK_THAT(shallow.status().message(),
             Catch::Contains("--dual-pipeline needs --pipeline-depth 2"));
  // The aggregation: a star unless asked; a tree's fan-in in [2, 64].
  auto star = ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "0.5"}, {}, nullptr);
  REQUIRE(star.ok());
  CHECK(star->dynamic().aggregation() == proto::AGGREGATION_STAR);
  auto tree = ParseJobSpec(
      apps, "lasso", {"--data", data, "--lambda", "0.5", "--aggregation", "tree", "--fan-in", "2"},
      {}, nullptr);
  REQUIRE(tree.ok());
  CHECK(tree->dynamic().aggregation() == proto::AGGREGATION_TREE);
  CHECK(tree->dynamic().fan_in() == 2);
  auto ring = ParseJobSpec(
      apps, "lasso", {"--data", data, "--lambda", "0.5", "--aggregation", "ring"}, {}, nullptr);
  REQUIRE_FALSE(ring.ok());
  CHECK_THAT(ring.status().message(), Catch::Contains("--aggregation must be star or tree"));
  auto chain = ParseJobSpec(
      apps, "lasso", {"--data", data, "--lambda", "0.5", "--aggregation", "tree", "--fan-in", "1"},
      {}, nullptr);
  REQUIRE_FALSE(chain.ok());
  CHECK_THAT(chain.status().message(), Catch::Contains("--fan-in must be in [2, 64]"));

  // --active-worker: parsed, it turns grouping off (the active worker holds its range whole),
  // and a range over kActiveWorkerMaxBytes keeps its owners.
  auto active = ParseJobSpec(apps, "svm", {"--data", data, "--lambda", "0.5", "--active-worker"},
                             {}, nullptr);
  REQUIRE(active.ok());
  CHECK(active->dynamic().active_worker());
  CHECK_FALSE(GroupsFeatures(active->dynamic(), 4));
  CHECK(GroupsFeatures(dual->dynamic(), 4));
  CHECK(RangeHasActiveWorker(active->dynamic(), 1000, 100));
  CHECK_FALSE(RangeHasActiveWorker(active->dynamic(), kActiveWorkerMaxBytes / 12, 100));
  CHECK_FALSE(RangeHasActiveWorker(dual->dynamic(), 1000, 100));
  CHECK(ActiveWorkerOf(5, 4) == 1);
  // An adapted chord is sized for the one worker that updates it, not for P (Fashion-MNIST's
  // columns at P = 8: 43 parameters, not 342).
  CHECK(ChordSizedForWorkers(active->dynamic(), 1000, 100, 8) == 1);
  CHECK(ChordSizedForWorkers(active->dynamic(), kActiveWorkerMaxBytes / 12, 100, 8) == 8);
  CHECK(ChordSizedForWorkers(dual->dynamic(), 1000, 100, 8) == 8);
  CHECK(AdaptedChordSize(4096,
                         {.nonzeros = 785 * 7320,
                          .columns = 785,
                          .workers = ChordSizedForWorkers(active->dynamic(), 785 * 7320, 785, 8),
                          .passes = 8}) == 43);

  auto topics =
      ParseJobSpec(apps, "lasso", {"--data", data, "--lambda", "1", "--topics", "3"}, {}, nullptr);
  REQUIRE_FALSE(topics.ok());
  CHECK_THAT(topics.status().message(), Catch::Contains("--topics"));
  auto engine_flag = ParseJobSpec(apps, "mf", {"--data", data, "--chord-size", "4"}, {}, nullptr);
  REQUIRE_FALSE(engine_flag.ok());
  CHECK_THAT(engine_flag.status().message(), Catch::Contains("--chord-size"));

  auto mf =
      ParseJobSpec(apps, "mf", {"--data", data, "--rank", "3", "--iterations", "2"}, {}, nullptr);
  REQUIRE(mf.ok());
  CHECK(AppParams<proto::MfSpec>(*mf)->rank() == 3);
  CHECK(AppParams<proto::MfSpec>(*mf)->lambda() == 0.1);  // mf's own --lambda, with its own default
  CHECK(mf->static_engine().iterations() == 2);

  auto unknown = ParseJobSpec(apps, "als", {"--data", data}, {}, nullptr);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("known apps: lasso"));

  // With no app, help lists each option once, --lambda included, though lasso, logistic, svm
  // and mf all have one.
  const auto all = JobOptionsDescription(apps);
  int lambdas = 0;
  for (const auto& option : all.options()) lambdas += option->long_name() == "lambda";
  CHECK(lambdas == 1);
  CHECK(all.find_nothrow("topics", false) != nullptr);
  CHECK(all.find_nothrow("chord-size", false) != nullptr);
}

TEST_CASE("A spec is validated against its app and its engine, whoever built it",
          "[registry][job_spec]") {
  const AppRegistry apps = BuiltinApps();
  proto::JobSpec spec;
  spec.set_app("lasso");
  spec.set_data_path("/data/x.svm");
  EditAppParams<proto::LinearModelSpec>(spec, [&](auto& p) { p.set_lambda(1); });
  // No engine message: the coordinator refuses it rather than run with zeros.
  CHECK_THAT(ValidateJobSpec(apps, spec).message(),
             Catch::Contains("has no dynamic-engine parameters"));
  spec.mutable_dynamic()->set_chord_size(8);
  spec.mutable_dynamic()->set_candidates(16);
  spec.mutable_dynamic()->set_tolerance(1e-6);
  spec.mutable_dynamic()->set_pipeline_depth(1);
  CHECK(ValidateJobSpec(apps, spec).ok());

  // Another app's message under this app's name.
  proto::JobSpec other = spec;
  proto::MfSpec mf;
  mf.set_rank(3);
  SetAppParams(mf, other);
  CHECK(ValidateJobSpec(apps, other).message() ==
        "lasso: the spec's app parameters are a strads.proto.MfSpec, not a "
        "strads.proto.LinearModelSpec (parameters of another app?)");
  // No app message at all.
  proto::JobSpec none = spec;
  none.clear_params();
  CHECK(ValidateJobSpec(apps, none).message() ==
        "lasso: the spec has no app parameters (expected strads.proto.LinearModelSpec)");
  // The static engine's message for a dynamic app.
  proto::JobSpec static_engine = spec;
  static_engine.mutable_static_engine()->set_iterations(3);
  CHECK_FALSE(ValidateJobSpec(apps, static_engine).ok());
  // Engine and common limits.
  proto::JobSpec deep = spec;
  deep.mutable_dynamic()->set_pipeline_depth(65);
  CHECK(ValidateJobSpec(apps, deep).message() == "--pipeline-depth must be in [1, 64]");
  proto::JobSpec many = spec;
  many.set_workers(5000);
  CHECK(ValidateJobSpec(apps, many).message() == "--workers must be at most 4096");
  proto::JobSpec no_data = spec;
  no_data.clear_data_path();
  CHECK(ValidateJobSpec(apps, no_data).message() == "--data is required");
}

TEST_CASE("AppParams: an app reads back its own message, checked by type, or a clear error",
          "[registry][app_params]") {
  testing::TempDir dir;
  auto spec = ParseJobSpec(BuiltinApps(), "lda",
                           {"--data", dir.Write("d.txt", "1\n1\n1\n1 1 1\n"), "--topics", "7"}, {},
                           nullptr);
  REQUIRE(spec.ok());
  CHECK(spec->params().type_url() == "type.googleapis.com/strads.proto.LdaSpec");
  const Result<proto::LdaSpec> lda = AppParams<proto::LdaSpec>(*spec);
  REQUIRE(lda.ok());
  CHECK(lda->topics() == 7);
  CHECK(lda->sampler() == "sparse");

  CHECK(AppParams<proto::MfSpec>(*spec).status().message() ==
        "the spec's app parameters are a strads.proto.LdaSpec, not a strads.proto.MfSpec "
        "(parameters of another app?)");
  proto::JobSpec garbled = *spec;
  garbled.mutable_params()->set_value("\xff\xff\xff");
  CHECK(AppParams<proto::LdaSpec>(garbled).status().message() ==
        "the spec's app parameters do not parse as a strads.proto.LdaSpec");
  proto::JobSpec no_url = *spec;
  no_url.mutable_params()->set_type_url("LdaSpec");
  CHECK_THAT(AppParams<proto::LdaSpec>(no_url).status().message(),
             Catch::Contains("malformed type URL 'LdaSpec'"));

  // A spec as protocol version 7 wrote it (the LdaSpec in JobSpec field 23, reserved since),
  // parsed by this version: the field is kept as an unknown one, and named as the old layout.
  proto::JobSpec without = *spec;
  without.clear_params();
  google::protobuf::UnknownFieldSet old_field;
  old_field.AddLengthDelimited(23, lda->SerializeAsString());
  std::string field_bytes;
  REQUIRE(old_field.SerializeToString(&field_bytes));
  proto::JobSpec old;
  REQUIRE(old.ParseFromString(without.SerializeAsString() + field_bytes));
  CHECK_FALSE(old.has_params());
  CHECK(ValidateJobSpec(BuiltinApps(), old).message() ==
        "lda: the spec holds its app's parameters as STRADS wrote them before protocol version 8 "
        "(JobSpec tags 23-25), which this version cannot read: submit the job again");
}

}  // namespace strads
