// Predicting with an mf model: a job's W.mtx (rows x k) and H.mtx (cols x k), MatrixMarket array
// files, and unseen.txt (apps/mf/unseen_file.h), applied to MatrixMarket coordinate ratings. The
// prediction of rating (i, j) is w_iᵀh_j, or the training mean when row i or column j had no
// training ratings; the metric is the RMSE over the ratings.
//
// Everything returns errors as values; nothing here throws, and the functions are free of shared
// state (safe to call from several threads at once).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "apps/mf/ratings.h"
#include "common/status.h"
#include "engine/model_predictor.h"

namespace strads::mf {

// An mf model: the factors W (rows x k) and H (cols x k), and what the training matrix covered
// (none for a model directory without unseen.txt, written before there was one).
struct FactorModel {
  Eigen::MatrixXd W;
  Eigen::MatrixXd H;
  std::optional<Coverage> coverage;
};

// Reads `dir`/W.mtx, `dir`/H.mtx (apps/mf/array_mtx.h) and, if it is there, `dir`/unseen.txt.
// Errors: NotFound naming the missing directory or file; InvalidArgument "FILE:LINE: reason" for
// a malformed file, and "DIR: ..." when W and H differ in their number of columns.
Result<FactorModel> LoadFactorModel(const std::string& dir);

struct RatingPredictions {
  std::vector<double> values;  // w_iᵀh_j (or the mean) for each rating, in file order
  double rmse = 0;             // sqrt(mean((a_ij − prediction)²))
  uint64_t by_mean = 0;        // predictions that are the training mean
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

// The ModelPredictor of mf: MatrixMarket coordinate ratings, no --labels.
class MfPredictor final : public ModelPredictor {
 public:
  std::string Help() const override;
  Status CheckUsage(const PredictRequest& request) const override;
  Result<std::string> Run(const PredictRequest& request) const override;
};

}  // namespace strads::mf
