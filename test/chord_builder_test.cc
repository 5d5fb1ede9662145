// ChordBuilder (scheduler/chord_builder.h): the SAP policy over a scheduler's partition. The
// design matrix is built so every correlation is known: columns 2k and 2k + 1 are identical
// (|corr| = 1), columns of different pairs have disjoint rows (corr = 0). The builder owns the
// partition [4, 20): 8 pairs.
#include <algorithm>
#include <set>

#include <catch2/catch.hpp>

#include "scheduler/chord_builder.h"

namespace strads {
namespace {

constexpr uint64_t kFirst = 4, kEnd = 20;

SparseColMatrix PairedColumns() {
  SparseColMatrix x(40, 20);
  for (int64_t j = 0; j < 20; ++j) {
    const int64_t row = 2 * (j / 2);
    x.insert(row, j) = 1.0;
    x.insert(row + 1, j) = 1.0;
  }
  x.makeCompressed();
  return x;
}

uint64_t Partner(uint64_t j) { return j ^ 1; }

struct Fixture {
  explicit Fixture(ChordPolicy policy) : store(x, kFirst, kEnd), builder(store, policy) {}
  SparseColMatrix x = PairedColumns();
  ColumnStore store;
  ChordBuilder builder;
};

// n independent parameters: column j has its one entry in row j (squared norm 1).
struct Independent {
  static SparseColMatrix Diagonal(int64_t n) {
    SparseColMatrix x(n, n);
    for (int64_t j = 0; j < n; ++j) x.insert(j, j) = 1.0;
    x.makeCompressed();
    return x;
  }
  explicit Independent(int64_t n) : x(Diagonal(n)), store(x, 0, n) {}
  SparseColMatrix x;
  ColumnStore store;
};

ChordPolicy Policy(uint32_t chord_size, uint32_t candidates) {
  ChordPolicy p;
  p.chord_size = chord_size;
  p.candidates = candidates;
  p.rho = 0.1;
  p.eta = 1e-12;
  p.seed = 11;
  return p;
}

// The same without the dependency filter (rho 1).
ChordPolicy UnfilteredPolicy(uint32_t chord_size, uint32_t candidates) {
  ChordPolicy p = Policy(chord_size, candidates);
  p.rho = 1.0;
  return p;
}

}  // namespace

TEST_CASE("ChordBuilder: a chord holds at most chord_size distinct parameters of the partition",
          "[chord_builder]") {
  Fixture f(Policy(3, 16));
  for (int round = 0; round < 20; ++round) {
    const auto chord = f.builder.Next();
    CHECK(chord.size() == 3);  // 8 independent pairs: the filter never runs short
    CHECK(std::set<uint64_t>(chord.begin(), chord.end()).size() == chord.size());
    for (uint64_t j : chord) {
      CHECK(j >= kFirst);
      CHECK(j < kEnd);
    }
    for (uint64_t j : chord) f.builder.OnCommit(j, 0.5);
  }
}

TEST_CASE("ChordBuilder: no two parameters of a chord are correlated above rho",
          "[chord_builder]") {
  Fixture f(Policy(8, 16));
  for (int round = 0; round < 20; ++round) {
    const auto chord = f.builder.Next();
    for (size_t a = 0; a < chord.size(); ++a) {
      for (size_t b = a + 1; b < chord.size(); ++b) {
        CHECK(f.store.Correlation(chord[a], chord[b]) <= 0.1);
      }
    }
    CHECK(chord.size() == 8);  // one of each pair
    for (uint64_t j : chord) f.builder.OnCommit(j, 0.5);
  }
}

TEST_CASE(
    "ChordBuilder: parameters in flight, and those correlated with them, are not drawn "
    "until committed",
    "[chord_builder][pipeline]") {
  Fixture f(Policy(3, 16));
  std::set<uint64_t> flying;
  std::vector<std::vector<uint64_t>> chords;
  for (int round = 0; round < 4; ++round) {
    const auto chord = f.builder.Next();
    for (uint64_t j : chord) {
      CHECK(flying.count(j) == 0);
      CHECK(flying.count(Partner(j)) == 0);
      flying.insert(j);
    }
    chords.push_back(chord);
  }
  CHECK(chords[2].size() == 2);  // 3 + 3 + 2 pairs: the partition is exhausted
  CHECK(chords[3].empty());
  CHECK(f.builder.in_flight() == 8);
  // Committing frees exactly those pairs.
  for (uint64_t j : chords[0]) f.builder.OnCommit(j, 0.5);
  CHECK(f.builder.in_flight() == 5);
  const auto next = f.builder.Next();
  REQUIRE(next.size() == 3);
  std::set<uint64_t> freed_pairs;
  for (uint64_t j : chords[0]) freed_pairs.insert(j / 2);
  for (uint64_t j : next) CHECK(freed_pairs.count(j / 2) == 1);
}

TEST_CASE("ChordBuilder: a prepared chord is in flight until dispatched or dropped",
          "[chord_builder][pipeline]") {
  Fixture f(Policy(3, 16));
  f.builder.Prepare();
  CHECK(f.builder.in_flight() == 3);
  const auto other = f.builder.Next();  // Next hands out the prepared chord first
  CHECK(other.size() == 3);
  CHECK(f.builder.in_flight() == 3);
  f.builder.Prepare();
  CHECK(f.builder.in_flight() == 6);
  f.builder.DropPrepared();
  CHECK(f.builder.in_flight() == 3);
}

TEST_CASE(
    "ChordBuilder: a chord ahead draws from the whole partition while at most a quarter is in "
    "flight",
    "[chord_builder][pipeline]") {
  // 16 parameters; the filter keeps one of each of the 8 pairs, so chords of 4 and 5 are full.
  Fixture quarter(Policy(4, 16));
  CHECK(quarter.builder.AheadDrawsWhole());  // nothing in flight
  REQUIRE(quarter.builder.Next().size() == 4);
  CHECK(quarter.builder.AheadDrawsWhole());  // 4 of 16
  Fixture more(Policy(5, 16));
  const auto chord = more.builder.Next();
  REQUIRE(chord.size() == 5);
  CHECK_FALSE(more.builder.AheadDrawsWhole());  // 5 of 16
  more.builder.OnCommit(chord[0], 0.5);
  CHECK(more.builder.AheadDrawsWhole());  // 4 of 16 again
}

TEST_CASE("ChordBuilder: commits and checks set priorities, and sampling follows them",
          "[chord_builder][priority]") {
  Fixture f(Policy(1, 1));
  // Every parameter measured optimal except 13, which should move by 4 / ||x||^2 = 2.
  for (uint64_t j = kFirst; j < kEnd; ++j) f.builder.OnCheck(j, j == 13 ? 4.0 : 0.0);
  CHECK(f.builder.Priority(13) == Approx(2.0));
  CHECK(f.builder.Priority(5) == Approx(1e-12));
  for (int round = 0; round < 5; ++round) {
    const auto chord = f.builder.Next();
    REQUIRE(chord == std::vector<uint64_t>{13});
    f.builder.OnCommit(13, -3.0);  // moved by 3: priority |delta| + eta
    CHECK(f.builder.Priority(13) == Approx(3.0));
  }
  f.builder.OnCommit(13, 0.0);
  f.builder.OnCommit(6, 7.0);
  CHECK(f.builder.Next() == std::vector<uint64_t>{6});
}

TEST_CASE(
    "ChordBuilder: among equal priorities the chord takes a random part, not the lowest indices",
    "[chord_builder][priority]") {
  // 1000 independent parameters, all at priority eta: the draw gives 2B candidates spread over
  // the partition in index order, and a chord of B keeps half of them. Kept by index, every chord
  // would lie in the lower half (and in the column layout the workers owning it would get
  // every update); kept at random, half its members lie in the upper half.
  // Ten of them (spread over both halves) have a high priority: the first chord lists them
  // first, then ties as the rest.
  constexpr int64_t kColumns = 1000;
  Independent f(kColumns);
  ChordBuilder builder(f.store, UnfilteredPolicy(50, 100));
  for (uint64_t j = 0; j < kColumns; ++j) builder.OnCheck(j, j % 100 == 7 ? 1e3 : 0.0);
  int upper = 0, members = 0;
  for (int round = 0; round < 40; ++round) {
    const auto chord = builder.Next();
    REQUIRE(chord.size() == 50);
    if (round == 0) {
      for (size_t k = 0; k < 10; ++k) CHECK(chord[k] % 100 == 7);
    }
    for (uint64_t j : chord) {
      upper += j >= kColumns / 2;
      ++members;
      builder.OnCommit(j, 0.0);  // back to eta, equal to the others
    }
  }
  CAPTURE(upper, members);
  CHECK(upper > 0.4 * members);
  CHECK(upper < 0.6 * members);
}

TEST_CASE(
    "ChordBuilder: without a filter a chord is the B highest-priority candidates, highest "
    "first",
    "[chord_builder][priority]") {
  // 1000 independent parameters of priorities 1 .. 1000 (violation j + 1 over a squared norm of
  // 1), 600 candidates, chords of 50: the draw takes every parameter of priority at least its
  // spacing (Total / 600, ~834) and some below; the chord is the 50 highest of them, in order.
  // The builder selects the first B without sorting the rest (std::nth_element).
  constexpr int64_t kColumns = 1000;
  Independent f(kColumns);
  ChordBuilder builder(f.store, UnfilteredPolicy(50, 600));
  for (uint64_t j = 0; j < kColumns; ++j) builder.OnCheck(j, static_cast<double>(j + 1));
  const auto chord = builder.Next();
  std::vector<uint64_t> expected;
  for (uint64_t j = kColumns; j-- > kColumns - 50;) expected.push_back(j);
  CHECK(chord == expected);
  // The next chord: the next 50 (the draw's spacing is then ~753), the first ones in flight.
  expected.clear();
  for (uint64_t j = kColumns - 50; j-- > kColumns - 100;) expected.push_back(j);
  CHECK(builder.Next() == expected);
}

TEST_CASE("ChordBuilder: OnCheckAll sets what OnCheck of every parameter would, in flight or not",
          "[chord_builder][priority]") {
  constexpr int64_t kColumns = 500;
  SparseColMatrix x(kColumns, kColumns);  // column j: one entry in row j, norm (j % 5) / 2
  for (int64_t j = 0; j < kColumns; ++j) {
    if (j % 5 != 0) x.insert(j, j) = 0.5 * static_cast<double>(j % 5);
  }
  x.makeCompressed();
  // The partition [50, 500): a fifth of its columns empty (priority 0).
  constexpr uint64_t kFrom = 50;
  const ColumnStore store(x, kFrom, kColumns);
  for (const bool index_order : {false, true}) {
    CAPTURE(index_order);
    ChordPolicy policy = UnfilteredPolicy(40, 120);
    policy.index_order = index_order;
    ChordBuilder one_by_one(store, policy);
    ChordBuilder all(store, policy);
    std::vector<double> violations(kColumns - kFrom);  // by local index
    for (int round = 0; round < 20; ++round) {
      CAPTURE(round);
      // Every other check finds a chord prepared ahead, in flight: its parameters keep weight 0.
      const bool prepared = round % 6 == 0;
      if (prepared) {
        one_by_one.Prepare();
        all.Prepare();
      }
      if (round % 3 == 0) {
        for (uint64_t j = kFrom; j < kColumns; ++j) {
          violations[j - kFrom] = static_cast<double>((j * 7919 + round * 131) % 1009) / 100.0;
          one_by_one.OnCheck(j, violations[j - kFrom]);
        }
        all.OnCheckAll(violations);
        for (uint64_t j = kFrom; j < kColumns; ++j) {
          REQUIRE(all.Priority(j) == one_by_one.Priority(j));
        }
      }
      std::vector<uint64_t> chord = one_by_one.Next();  // the prepared one, if any
      REQUIRE(all.Next() == chord);
      REQUIRE_FALSE(chord.empty());
      if (prepared) {  // and one built on the check's weights, beside it
        const std::vector<uint64_t> next = one_by_one.Next();
        REQUIRE(all.Next() == next);
        for (uint64_t j : next) REQUIRE(std::find(chord.begin(), chord.end(), j) == chord.end());
        chord.insert(chord.end(), next.begin(), next.end());
      }
      for (uint64_t j : chord) {
        const double delta = 0.001 * static_cast<double>((j * 31 + round) % 17);
        one_by_one.OnCommit(j, delta);
        all.OnCommit(j, delta);
      }
    }
    CHECK(all.in_flight() == one_by_one.in_flight());
  }
}

TEST_CASE("ChordBuilder: with index_order the chord is the same B parameters, ascending by index",
          "[chord_builder][priority]") {
  // The draws and the selection are those of the priority order (same seed, same priorities,
  // ties included: 200 of the priorities are equal); only the order of the chord differs. With
  // every priority equal the first draw takes one pass (no index holds two points), and its
  // order is the chord's; with unequal ones heavy indices hold several points, the draw takes
  // more passes, and the chord is sorted.
  constexpr int64_t kColumns = 1000;
  Independent f(kColumns);
  for (const bool equal : {true, false}) {
    CAPTURE(equal);
    ChordPolicy policy = UnfilteredPolicy(50, 600);
    ChordBuilder by_priority(f.store, policy);
    policy.index_order = true;
    ChordBuilder by_index(f.store, policy);
    for (uint64_t j = 0; j < kColumns; ++j) {
      const double violation = equal || j < 200 ? 1.0 : static_cast<double>((j * 7919) % 1000 + 1);
      by_priority.OnCheck(j, violation);
      by_index.OnCheck(j, violation);
    }
    for (int round = 0; round < 30; ++round) {
      CAPTURE(round);
      std::vector<uint64_t> expected = by_priority.Next();
      const std::vector<uint64_t> chord = by_index.Next();
      REQUIRE(chord.size() == 50);
      CHECK(std::is_sorted(chord.begin(), chord.end()));
      std::sort(expected.begin(), expected.end());
      CHECK(chord == expected);
      for (uint64_t j : chord) {
        by_priority.OnCommit(j, 0.01 * static_cast<double>(j % 13));
        by_index.OnCommit(j, 0.01 * static_cast<double>(j % 13));
      }
    }
  }
}

TEST_CASE("ChordBuilder: without a filter or commits, chords take every parameter once",
          "[chord_builder][pipeline]") {
  // 1,000 parameters, chords of 50 from 600 candidates, heavy priorities on a few (so the draws
  // take several passes and zero their first passes' candidates): the 20 chords built before any
  // commit hold every parameter exactly once, and a 21st is empty. A candidate left out of its
  // chord and not given its weight back would never be drawn again; a chord's parameter not set
  // to weight 0 could be drawn twice.
  constexpr int64_t kColumns = 1000;
  Independent f(kColumns);
  for (const bool index_order : {false, true}) {
    CAPTURE(index_order);
    ChordPolicy policy = UnfilteredPolicy(50, 600);
    policy.index_order = index_order;
    ChordBuilder builder(f.store, policy);
    for (uint64_t j = 0; j < kColumns; ++j) {
      builder.OnCheck(j, j % 97 == 0 ? 1000.0 : 1.0 + static_cast<double>(j % 10));
    }
    std::vector<int> seen(kColumns, 0);
    for (int chord = 0; chord < 20; ++chord) {
      CAPTURE(chord);
      const std::vector<uint64_t> ids = builder.Next();
      REQUIRE(ids.size() == 50);
      for (uint64_t j : ids) ++seen[j];
    }
    CHECK(builder.Next().empty());
    CHECK(builder.in_flight() == kColumns);
    for (int64_t j = 0; j < kColumns; ++j) REQUIRE(seen[j] == 1);
  }
}

TEST_CASE(
    "ChordBuilder: unfiltered, a parameter in flight is not drawn again until its chord is dropped",
    "[chord_builder][pipeline]") {
  // rho 1: nothing but the sampler's zero weight keeps a parameter in flight out of the next
  // chord (its weight is set by the next draw's flush).
  Fixture f(UnfilteredPolicy(3, 3));
  std::set<uint64_t> seen;
  for (int round = 0; round < 8; ++round) {
    for (uint64_t j : f.builder.Next()) CHECK(seen.insert(j).second);
  }
  CHECK(seen.size() == kEnd - kFirst);
  CHECK(f.builder.Next().empty());
  f.builder.OnCommit(9, 0.5);  // the only free parameter
  f.builder.Prepare();
  CHECK(f.builder.in_flight() == kEnd - kFirst);
  f.builder.DropPrepared();
  CHECK(f.builder.Next() == std::vector<uint64_t>{9});
}

}  // namespace strads

