// Predicting with a linear model (lasso, logistic, svm): a job's coefficients.tsv applied to
// labelled rows.
//
// A model is a job's output directory holding coefficients.tsv (`feature_id<TAB>value`, 1-based
// ids, nonzeros only). The prediction of row i is the score sᵢ = xᵢᵀw, with no intercept; feature
// ids of the data beyond the model's have weight 0 and model ids beyond the data's columns are
// ignored.
//
// - regression (lasso): the prediction is sᵢ; the metric is RMSE = sqrt(mean((yᵢ − sᵢ)²)).
// - classification (logistic, svm): labels must be ±1 or 0/1 (0 means −1); the predicted label
//   is +1 when sᵢ ≥ 0, else −1, and the metric is the fraction of rows whose predicted label
//   equals yᵢ. A probabilistic classifier (logistic) also gives P(y = +1) = σ(sᵢ).
//
// Everything returns errors as values; nothing here throws, and the functions are free of shared
// state (safe to call from several threads at once).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/dataset.h"
#include "common/status.h"
#include "engine/model_predictor.h"

namespace strads {

enum class LinearModelKind {
  kRegression,               // lasso
  kClassifier,               // svm
  kProbabilisticClassifier,  // logistic
};

struct LinearModel {
  LinearModelKind kind = LinearModelKind::kRegression;
  // (0-based column j = feature id − 1, weight), increasing j, no duplicates.
  std::vector<std::pair<int64_t, double>> weights;
  bool classification() const { return kind != LinearModelKind::kRegression; }
};

// Reads `dir`/coefficients.tsv as a model of `kind`.
// Errors: NotFound naming `dir` or coefficients.tsv; InvalidArgument "FILE:LINE: reason" for a
// line that is not `id value` with an integer id ≥ 1, a finite value, and an id not seen before
// (blank lines and # comments are skipped); IoError.
Result<LinearModel> LoadLinearModel(const std::string& dir, LinearModelKind kind);

// How the labels of a classification data set were written.
enum class LabelConvention { kPlusMinusOne, kZeroOne };

struct Predictions {
  LinearModelKind kind = LinearModelKind::kRegression;
  std::vector<double> scores;  // xᵢᵀw, one per row
  // Regression only.
  double rmse = 0;
  // Classification only.
  LabelConvention convention = LabelConvention::kPlusMinusOne;
  uint64_t correct = 0;
  double accuracy = 0;

  bool classification() const { return kind != LinearModelKind::kRegression; }
  uint64_t rows() const { return scores.size(); }
};

// Scores every row of `data` with `model` and computes the metric. `label_source` names the file
// holding the labels, for error messages.
// Errors: InvalidArgument when `data` has no rows; for classification, InvalidArgument
// "LABEL_SOURCE: row N: ..." (N 1-based) for the first label that is not −1, +1, 0 or 1, or
// that mixes the 0/1 and ±1 conventions (a 0 together with a −1).
Result<Predictions> Predict(const LinearModel& model, const Dataset& data,
                            const std::string& label_source);

// The one-line result, e.g. "predict: 442 rows, RMSE 0.1234" or
// "predict: 1000 rows, accuracy 0.9370 (937/1000)".
std::string DescribePredictions(const Predictions& p);

// Writes one line per row to `path`: for regression the predicted value; for a classifier the
// predicted label in the data's convention (0/1 or -1/1); for a probabilistic classifier the
// label, a tab, and P(y = +1). Errors: IoError naming `path`.
Status WritePredictions(const Predictions& p, const std::string& path);

// The ModelPredictor of the linear apps: libsvm rows, or MatrixMarket rows with --labels.
class LinearModelPredictor final : public ModelPredictor {
 public:
  explicit LinearModelPredictor(LinearModelKind kind) : kind_(kind) {}
  std::string Help() const override;
  Status CheckUsage(const PredictRequest& request) const override;
  Result<std::string> Run(const PredictRequest& request) const override;

 private:
  LinearModelKind kind_;
};

}  // namespace strads
