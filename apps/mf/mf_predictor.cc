#include "apps/mf/mf_predictor.h"

#include <cmath>
#include <filesystem>
#include <iterator>

#include <fmt/format.h>

#include "apps/mf/array_mtx.h"
#include "apps/mf/unseen_file.h"
#include "common/data_loader.h"
#include "common/line_reader.h"
#include "common/matrix_market_reader.h"

namespace strads::mf {
namespace {

namespace fs = std::filesystem;

Result<Eigen::MatrixXd> ReadFactor(const std::string& dir, const std::string& name) {
  const std::string path = (fs::path(dir) / name).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return Status::NotFound(path + ": no such file (an mf model directory holds W.mtx and H.mtx)");
  }
  return ReadArrayMtx(path);
}

}  // namespace

Result<FactorModel> LoadFactorModel(const std::string& dir) {
  STRADS_RETURN_IF_ERROR(CheckModelDir(dir));
  FactorModel model;
  STRADS_ASSIGN_OR_RETURN(Eigen::MatrixXd w, ReadFactor(dir, "W.mtx"));
  STRADS_ASSIGN_OR_RETURN(Eigen::MatrixXd h, ReadFactor(dir, "H.mtx"));
  if (w.cols() != h.cols()) {
    return Status::InvalidArgument(
        fmt::format("{}: W.mtx has {} columns but H.mtx has {} (both are the rank k)", dir,
                    w.cols(), h.cols()));
  }
  const std::string unseen = (fs::path(dir) / "unseen.txt").string();
  std::error_code ec;
  if (fs::exists(unseen, ec)) {
    STRADS_ASSIGN_OR_RETURN(model.coverage, ReadUnseen(unseen, static_cast<uint64_t>(w.rows()),
                                                       static_cast<uint64_t>(h.rows())));
  }
  model.W = std::move(w);
  model.H = std::move(h);
  return model;
}

Result<RatingPredictions> PredictRatings(const FactorModel& model, const std::string& path) {
  MatrixMarketReader::Options options;
  options.entry_name = "a rating";
  options.whole_entry_errors = true;
  STRADS_ASSIGN_OR_RETURN(MatrixMarketReader reader, MatrixMarketReader::Open(path, options));
  if (reader.header().field == MatrixMarketHeader::Field::kPattern) {
    return LineError(path, 1, "a 'pattern' matrix has no rating values (need real or integer)");
  }
  const auto rows = static_cast<uint64_t>(model.W.rows());
  const auto cols = static_cast<uint64_t>(model.H.rows());
  RatingPredictions p;
  double sq = 0.0;
  uint64_t i, j;
  double v;
  while (reader.Next(&i, &j, &v)) {
    if (i > rows || j > cols) {
      return LineError(path, reader.line_number(),
                       fmt::format("entry ({}, {}) is outside the model's {} rows x {} columns", i,
                                   j, rows, cols));
    }
    double predicted;
    if (model.coverage && !model.coverage->Covers(i - 1, j - 1)) {
      predicted = model.coverage->mean;
      ++p.by_mean;
    } else {
      predicted = model.W.row(static_cast<Eigen::Index>(i - 1))
                      .dot(model.H.row(static_cast<Eigen::Index>(j - 1)));
    }
    sq += (v - predicted) * (v - predicted);
    p.values.push_back(predicted);
  }
  STRADS_RETURN_IF_ERROR(reader.status());
  if (p.values.empty()) return Status::InvalidArgument(path + ": no ratings");
  p.rmse = std::sqrt(sq / static_cast<double>(p.values.size()));
  return p;
}

std::string DescribeRatingPredictions(const RatingPredictions& p) {
  std::string text = fmt::format("predict: {} ratings, RMSE {:.6g}", p.values.size(), p.rmse);
  if (p.by_mean > 0) {
    text += fmt::format(" ({} by the training mean: their row or column had no training ratings)",
                        p.by_mean);
  }
  return text;
}

Status WriteRatingPredictions(const RatingPredictions& p, const std::string& path) {
  std::string text;
  text.reserve(p.values.size() * 24);
  for (double v : p.values) fmt::format_to(std::back_inserter(text), "{:.17g}\n", v);
  return WriteTextFile(path, text);
}

std::string MfPredictor::Help() const {
  return "MatrixMarket coordinate ratings (ids within the model's rows and columns, no\n"
         "--labels) and W.mtx, H.mtx, unseen.txt; the prediction of rating (i, j) is w_i^T h_j,\n"
         "or the training mean when row i or column j had no training ratings, one per rating\n"
         "in file order. Prints the RMSE.\n";
}

Status MfPredictor::CheckUsage(const PredictRequest& request) const {
  STRADS_ASSIGN_OR_RETURN(DataFormat format, ResolveFormat(request.data));
  if (format != DataFormat::kMatrixMarket) {
    return Status::InvalidArgument(
        "an mf model predicts MatrixMarket coordinate ratings (--format mm)");
  }
  if (!request.data.labels_path.empty()) {
    return Status::InvalidArgument("--labels is not for mf models (the ratings hold the values)");
  }
  return Status::Ok();
}

Result<std::string> MfPredictor::Run(const PredictRequest& request) const {
  STRADS_ASSIGN_OR_RETURN(FactorModel model, LoadFactorModel(request.model_dir));
  STRADS_ASSIGN_OR_RETURN(RatingPredictions predictions, PredictRatings(model, request.data.path));
  if (!request.output.empty()) {
    STRADS_RETURN_IF_ERROR(WriteRatingPredictions(predictions, request.output));
  }
  return DescribeRatingPredictions(predictions);
}

}  // namespace strads::mf
