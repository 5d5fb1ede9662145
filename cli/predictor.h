// `strads predict`: applying a trained model to a data set: a linear model (lasso, logistic, svm)
// to labelled rows, or a matrix factorisation (mf) to ratings.
//
// A model is a job's output directory: coefficients.tsv (`feature_id<TAB>value`, 1-based ids,
// nonzeros only) and summary.json (its "app" says which model). The prediction of row i is the
// score sᵢ = xᵢᵀw, with no intercept; feature ids of the data beyond the model's have weight 0 and
// model ids beyond the data's columns are ignored.
//
// - lasso (regression): the prediction is sᵢ; the metric is RMSE = sqrt(mean((yᵢ − sᵢ)²)).
// - logistic, svm (classification): labels must be ±1 or 0/1 (0 means −1); the predicted label
//   is +1 when sᵢ ≥ 0, else −1, and the metric is the fraction of rows whose predicted label
//   equals yᵢ. logistic also gives P(y = +1) = σ(sᵢ).
//
// - mf: the model is W.mtx (rows x k) and H.mtx (cols x k), MatrixMarket array files; the
//   prediction of rating (i, j) is w_iᵀh_j and the metric is the RMSE over the ratings.
//
// Everything returns errors as values; nothing here throws, and the functions are free of shared
// state (safe to call from several threads at once).
#pragma once

#include <cstdint>
#include <string>

#include <Eigen/Dense>
#include <utility>
#include <vector>

#include "common/dataset.h"
#include "common/status.h"

namespace strads {

struct LinearModel {
  std::string app;  // "lasso", "logistic" or "svm"
  // (0-based column j = feature id − 1, weight), increasing j, no duplicates.
  std::vector<std::pair<int64_t, double>> weights;
  bool classification() const { return app != "lasso"; }
};

// The "app" of the model in `dir`, from its summary.json: "lasso", "logistic", "svm" or "mf".
// Errors: NotFound naming `dir` or summary.json; InvalidArgument "FILE: reason" for a summary.json
// that is not JSON or has no supported "app"; IoError.
Result<std::string> ReadModelApp(const std::string& dir);

// Reads `dir`/summary.json (its "app", which must be linear) and `dir`/coefficients.tsv.
// Errors: NotFound naming `dir` or the missing file; InvalidArgument "FILE: reason" for a
// summary.json that is not JSON or has no supported "app", and "FILE:LINE: reason" for a
// coefficients.tsv line that is not `id value` with an integer id ≥ 1, a finite value, and an id
// not seen before (blank lines and # comments are skipped); IoError.
Result<LinearModel> LoadLinearModel(const std::string& dir);

// How the labels of a classification data set were written.
enum class LabelConvention { kPlusMinusOne, kZeroOne };

struct Predictions {
  std::string app;
  bool classification = false;
  std::vector<double> scores;  // xᵢᵀw, one per row
  // Regression only.
  double rmse = 0;
  // Classification only.
  LabelConvention convention = LabelConvention::kPlusMinusOne;
  uint64_t correct = 0;
  double accuracy = 0;

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

// Writes one line per row to `path`: for lasso the predicted value; for svm the predicted label
// in the data's convention (0/1 or -1/1); for logistic the label, a tab, and P(y = +1).
// Errors: IoError naming `path`.
Status WritePredictions(const Predictions& p, const std::string& path);

// An mf model: the factors W (rows x k) and H (cols x k).
struct FactorModel {
  Eigen::MatrixXd W;
  Eigen::MatrixXd H;
};

// Reads `dir`/W.mtx and `dir`/H.mtx (apps/mf/array_mtx.h). Errors: NotFound naming the missing
// directory or file; InvalidArgument "FILE:LINE: reason" for a malformed file, and
// "DIR: ..." when W and H differ in their number of columns.
Result<FactorModel> LoadFactorModel(const std::string& dir);

struct RatingPredictions {
  std::vector<double> values;  // w_iᵀh_j for each rating, in file order
  double rmse = 0;             // sqrt(mean((a_ij − w_iᵀh_j)²))
};

// Predicts every rating of the MatrixMarket coordinate file `path` (`real` or `integer`; 1-based
// `i j v` lines), in file order. The file's size line may declare any dimensions, but every id
// must be within the model's (i <= W rows, j <= H rows).
// Errors: NotFound; InvalidArgument "PATH:LINE: reason" for a bad header or entry, an id outside
// the model, an entry count that disagrees with the size line, or a file without ratings.
Result<RatingPredictions> PredictRatings(const FactorModel& model, const std::string& path);

// "predict: N ratings, RMSE R".
std::string DescribeRatingPredictions(const RatingPredictions& p);

// Writes one line per rating, its predicted value. Errors: IoError naming `path`.
Status WriteRatingPredictions(const RatingPredictions& p, const std::string& path);

// `strads predict --model DIR --data FILE [--format libsvm|mm] [--labels FILE] [--output FILE]`:
// the whole command on the words after "predict". For an mf model --data is a MatrixMarket
// coordinate ratings file (--format mm or by extension; --labels is a usage error). Prints the
// result line to stdout and errors to stderr. Returns the exit code: 0 ok, 1 a file is missing or
// malformed (model, data, labels, or the output cannot be written), 2 usage error (unknown or
// missing flag, bad --format).
int PredictCommand(const std::vector<std::string>& args);

}  // namespace strads
