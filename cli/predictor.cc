#include "cli/predictor.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "apps/mf/array_mtx.h"
#include "cli/client.h"
#include "common/data_loader.h"
#include "common/line_reader.h"
#include "common/matrix_market_reader.h"

namespace strads {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

Result<std::string> ReadApp(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return Status::NotFound(path +
                            ": no such file (a model directory holds summary.json and "
                            "coefficients.tsv, or W.mtx and H.mtx)");
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
  std::string app = summary["app"].get<std::string>();
  if (app != "lasso" && app != "logistic" && app != "svm" && app != "mf") {
    return Status::InvalidArgument(path + ": app '" + app +
                                   "' has no predict (predict supports lasso, logistic, svm "
                                   "and mf)");
  }
  return app;
}

Result<std::vector<std::pair<int64_t, double>>> ReadCoefficients(const std::string& path) {
  Result<LineReader> reader = LineReader::Open(path);
  if (!reader.ok()) return reader.status();
  struct Entry {
    int64_t column;
    double value;
    uint64_t line;
  };
  std::vector<Entry> entries;
  std::string_view line;
  while (reader->Next(&line)) {
    const uint64_t line_no = reader->line_number();
    if (!IsDataLine(line)) continue;
    std::string_view rest = line;
    const std::string_view id_token = NextToken(&rest);
    const std::string_view value_token = NextToken(&rest);
    if (value_token.empty() || !NextToken(&rest).empty()) {
      return LineError(path, line_no,
                       "expected 'feature_id<TAB>value', got '" + Excerpt(line) + "'");
    }
    int64_t id;
    if (!ParseInt64(id_token, &id) || id < 1) {
      return LineError(path, line_no,
                       "bad feature id '" + Excerpt(id_token) + "' (an integer >= 1)");
    }
    double value;
    if (!ParseFiniteDouble(value_token, &value)) {
      return LineError(path, line_no, "bad value '" + Excerpt(value_token) + "'");
    }
    entries.push_back({id - 1, value, line_no});
  }
  STRADS_RETURN_IF_ERROR(reader->status());
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.column < b.column; });
  std::vector<std::pair<int64_t, double>> weights;
  weights.reserve(entries.size());
  for (size_t k = 0; k < entries.size(); ++k) {
    if (k > 0 && entries[k].column == entries[k - 1].column) {
      const auto [first, second] = std::minmax(entries[k].line, entries[k - 1].line);
      return LineError(path, second,
                       fmt::format("feature id {} repeats line {}", entries[k].column + 1, first));
    }
    weights.emplace_back(entries[k].column, entries[k].value);
  }
  return weights;
}

Status CheckModelDir(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return Status::NotFound(dir + ": no such model directory");
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument(dir +
                                   ": not a directory (the model is a job's output "
                                   "directory)");
  }
  return Status::Ok();
}

Result<Eigen::MatrixXd> ReadFactor(const std::string& dir, const std::string& name) {
  const std::string path = (fs::path(dir) / name).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return Status::NotFound(path + ": no such file (an mf model directory holds W.mtx and H.mtx)");
  }
  return mf::ReadArrayMtx(path);
}

// Writes `text` to `path`, replacing it. IoError naming `path`.
Status WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Status::IoError(path + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return Status::IoError(path + ": cannot write");
  return Status::Ok();
}

// σ(s) without overflow for large |s|.
double Sigmoid(double s) {
  if (s >= 0) return 1.0 / (1.0 + std::exp(-s));
  const double e = std::exp(s);
  return e / (1.0 + e);
}

constexpr const char* kPredictUsage =
    R"usage(usage: strads predict --model DIR --data FILE [--format libsvm|mm] [--labels FILE]
                      [--output FILE]

Applies a linear model (the output directory of a lasso, logistic or svm job: summary.json and
coefficients.tsv) to a labelled data set, or an mf model to ratings. The score of a row is
x^T w (no intercept); features the model does not have weigh 0, model features beyond the data's
are ignored.
  lasso:          prints RMSE = sqrt(mean((y - x^T w)^2)); predictions are the scores.
  logistic, svm:  labels must be -1/+1 or 0/1 (0 means -1); the predicted label is +1 when
                  x^T w >= 0, else -1; prints the accuracy. Predictions are labels in the data's
                  convention (0/1 or -1/1); logistic adds a tab and P(y = +1) = sigmoid(x^T w).
  mf:             the model is W.mtx and H.mtx; --data is a MatrixMarket coordinate ratings
                  file (ids within the model's rows and columns, no --labels); the prediction
                  of rating (i, j) is w_i^T h_j; prints the RMSE. One prediction per rating, in
                  file order.
One line is printed, e.g. "predict: 1000 rows, accuracy 0.9370 (937/1000)" or
"predict: 5000 ratings, RMSE 0.8731".

exit codes: 0 ok, 1 a file is missing or malformed (model, data, labels) or the output cannot
be written, 2 usage error (unknown or missing flag, bad --format)
)usage";

