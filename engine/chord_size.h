// How many parameters a chord carries in the column layout where the app asks for chords sized to
// the data (logistic and svm when --chord-size is not given: DynamicEngineSpec.chord_size_adapts).
//
// A round has a fixed cost: the chord's messages, the scheduler's draw, the coordinator's sum of
// the shares and its line search, the commit (about a millisecond on a loopback cluster here,
// docs/performance.md). A chord must carry enough work to pay for it. Beyond that, a larger chord
// costs the margin apps convergence: a worker descends a quadratic model of the loss built at the
// round's start (apps/linear/margin_model.h), and the more a round moves the margins, the further
// its later steps are from where that model is accurate; the priorities the chord was drawn from
// also go stale while it runs. On dense data, where one column is thousands of non-zeros, the apps'
// default of 4,096 is every feature of a few hundred in one round: on Fashion-MNIST (12,000 x 785,
// 61 % non-zero) chords of 48-256 reached 1e-6 of the optimum 1.7-2.1x sooner than the default
// with one worker; with two, 64 2.2x sooner and 48-128 1.2-1.4x (docs/performance.md). Lasso's
// model is its loss, exactly, and there the largest chord was best on dense data (a 10,000 x 500
// synthetic problem, 0.017 s to 1e-3 against 0.027 s at 125), so Lasso does not ask for this rule.
//
// The rule: a worker's share of a chord costs about one round's fixed cost, counted in non-zero
// passes (kRoundFixedNonzeroPasses: ~1 ms at ~0.4 ns a non-zero and pass, strads-share-bench on
// Fashion's columns), so
//   B = ceil(workers x kRoundFixedNonzeroPasses / (passes x non-zeros per column)),
// at most the app's cap and at least one parameter a worker. With 2 workers and 8 passes chords
// stay at the cap of 4,096 up to ~150 non-zeros a column, with one worker up to ~75 (the 20,000 x
// 20,000 L1-LR problem has 40 a column: 15,588, and 7,794 with one worker), so only long columns
// change. The fixed cost grows with the network's latency, which the rule does not know: on a
// cluster with slower hops --chord-size sets a larger chord. Pure; thread-compatible.
#pragma once

#include <cstdint>

namespace strads {

// A round's fixed cost in non-zero passes of a worker's share (see above).
inline constexpr double kRoundFixedNonzeroPasses = 2.5e6;

// What the rule reads: a scheduler's partition and the job.
struct ChordWork {
  uint64_t nonzeros = 0;  // of the partition's columns
  uint64_t columns = 0;   // parameters in the partition
  uint32_t workers = 1;   // the job's workers, >= 1
  uint32_t passes = 1;    // at most this many passes over a share a round, >= 1
};

// The chord size for `work` under the rule above, in [min(cap, workers), cap]; `cap` (>= 1) where
// the partition has no non-zeros.
uint32_t AdaptedChordSize(uint32_t cap, const ChordWork& work);

// The candidates drawn for an adapted chord: as many times the chord as the spec's candidates are
// its chord size (2 by default), and at least the chord. REQUIRES: adapted <= spec_chord_size
// (AdaptedChordSize with the spec's chord size as the cap).
uint32_t AdaptedCandidates(uint32_t spec_candidates, uint32_t spec_chord_size, uint32_t adapted);

}  // namespace strads