namespace strads {
namespace {

// Violations that make parameter j's priority (j * 7919) % 1000 + 1: all distinct below 1000.
void DistinctPriorities(ChordBuilder& b, uint64_t columns) {
  for (uint64_t j = 0; j < columns; ++j) b.OnCheck(j, static_cast<double>((j * 7919) % 1000 + 1));
}

}  // namespace

TEST_CASE("ChordBuilder: dual lanes split one draw, the fresh lane its highest priorities",
          "[chord_builder][dual]") {
  // The same draw as one chord of 2B without lanes: the fresh lane is its B highest-priority
  // parameters, the stale lane (the next Next) the rest; both in flight until committed.
  constexpr int64_t kColumns = 1000;
  Independent f(kColumns);
  for (const bool index_order : {false, true}) {
    CAPTURE(index_order);
    ChordPolicy policy = Policy(40, 80);
    policy.rho = 1.0;
    ChordPolicy one_chord = policy;
    one_chord.chord_size = 80;
    ChordBuilder whole(f.store, one_chord);
    policy.dual_lanes = true;
    policy.index_order = index_order;
    ChordBuilder lanes(f.store, policy);
    DistinctPriorities(whole, kColumns);
    DistinctPriorities(lanes, kColumns);
    for (int pair = 0; pair < 5; ++pair) {
      CAPTURE(pair);
      const std::vector<uint64_t> both = whole.Next();  // priority order
      REQUIRE(both.size() == 80);
      const std::vector<uint64_t> fresh = lanes.Next();
      CHECK_FALSE(lanes.last_was_stale());
      CHECK(lanes.ready());  // the stale lane waits, built
      CHECK(lanes.in_flight() == 80);
      const std::vector<uint64_t> stale = lanes.Next();
      CHECK(lanes.last_was_stale());
      REQUIRE(fresh.size() == 40);
      REQUIRE(stale.size() == 40);
      std::vector<uint64_t> want_fresh(both.begin(), both.begin() + 40);
      std::vector<uint64_t> want_stale(both.begin() + 40, both.end());
      if (index_order) {
        CHECK(std::is_sorted(fresh.begin(), fresh.end()));
        CHECK(std::is_sorted(stale.begin(), stale.end()));
        std::sort(want_fresh.begin(), want_fresh.end());
        std::sort(want_stale.begin(), want_stale.end());
      }
      CHECK(fresh == want_fresh);
      CHECK(stale == want_stale);
      double lowest_fresh = 1e9, highest_stale = 0;
      for (uint64_t j : fresh) lowest_fresh = std::min(lowest_fresh, lanes.Priority(j));
      for (uint64_t j : stale) highest_stale = std::max(highest_stale, lanes.Priority(j));
      CHECK(lowest_fresh > highest_stale);
      for (uint64_t j : both) whole.OnCommit(j, 0.001 * static_cast<double>(j % 17 + 1));
      for (uint64_t j : fresh) lanes.OnCommit(j, 0.001 * static_cast<double>(j % 17 + 1));
      for (uint64_t j : stale) lanes.OnCommit(j, 0.001 * static_cast<double>(j % 17 + 1));
      CHECK(lanes.in_flight() == 0);
    }
  }
}

TEST_CASE("ChordBuilder: dual lanes built ahead come fresh first, and a drop frees both",
          "[chord_builder][dual]") {
  constexpr int64_t kColumns = 200;
  Independent f(kColumns);
  ChordPolicy policy = Policy(10, 20);
  policy.rho = 1.0;
  policy.dual_lanes = true;
  ChordBuilder b(f.store, policy);
  DistinctPriorities(b, kColumns);
  b.Prepare();
  REQUIRE(b.ready());
  CHECK(b.in_flight() == 20);
  const std::vector<uint64_t> ahead(b.prepared_chord().begin(), b.prepared_chord().end());
  const std::vector<uint64_t> fresh = b.Next();
  CHECK(fresh == ahead);
  CHECK_FALSE(b.last_was_stale());
  // The stale lane is what Next gives now; Prepare builds nothing over it.
  const std::vector<uint64_t> waiting(b.prepared_chord().begin(), b.prepared_chord().end());
  b.Prepare();
  CHECK(b.in_flight() == 20);
  // A check drops what was not sent: the stale lane's parameters are free again, the fresh
  // lane's stay in flight until their commit.
  b.DropPrepared();
  CHECK_FALSE(b.prepared());
  CHECK(b.in_flight() == 10);
  for (uint64_t j : fresh) b.OnCommit(j, 1.0);
  CHECK(b.in_flight() == 0);
  // The dropped stale lane's parameters have their weights back: with every other parameter at
  // priority eta, the next draw's fresh lane is exactly them.
  for (uint64_t j = 0; j < kColumns; ++j) {
    if (std::find(waiting.begin(), waiting.end(), j) == waiting.end()) b.OnCheck(j, 0.0);
  }
  std::vector<uint64_t> next = b.Next();
  std::sort(next.begin(), next.end());
  std::vector<uint64_t> dropped = waiting;
  std::sort(dropped.begin(), dropped.end());
  CHECK(next == dropped);
  for (uint64_t j : next) b.OnCommit(j, 1.0);
  for (uint64_t j : b.Next()) b.OnCommit(j, 1.0);  // its stale lane
  CHECK(b.in_flight() == 0);
  // Built ahead and dropped together: the prepared chord and its stale lane.
  b.Prepare();
  CHECK(b.in_flight() == 20);
  b.DropPrepared();
  CHECK(b.in_flight() == 0);
  CHECK_FALSE(b.prepared());
}

}  // namespace strads