int PredictUsage(const std::string& message) {
  std::cerr << "strads predict: " << message << "\n(see strads predict --help)\n";
  return kExitUsage;
}

int FileError(const Status& st) {
  std::cerr << "strads predict: " << st.message() << "\n";
  return kExitJobFailed;
}

}  // namespace

Result<std::string> ReadModelApp(const std::string& dir) {
  STRADS_RETURN_IF_ERROR(CheckModelDir(dir));
  return ReadApp((fs::path(dir) / "summary.json").string());
}

Result<LinearModel> LoadLinearModel(const std::string& dir) {
  LinearModel model;
  Result<std::string> app = ReadModelApp(dir);
  if (!app.ok()) return app.status();
  if (*app == "mf") {
    return Status::InvalidArgument((fs::path(dir) / "summary.json").string() +
                                   ": app 'mf' is not a linear model");
  }
  model.app = std::move(*app);
  auto weights = ReadCoefficients((fs::path(dir) / "coefficients.tsv").string());
  if (!weights.ok()) return weights.status();
  model.weights = std::move(*weights);
  return model;
}

Result<Predictions> Predict(const LinearModel& model, const Dataset& data,
                            const std::string& label_source) {
  const int64_t n = data.x.rows();
  if (n == 0) return Status::InvalidArgument(data.path + ": no data rows");
  Eigen::VectorXd w = Eigen::VectorXd::Zero(data.x.cols());
  for (const auto& [j, value] : model.weights) {
    if (j < data.x.cols()) w[j] = value;
  }
  const Eigen::VectorXd scores = data.x * w;

  Predictions p;
  p.app = model.app;
  p.classification = model.classification();
  p.scores.assign(scores.data(), scores.data() + n);
  if (!p.classification) {
    p.rmse = std::sqrt((data.y - scores).squaredNorm() / static_cast<double>(n));
    return p;
  }
  bool saw_zero = false, saw_minus_one = false;
  for (int64_t i = 0; i < n; ++i) {
    const double y = data.y[i];
    const uint64_t row = data.first_row + static_cast<uint64_t>(i) + 1;
    if (y == 0)
      saw_zero = true;
    else if (y == -1)
      saw_minus_one = true;
    else if (y != 1) {
      return Status::InvalidArgument(
          fmt::format("{}: row {}: label {} is not -1, +1, 0 or 1", label_source, row, y));
    }
    if (saw_zero && saw_minus_one) {
      return Status::InvalidArgument(fmt::format(
          "{}: row {}: label {} mixes the 0/1 and -1/+1 label conventions", label_source, row, y));
    }
    const double predicted = scores[i] >= 0 ? 1.0 : -1.0;
    p.correct += predicted == (y == 0 ? -1.0 : y);
  }
  p.convention = saw_zero ? LabelConvention::kZeroOne : LabelConvention::kPlusMinusOne;
  p.accuracy = static_cast<double>(p.correct) / static_cast<double>(n);
  return p;
}

std::string DescribePredictions(const Predictions& p) {
  if (!p.classification) return fmt::format("predict: {} rows, RMSE {:.6g}", p.rows(), p.rmse);
  return fmt::format("predict: {} rows, accuracy {:.4f} ({}/{})", p.rows(), p.accuracy, p.correct,
                     p.rows());
}

Status WritePredictions(const Predictions& p, const std::string& path) {
  std::string text;
  text.reserve(p.scores.size() * 24);
  const char* negative = p.convention == LabelConvention::kZeroOne ? "0" : "-1";
  for (double s : p.scores) {
    if (!p.classification) {
      fmt::format_to(std::back_inserter(text), "{:.17g}\n", s);
    } else if (p.app == "logistic") {
      fmt::format_to(std::back_inserter(text), "{}\t{:.17g}\n", s >= 0 ? "1" : negative,
                     Sigmoid(s));
    } else {
      fmt::format_to(std::back_inserter(text), "{}\n", s >= 0 ? "1" : negative);
    }
  }
  return WriteText(path, text);
}

Result<FactorModel> LoadFactorModel(const std::string& dir) {
  STRADS_RETURN_IF_ERROR(CheckModelDir(dir));
  FactorModel model;
  Result<Eigen::MatrixXd> w = ReadFactor(dir, "W.mtx");
  if (!w.ok()) return w.status();
  Result<Eigen::MatrixXd> h = ReadFactor(dir, "H.mtx");
  if (!h.ok()) return h.status();
  if (w->cols() != h->cols()) {
    return Status::InvalidArgument(
        fmt::format("{}: W.mtx has {} columns but H.mtx has {} (both are the rank k)", dir,
                    w->cols(), h->cols()));
  }
  model.W = std::move(*w);
  model.H = std::move(*h);
  return model;
}

