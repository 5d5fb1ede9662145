#include "apps/linear/linear_model_predictor.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "common/data_loader.h"
#include "common/line_reader.h"

namespace strads {
namespace {

Result<std::vector<std::pair<int64_t, double>>> ReadCoefficients(const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(LineReader reader, LineReader::Open(path));
  struct Entry {
    int64_t column;
    double value;
    uint64_t line;
  };
  std::vector<Entry> entries;
  std::string_view line;
  while (reader.Next(&line)) {
    const uint64_t line_no = reader.line_number();
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
  STRADS_RETURN_IF_ERROR(reader.status());
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

// σ(s) without overflow for large |s|.
double Sigmoid(double s) {
  if (s >= 0) return 1.0 / (1.0 + std::exp(-s));
  const double e = std::exp(s);
  return e / (1.0 + e);
}

}  // namespace

Result<LinearModel> LoadLinearModel(const std::string& dir, LinearModelKind kind) {
  STRADS_RETURN_IF_ERROR(CheckModelDir(dir));
  LinearModel model;
  model.kind = kind;
  STRADS_ASSIGN_OR_RETURN(
      auto weights, ReadCoefficients((std::filesystem::path(dir) / "coefficients.tsv").string()));
  model.weights = std::move(weights);
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
  p.kind = model.kind;
  p.scores.assign(scores.data(), scores.data() + n);
  if (!p.classification()) {
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
  if (!p.classification()) return fmt::format("predict: {} rows, RMSE {:.6g}", p.rows(), p.rmse);
  return fmt::format("predict: {} rows, accuracy {:.4f} ({}/{})", p.rows(), p.accuracy, p.correct,
                     p.rows());
}

Status WritePredictions(const Predictions& p, const std::string& path) {
  std::string text;
  text.reserve(p.scores.size() * 24);
  const char* negative = p.convention == LabelConvention::kZeroOne ? "0" : "-1";
  for (double s : p.scores) {
    if (!p.classification()) {
      fmt::format_to(std::back_inserter(text), "{:.17g}\n", s);
    } else if (p.kind == LinearModelKind::kProbabilisticClassifier) {
      fmt::format_to(std::back_inserter(text), "{}\t{:.17g}\n", s >= 0 ? "1" : negative,
                     Sigmoid(s));
    } else {
      fmt::format_to(std::back_inserter(text), "{}\n", s >= 0 ? "1" : negative);
    }
  }
  return WriteTextFile(path, text);
}

std::string LinearModelPredictor::Help() const {
  std::string help =
      "labelled rows (libsvm, or MatrixMarket with --labels) and coefficients.tsv; the score\n"
      "of a row is x^T w (no intercept; features the model lacks weigh 0).\n";
  switch (kind_) {
    case LinearModelKind::kRegression:
      return help + "Prints RMSE = sqrt(mean((y - x^T w)^2)); predictions are the scores.\n";
    case LinearModelKind::kClassifier:
      return help +
             "Labels -1/+1 or 0/1; the predicted label is +1 when x^T w >= 0. Prints the\n"
             "accuracy; predictions are labels in the data's convention.\n";
    case LinearModelKind::kProbabilisticClassifier:
      return help +
             "Labels -1/+1 or 0/1; the predicted label is +1 when x^T w >= 0. Prints the\n"
             "accuracy; predictions are labels in the data's convention, a tab and\n"
             "P(y = +1) = sigmoid(x^T w).\n";
  }
  return help;
}

Status LinearModelPredictor::CheckUsage(const PredictRequest& request) const {
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(request.data));
  if (format == DataFormat::kMatrixMarket && request.data.labels_path.empty()) {
    return Status::InvalidArgument("MatrixMarket data needs --labels FILE");
  }
  if (format == DataFormat::kLibsvm && !request.data.labels_path.empty()) {
    return Status::InvalidArgument(
        "--labels is for MatrixMarket data only (libsvm rows hold their labels)");
  }
  return Status::Ok();
}

Result<std::string> LinearModelPredictor::Run(const PredictRequest& request) const {
  STRADS_ASSIGN_OR_RETURN(LinearModel model, LoadLinearModel(request.model_dir, kind_));
  STRADS_ASSIGN_OR_RETURN(Dataset data, LoadDataset(request.data, RowRange{}));
  const DataSource& src = request.data;
  STRADS_ASSIGN_OR_RETURN(
      Predictions predictions,
      Predict(model, data, src.labels_path.empty() ? src.path : src.labels_path));
  if (!request.output.empty()) {
    STRADS_RETURN_IF_ERROR(WritePredictions(predictions, request.output));
  }
  return DescribePredictions(predictions);
}

}  // namespace strads
