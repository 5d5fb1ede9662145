// `strads predict`: applying a trained model to a data set. The model is a job's output
// directory; its summary.json names the app, and the app's ModelPredictor (App::predictor(),
// found in the registry) does the rest — the CLI knows no model itself.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "engine/app_registry.h"

namespace strads {

// The "app" of the model in `dir`, from its summary.json.
// Errors: NotFound naming `dir` or summary.json; InvalidArgument "FILE: reason" for a
// summary.json that is not JSON or has no "app" string; IoError.
Result<std::string> ReadModelApp(const std::string& dir);

// `strads predict --model DIR --data FILE [--format libsvm|mm] [--labels FILE] [--output FILE]`:
// the whole command on the words after "predict". Prints the result line to stdout and errors to
// stderr. Returns the exit code: 0 ok, 1 a file is missing or malformed (model, data, labels, or
// the output cannot be written), 2 usage error (unknown or missing flag, bad --format, data or
// flags the model's app does not take, an app without predict).
int PredictCommand(const AppRegistry& apps, const std::vector<std::string>& args);

}  // namespace strads