Result<RatingPredictions> PredictRatings(const FactorModel& model, const std::string& path) {
  MatrixMarketReader::Options options;
  options.entry_name = "a rating";
  options.whole_entry_errors = true;
  Result<MatrixMarketReader> reader = MatrixMarketReader::Open(path, options);
  if (!reader.ok()) return reader.status();
  if (reader->header().field == MatrixMarketHeader::Field::kPattern) {
    return LineError(path, 1, "a 'pattern' matrix has no rating values (need real or integer)");
  }
  const auto rows = static_cast<uint64_t>(model.W.rows());
  const auto cols = static_cast<uint64_t>(model.H.rows());
  RatingPredictions p;
  double sq = 0.0;
  uint64_t i, j;
  double v;
  while (reader->Next(&i, &j, &v)) {
    if (i > rows || j > cols) {
      return LineError(path, reader->line_number(),
                       fmt::format("entry ({}, {}) is outside the model's {} rows x {} columns", i,
                                   j, rows, cols));
    }
    const double predicted = model.W.row(static_cast<Eigen::Index>(i - 1))
                                 .dot(model.H.row(static_cast<Eigen::Index>(j - 1)));
    sq += (v - predicted) * (v - predicted);
    p.values.push_back(predicted);
  }
  STRADS_RETURN_IF_ERROR(reader->status());
  if (p.values.empty()) return Status::InvalidArgument(path + ": no ratings");
  p.rmse = std::sqrt(sq / static_cast<double>(p.values.size()));
  return p;
}

std::string DescribeRatingPredictions(const RatingPredictions& p) {
  return fmt::format("predict: {} ratings, RMSE {:.6g}", p.values.size(), p.rmse);
}

Status WriteRatingPredictions(const RatingPredictions& p, const std::string& path) {
  std::string text;
  text.reserve(p.values.size() * 24);
  for (double v : p.values) fmt::format_to(std::back_inserter(text), "{:.17g}\n", v);
  return WriteText(path, text);
}

namespace {

// The mf branch of PredictCommand: `src` holds ratings.
int PredictMf(const std::string& dir, const DataSource& src, const std::string& output) {
  Result<DataFormat> format = ResolveFormat(src);
  if (!format.ok()) return PredictUsage(format.status().message());
  if (*format != DataFormat::kMatrixMarket) {
    return PredictUsage("an mf model predicts MatrixMarket coordinate ratings (--format mm)");
  }
  if (!src.labels_path.empty()) {
    return PredictUsage("--labels is not for mf models (the ratings hold the values)");
  }
  Result<FactorModel> model = LoadFactorModel(dir);
  if (!model.ok()) return FileError(model.status());
  Result<RatingPredictions> predictions = PredictRatings(*model, src.path);
  if (!predictions.ok()) return FileError(predictions.status());
  if (!output.empty()) {
    if (Status st = WriteRatingPredictions(*predictions, output); !st.ok()) return FileError(st);
  }
  std::cout << DescribeRatingPredictions(*predictions) << "\n";
  return kExitOk;
}

}  // namespace

int PredictCommand(const std::vector<std::string>& args) {
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
    return PredictUsage(e.what());
  }
  if (vm.count("help")) {
    std::cout << kPredictUsage << "\n" << d;
    return kExitOk;
  }
  if (!vm.count("model")) return PredictUsage("--model DIR is required");
  if (!vm.count("data")) return PredictUsage("--data FILE is required");
  const DataSource src{vm["data"].as<std::string>(), vm["format"].as<std::string>(),
                       vm["labels"].as<std::string>()};
  // An mf model takes ratings, not labelled rows; other models (and an unreadable summary.json,
  // reported below) take the linear path.
  if (Result<std::string> app = ReadModelApp(vm["model"].as<std::string>());
      app.ok() && *app == "mf") {
    return PredictMf(vm["model"].as<std::string>(), src, vm["output"].as<std::string>());
  }
  Result<DataFormat> format = ResolveFormat(src);
  if (!format.ok()) return PredictUsage(format.status().message());
  if (*format == DataFormat::kMatrixMarket && src.labels_path.empty()) {
    return PredictUsage("MatrixMarket data needs --labels FILE");
  }
  if (*format == DataFormat::kLibsvm && !src.labels_path.empty()) {
    return PredictUsage("--labels is for MatrixMarket data only (libsvm rows hold their labels)");
  }

  Result<LinearModel> model = LoadLinearModel(vm["model"].as<std::string>());
  if (!model.ok()) return FileError(model.status());
  Result<Dataset> data = LoadDataset(src, RowRange{});
  if (!data.ok()) return FileError(data.status());
  Result<Predictions> predictions =
      Predict(*model, *data, src.labels_path.empty() ? src.path : src.labels_path);
  if (!predictions.ok()) return FileError(predictions.status());
  if (const auto& output = vm["output"].as<std::string>(); !output.empty()) {
    if (Status st = WritePredictions(*predictions, output); !st.ok()) return FileError(st);
  }
  std::cout << DescribePredictions(*predictions) << "\n";
  return kExitOk;
}

}  // namespace strads
