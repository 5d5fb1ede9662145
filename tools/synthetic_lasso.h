// A synthetic Lasso problem with correlated features, like the one in the STRADS/SAP experiments.
//
// What the generator produces, for a seed (deterministic on one platform and standard library):
//  * Features are split into consecutive groups of `group_size` (the last group may be smaller).
//    Feature j (0-based column, libsvm id j + 1) is in group j / group_size (before any shuffle).
//  * Each group g has a row support S_g and a latent column z_g ~ N(0, 1) on S_g. When density is
//    1 the support is every row; otherwise each row is in S_g independently with probability
//    `density`, and all features of the group share that support (so sparse columns are still
//    correlated with their group, not merely with its overlap).
//  * Feature j of group g is x_j = sqrt(c) * z_g + sqrt(1 - c) * e_j on S_g (zero elsewhere) with
//    fresh e_j ~ N(0, 1) and c = correlation, so two features of a group have correlation ~c and
//    features of different groups ~0.
//  * Dense problems (density 1) have every column standardised to mean 0 and unit (population)
//    variance. Sparse problems are left as generated: values ~N(0, 1) on the support, which keeps
//    the zeros zero.
//  * beta_true has `true_nonzeros` nonzeros of magnitude uniform in [1, 2] with random signs,
//    spread over the groups: one feature in each of as many distinct groups as possible before a
//    group gets a second. beta_true depends only on the seed, features, group size and count.
//  * y = X beta_true + noise * N(0, 1).
//  * With shuffle_columns, the columns (and beta_true's ids) are then permuted at random, so a
//    group's members are scattered over the ids as correlated features are in real data, not side
//    by side; y and the rows are unchanged.
//
// The functions are free of shared state and safe to call from several threads at once.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "common/dataset.h"
#include "common/status.h"

namespace strads {

struct SyntheticLassoOptions {
  uint64_t rows = 1000;
  uint64_t features = 10000;
  uint32_t group_size = 10;     // features in a correlated group
  double correlation = 0.9;     // within a group, in [0, 1]
  double density = 1.0;         // fraction of nonzero entries per column, in (0, 1]; 1 = dense
  uint32_t true_nonzeros = 50;  // nonzeros of beta_true, at most `features`
  double noise = 0.1;           // standard deviation of the noise added to y
  uint64_t seed = 1;
  bool shuffle_columns = false;  // scatter each group's members over the ids
};

// A generated problem: the data as it will be written, and the coefficients behind it.
struct SyntheticLassoProblem {
  Dataset data;  // x is rows x features; first_row 0, total_rows = rows
  std::vector<std::pair<uint64_t, double>> beta_true;  // (0-based column, value), by column
};

// Ok, or InvalidArgument saying which option is out of range.
Status ValidateSyntheticLassoOptions(const SyntheticLassoOptions& options);

// Generates the problem described at the top of this file.
// Errors: InvalidArgument for bad options, Internal when it does not fit in memory.
Result<SyntheticLassoProblem> GenerateSyntheticLasso(const SyntheticLassoOptions& options);

// Writes `data` as libsvm: one line per row, `label id:value ...` with ids = column + 1 in
// increasing order, numbers in shortest round-trip form (reading them back gives the same
// doubles). Errors: IoError naming `path`.
Status WriteLibsvmFile(const Dataset& data, const std::string& path);

// Writes the nonzeros of beta_true, one `feature_id<TAB>value` line each (feature_id 1-based as
// in the libsvm file), in increasing id order. Errors: IoError naming `path`.
Status WriteTruthFile(const SyntheticLassoProblem& problem, const std::string& path);

// Generates the problem and writes it to `path` as libsvm.
Status WriteSyntheticLasso(const SyntheticLassoOptions& options, const std::string& path);

}  // namespace strads
