#include "engine/chord_size.h"

#include <catch2/catch.hpp>

namespace strads {
namespace {

TEST_CASE("AdaptedChordSize: a worker's share of a chord costs about a round's fixed cost",
          "[chord_size]") {
  // About Fashion-MNIST's shape: 12,000 rows, 785 columns, 5,750,000 non-zeros, 8 passes: 7,325
  // non-zeros a column, 58,599 non-zero passes an update; 2.5e6 / 58,599 = 42.7 a worker.
  const ChordWork fashion{.nonzeros = 5750000, .columns = 785, .workers = 2, .passes = 8};
  CHECK(AdaptedChordSize(4096, fashion) == 86);
  ChordWork one = fashion;
  one.workers = 1;
  CHECK(AdaptedChordSize(4096, one) == 43);
  ChordWork fewer_passes = fashion;
  fewer_passes.passes = 4;  // half the cost an update: twice the chord
  CHECK(AdaptedChordSize(4096, fewer_passes) == 171);
  // At most the cap: columns of 85 non-zeros ask for 7,353.
  const ChordWork sparse{.nonzeros = 1700000, .columns = 20000, .workers = 2, .passes = 8};
  CHECK(AdaptedChordSize(4096, sparse) == 4096);
  CHECK(AdaptedChordSize(8000, sparse) == 7353);
  CHECK(AdaptedChordSize(100, fashion) == 86);
  CHECK(AdaptedChordSize(50, fashion) == 50);
}

TEST_CASE("AdaptedChordSize: at least a parameter a worker, and the cap without non-zeros",
          "[chord_size]") {
  // A column of 10,000,000 non-zeros costs 8e7 a pass set: far more than a round's fixed cost.
  const ChordWork huge{.nonzeros = 40000000, .columns = 4, .workers = 3, .passes = 8};
  CHECK(AdaptedChordSize(4096, huge) == 3);
  CHECK(AdaptedChordSize(2, huge) == 2);  // the cap still bounds it
  CHECK(AdaptedChordSize(4096, {.nonzeros = 0, .columns = 100, .workers = 2, .passes = 8}) == 4096);
  CHECK(AdaptedChordSize(4096, {.nonzeros = 10, .columns = 0, .workers = 2, .passes = 8}) == 4096);
  // Zero workers or passes read as one.
  CHECK(AdaptedChordSize(4096, {.nonzeros = 5750000, .columns = 785, .workers = 0, .passes = 0}) ==
        342);
}

TEST_CASE("AdaptedCandidates keeps the spec's ratio of candidates to chord, at least the chord",
          "[chord_size]") {
  CHECK(AdaptedCandidates(8192, 4096, 86) == 172);
  CHECK(AdaptedCandidates(4096, 4096, 86) == 86);
  CHECK(AdaptedCandidates(10000, 4096, 100) == 244);  // 2.44 x, rounded
  CHECK(AdaptedCandidates(100, 4096, 86) == 86);      // never fewer than the chord
  CHECK(AdaptedCandidates(8192, 4096, 4096) == 8192);
}

}  // namespace
}  // namespace strads
