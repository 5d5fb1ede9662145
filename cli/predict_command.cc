#include "cli/predict_command.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "cli/client.h"
#include "engine/model_predictor.h"

namespace strads {
namespace {

namespace po = boost::program_options;

std::string Usage(const AppRegistry& apps) {
  std::string text =
      "usage: strads predict --model DIR --data FILE [--format libsvm|mm] [--labels FILE]\n"
      "                      [--output FILE]\n\n"
      "Applies a model (a job's output directory) to a data set, writes one prediction per\n"
      "line to --output and prints one line, e.g. \"predict: 1000 rows, accuracy 0.9370\n"
      "(937/1000)\". What each app's model takes:\n";
  for (const auto& app : apps.apps()) {
    const ModelPredictor* predictor = app->predictor();
    if (!predictor) continue;
    text += "\n  " + app->name() + ":\n";
    std::istringstream lines(predictor->Help());
    for (std::string line; std::getline(lines, line);) text += "    " + line + "\n";
  }
  text +=
      "\nexit codes: 0 ok, 1 a file is missing or malformed (model, data, labels) or the output\n"
      "cannot be written, 2 usage error (unknown or missing flag, bad --format)\n";
  return text;
}

int UsageError(const std::string& message) {
  std::cerr << "strads predict: " << message << "\n(see strads predict --help)\n";
  return kExitUsage;
}

int FileError(const Status& st) {
  std::cerr << "strads predict: " << st.message() << "\n";
  return kExitJobFailed;
}

// The predictor of the app named in `dir`/summary.json, or why there is none: a file error
// (missing or malformed model) or a usage error (an app without predict).
struct Found {
  const ModelPredictor* predictor = nullptr;
  Status file_error;
  std::string usage_error;
};

Found FindPredictor(const AppRegistry& apps, const std::string& dir) {
  Result<std::string> name = ReadModelApp(dir);
  if (!name.ok()) return {nullptr, name.status(), ""};
  auto app = apps.Find(*name);
  const ModelPredictor* predictor = app.ok() ? (*app)->predictor() : nullptr;
  if (predictor) return {predictor, Status::Ok(), ""};
  std::string with;
  for (const auto& each : apps.apps()) {
    if (each->predictor()) with += (with.empty() ? "" : ", ") + each->name();
  }
  return {nullptr, Status::Ok(),
          (std::filesystem::path(dir) / "summary.json").string() + ": app '" + *name +
              "' has no predict (predict supports " + with + ")"};
}

}  // namespace

Result<std::string> ReadModelApp(const std::string& dir) {
  STRADS_RETURN_IF_ERROR(CheckModelDir(dir));
  const std::string path = (std::filesystem::path(dir) / "summary.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return Status::NotFound(path +
                            ": no such file (a model directory holds a job's summary.json and "
                            "its model files)");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return Status::IoError(path + ": cannot read");
  const auto summary = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (summary.is_discarded()) return Status::InvalidArgument(path + ": not valid JSON");
  if (!summary.is_object() || !summary.contains("app") || !summary["app"].is_string()) {
    return Status::InvalidArgument(path + ": no \"app\" string");
  }
  return summary["app"].get<std::string>();
}

int PredictCommand(const AppRegistry& apps, const std::vector<std::string>& args) {
  po::options_description d("predict options");
  d.add_options()("model", po::value<std::string>(), "a job's output directory")(
      "data", po::value<std::string>(), "data file (libsvm/svmlight or MatrixMarket)")(
      "format", po::value<std::string>()->default_value(""),
      "libsvm or mm (default: .mtx/.mm is mm, else libsvm)")(
      "labels", po::value<std::string>()->default_value(""),
      "MatrixMarket only: label file, one label per line")(
      "output", po::value<std::string>()->default_value(""),
      "write the predictions here, one line per row")("help,h", "show the options");
  po::variables_map vm;
  try {
    const po::positional_options_description no_positionals;  // a stray word is an error
    po::store(po::command_line_parser(args).options(d).positional(no_positionals).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    return UsageError(e.what());
  }
  if (vm.count("help")) {
    std::cout << Usage(apps) << "\n" << d;
    return kExitOk;
  }
  if (!vm.count("model")) return UsageError("--model DIR is required");
  if (!vm.count("data")) return UsageError("--data FILE is required");
  const PredictRequest request{
      vm["model"].as<std::string>(),
      DataSource{vm["data"].as<std::string>(), vm["format"].as<std::string>(),
                 vm["labels"].as<std::string>()},
      vm["output"].as<std::string>()};
  const Found found = FindPredictor(apps, request.model_dir);
  if (!found.usage_error.empty()) return UsageError(found.usage_error);
  if (!found.file_error.ok()) return FileError(found.file_error);
  if (Status st = found.predictor->CheckUsage(request); !st.ok()) return UsageError(st.message());
  Result<std::string> result = found.predictor->Run(request);
  if (!result.ok()) return FileError(result.status());
  std::cout << *result << "\n";
  return kExitOk;
}

}  // namespace strads
