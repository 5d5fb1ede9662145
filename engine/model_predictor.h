// ModelPredictor: what `strads predict` does with the model of one app (App::predictor(),
// engine/app.h) — load the model from a job's output directory, apply it to a data set, write
// one prediction per line, and sum it up in one line.
//
// The CLI (cli/predict_command.h) reads the model's app from its summary.json, finds the app in
// the registry and hands the request to its predictor; it knows nothing else of any model.
// Thread-safety: predictors are immutable; Run may be called from several threads at once.
#pragma once

#include <string>

#include "common/dataset.h"
#include "common/status.h"

namespace strads {

struct PredictRequest {
  std::string model_dir;  // a job's output directory
  DataSource data;        // the rows (or ratings) to predict
  std::string output;     // where the predictions go, one per line; empty: nowhere
};

class ModelPredictor {
 public:
  virtual ~ModelPredictor() = default;
  // What it takes and prints, for `strads predict --help`: lines of at most 80 columns.
  virtual std::string Help() const = 0;
  // InvalidArgument when the request does not fit this kind of model (a data format it does not
  // take, --labels where the data holds the values): a usage error, checked before any file is
  // read.
  virtual Status CheckUsage(const PredictRequest& request) const = 0;
  // Loads the model, predicts every row of request.data, writes request.output when set, and
  // returns the one-line result (e.g. "predict: 442 rows, RMSE 0.1234"). Errors name the file:
  // NotFound, InvalidArgument "FILE:LINE: reason", IoError.
  virtual Result<std::string> Run(const PredictRequest& request) const = 0;
};

// NotFound "DIR: no such model directory", or InvalidArgument when `dir` is not a directory.
Status CheckModelDir(const std::string& dir);

// Writes `text` to `path`, replacing it. IoError naming `path`.
Status WriteTextFile(const std::string& path, const std::string& text);

}  // namespace strads
