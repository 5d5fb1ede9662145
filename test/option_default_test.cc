// `--help` shows defaults readably (common/option_default.h), for the tools and for every app's
// job options (`strads run APP --help`).
#include <catch2/catch.hpp>

#include <regex>
#include <sstream>

#include "apps/builtin_apps.h"
#include "common/option_default.h"
#include "engine/job_spec.h"

using namespace strads;
namespace po = boost::program_options;

namespace {

std::string HelpText(const po::options_description& d) {
  std::ostringstream out;
  out << d;
  return out.str();
}

// A default printed with more digits than anyone typed, e.g. "(=0.10000000000000001)".
const std::regex kLongNumber(R"(\(=-?[0-9]*\.?[0-9]{9,}(e[-+][0-9]+)?\))");

}  // namespace

TEST_CASE("ValueWithDefault: --help shows 0.1 and 1e-06, not 17 digits", "[help]") {
  double noise = 0;
  po::options_description d("options");
  d.add_options()("noise", ValueWithDefault(&noise, 0.1), "noise")(
      "tolerance", ValueWithDefault<double>(nullptr, 1e-6), "tolerance")(
      "rows", ValueWithDefault<int64_t>(nullptr, 1000), "rows");
  const std::string help = HelpText(d);
  INFO(help);
  CHECK_THAT(
      help, Catch::Contains("(=0.1)") && Catch::Contains("(=1e-06)") && Catch::Contains("(=1000)"));
  CHECK_FALSE(std::regex_search(help, kLongNumber));
  po::variables_map vm;
  po::store(po::command_line_parser(std::vector<std::string>{}).options(d).run(), vm);
  po::notify(vm);
  CHECK(noise == 0.1);
  CHECK(vm["tolerance"].as<double>() == 1e-6);
}

TEST_CASE("Every app's job options show their defaults without long digit runs", "[help]") {
  const AppRegistry apps = BuiltinApps();
  for (const auto& app : apps.apps()) {
    const std::string help = HelpText(JobOptionsDescription(apps, app->name()));
    INFO(app->name() << ":\n" << help);
    CHECK_FALSE(std::regex_search(help, kLongNumber));
  }
  // The check itself sees what the issue saw.
  CHECK(std::regex_search(std::string("--noise arg (=0.10000000000000001)"), kLongNumber));
  CHECK(std::regex_search(std::string("--tol arg (=9.9999999999999995e-07)"), kLongNumber));
}
