// Test support: messages a member's job gets from the coordinator, built as the coordinator builds
// them, for the tests that drive a member or its jobs by hand (member_job_test.cc,
// runtime_unit_test.cc). For tests only (they REQUIRE, Catch2 style).
#pragma once

#include <cstdint>
#include <string>

#include <catch2/catch.hpp>

#include "common/data_loader.h"
#include "common/protocol.h"

namespace strads::testing {

// The whole file's column counts of `data` for job `job`: what the coordinator sends once the
// workers have counted their parts (a dynamic job loads its columns only then). The file must be
// countable.
inline proto::Envelope ColumnCountsEnvelope(uint64_t job, const std::string& data) {
  uint64_t rows = 0;
  auto counts = CountColumnEntries(DataSource{data, "", ""}, uint64_t{1} << 30, nullptr, &rows);
  REQUIRE(counts.ok());
  auto e = MakeEnvelope("coordinator", job, 0);
  e.mutable_column_counts()->set_rows(rows);
  e.mutable_column_counts()->mutable_counts()->Assign(counts->begin(), counts->end());
  return e;
}

// Shared update `round` of job `job`: entry `row` of a replica of `rows` entries moved by `delta`.
inline proto::Envelope SharedUpdateOf(uint64_t job, uint64_t round, uint64_t rows, uint64_t row,
                                      double delta) {
  auto e = MakeEnvelope("coordinator", job, round);
  auto* change = e.mutable_shared_update()->mutable_change();
  change->set_size(rows);
  change->add_indices(row);
  change->add_values(delta);
  return e;
}

}  // namespace strads::testing
