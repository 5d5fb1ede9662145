// Wire frames (common/wire_frames.h): which arrays leave the header, that every envelope comes
// back equal, that the arrays are moved rather than copied, and that hostile frames are refused
// with a reason. The ZeroMQ round trip is in runtime_unit_test.cc.
#include <cstring>
#include <vector>

#include <google/protobuf/util/message_differencer.h>
#include <catch2/catch.hpp>

#include "common/protocol.h"
#include "common/wire_frames.h"

namespace strads {
namespace {

using google::protobuf::util::MessageDifferencer;

proto::Envelope ColumnPartialsOf(int ids, int delta_values) {
  auto e = MakeEnvelope("worker-0", 3, 17);
  auto* p = e.mutable_column_partials();
  for (int i = 0; i < ids; ++i) {
    p->add_ids(uint64_t{1000003} * static_cast<uint64_t>(i));
    p->add_values(0.25 * i - 3.0);
  }
  auto* change = p->mutable_change();
  change->set_size(5000);
  for (int i = 0; i < delta_values; ++i) {
    change->add_indices(static_cast<uint64_t>(3 * i));
    change->add_values(-1.5 * i);
  }
  p->set_loss(12.5);
  p->set_applied_through(16);
  return e;
}

std::vector<std::string_view> Views(const WireMessage& wire) {
  std::vector<std::string_view> views;
  for (const auto& a : wire.arrays) views.emplace_back(static_cast<const char*>(a.data), a.size);
  return views;
}

// A threshold that lifts arrays of a test's size, to exercise the paths (the default is
// kMinRawElements).
constexpr int kSmall = 16;

proto::Envelope RoundTrip(const proto::Envelope& e, size_t* frames = nullptr,
                          int min_elements = kSmall) {
  auto wire = EncodeWire(e, min_elements);
  REQUIRE(wire.ok());
  if (frames) *frames = wire->arrays.size();
  auto views = Views(*wire);
  auto back = DecodeWire(wire->header, views);
  REQUIRE(back.ok());
  return std::move(back).value();
}

// A well-formed message of `e`, ready to be tampered with.
struct Tampered {
  proto::Envelope header;
  std::vector<std::string> arrays;

  explicit Tampered(const proto::Envelope& e) {
    auto wire = EncodeWire(e, kSmall);
    REQUIRE(wire.ok());
    REQUIRE(header.ParseFromString(wire->header));
    for (const auto& a : wire->arrays)
      arrays.emplace_back(static_cast<const char*>(a.data), a.size);
  }

  Status Decode() const {
    std::vector<std::string_view> views(arrays.begin(), arrays.end());
    return DecodeWire(header.SerializeAsString(), views).status();
  }
};

}  // namespace

TEST_CASE("a column-layout message travels as a header and one raw frame per large array",
          "[wire]") {
  const auto e = ColumnPartialsOf(kMinRawElements, kMinRawElements + 100);
  auto wire = EncodeWire(e);
  REQUIRE(wire.ok());
  REQUIRE(wire->arrays.size() == 4);  // ids, values, change.indices, change.values
  CHECK(wire->arrays[0].size == kMinRawElements * 8);
  CHECK(wire->arrays[2].size == (kMinRawElements + 100) * 8);
  CHECK(wire->header.size() < 100);  // the numbers left the header
  proto::Envelope header;
  REQUIRE(header.ParseFromString(wire->header));
  REQUIRE(header.raw_arrays_size() == 4);
  // column_partials (60) > change (3) > values (4)
  CHECK(std::vector<uint32_t>(header.raw_arrays(3).path().begin(),
                              header.raw_arrays(3).path().end()) ==
        std::vector<uint32_t>{60, 3, 4});
  auto views = Views(*wire);
  auto back = DecodeWire(wire->header, views);
  REQUIRE(back.ok());
  CHECK(back->raw_arrays_size() == 0);
  CHECK(MessageDifferencer::Equals(*back, e));
}

TEST_CASE("small arrays stay inside the header, and every kind of array comes back equal",
          "[wire]") {
  size_t frames = 99;
  const auto small = ColumnPartialsOf(kMinRawElements - 1, 3);
  CHECK(MessageDifferencer::Equals(RoundTrip(small, &frames, kMinRawElements), small));
  CHECK(frames == 0);

  // Repeated messages on the way (StaticOutput.pieces), ints, and every element width.
  auto e = MakeEnvelope("worker-1", 9, 1);
  auto* out = e.mutable_static_output();
  for (int p = 0; p < 3; ++p) {
    auto* piece = out->add_pieces();
    piece->set_name("piece" + std::to_string(p));
    for (int i = 0; i < 20 + p; ++i) {
      piece->add_values(i * 0.1 + p);
      piece->add_ints(-int64_t{1} << (i % 60));
    }
  }
  out->add_pieces()->add_values(1.0);  // one small piece in between stays inline
  auto back = RoundTrip(e, &frames);
  CHECK(frames == 6);
  CHECK(MessageDifferencer::Equals(back, e));

  auto status = MakeEnvelope("coordinator");
  auto* job = status.mutable_status_reply()->add_jobs();
  for (int i = 0; i < 40; ++i) job->add_worker_seconds(i);
  CHECK(MessageDifferencer::Equals(RoundTrip(status, &frames), status));
  CHECK(frames == 1);

  // No arrays at all: the header alone.
  auto plain = MakeEnvelope("client");
  plain.mutable_status_request();
  CHECK(MessageDifferencer::Equals(RoundTrip(plain, &frames), plain));
  CHECK(frames == 0);
}

TEST_CASE("a stale list of raw arrays in the envelope given to EncodeWire is dropped", "[wire]") {
  auto e = ColumnPartialsOf(32, 0);
  e.add_raw_arrays()->add_path(999);
  size_t frames = 0;
  const auto back = RoundTrip(e, &frames);
  CHECK(frames == 2);
  e.clear_raw_arrays();
  CHECK(MessageDifferencer::Equals(back, e));
}

TEST_CASE("an owned envelope's arrays go to the wire in place, without a copy", "[wire]") {
  auto e = ColumnPartialsOf(4096, 0);
  const void* ids = e.column_partials().ids().data();
  const void* values = e.column_partials().values().data();
  auto wire = EncodeWire(std::move(e));
  REQUIRE(wire.ok());
  REQUIRE(wire->arrays.size() == 2);
  CHECK(wire->arrays[0].data == ids);
  CHECK(wire->arrays[1].data == values);
  // The frame keeps its array alive on its own.
  RawFrame frame = wire->arrays[1];
  wire = Status::Internal("dropped");
  double last = 0;
  std::memcpy(&last, static_cast<const char*>(frame.data) + frame.size - 8, 8);
  CHECK(last == 0.25 * 4095 - 3.0);
}

TEST_CASE("hostile raw frames are refused with a reason, never half-read", "[wire]") {
  const auto e = ColumnPartialsOf(32, 32);

  SECTION("a frame missing or one too many") {
    Tampered t(e);
    t.arrays.pop_back();
    CHECK_THAT(t.Decode().message(), Catch::Contains("lists 4 raw arrays, 3 frames follow"));
    Tampered u(e);
    u.arrays.push_back("12345678");
    CHECK_THAT(u.Decode().message(), Catch::Contains("5 frames follow"));
  }
  SECTION("a frame that is empty or not a whole number of elements") {
    Tampered t(e);
    t.arrays[1].pop_back();
    CHECK_THAT(t.Decode().message(), Catch::Contains("not a positive whole number of 8-byte"));
    Tampered u(e);
    u.arrays[1].clear();
    CHECK_THAT(u.Decode().message(), Catch::Contains("has 0 bytes"));
  }
  SECTION("a path to no field, to a string, to a message, or through an unset message") {
    Tampered t(e);
    t.header.mutable_raw_arrays(0)->set_path(1, 99);
    CHECK_THAT(t.Decode().message(), Catch::Contains("names no field 99"));
    Tampered u(e);
    u.header.mutable_raw_arrays(0)->clear_path();
    u.header.mutable_raw_arrays(0)->add_path(3);  // Envelope.sender, a string
    CHECK_THAT(u.Decode().message(), Catch::Contains("not a repeated number"));
    Tampered v(e);
    v.header.mutable_raw_arrays(0)->clear_path();
    v.header.mutable_raw_arrays(0)->add_path(60);  // ends at ColumnPartials itself
    CHECK_THAT(v.Decode().message(), Catch::Contains("ends at a message"));
    Tampered w(e);
    w.header.mutable_raw_arrays(0)->set_path(0, 34);  // Chord, not the body that is set
    CHECK_THAT(w.Decode().message(), Catch::Contains("not set"));
  }
  SECTION("an index past a repeated message's elements") {
    auto s = MakeEnvelope("w");
    for (int i = 0; i < 20; ++i) s.mutable_static_output()->add_pieces()->add_values(i);
    s.mutable_static_output()->mutable_pieces(0)->mutable_values()->Resize(20, 1.0);
    Tampered t(s);
    REQUIRE(t.header.raw_arrays_size() == 1);
    t.header.mutable_raw_arrays(0)->set_path(2, 20);  // [55, 1, index, 4]
    CHECK_THAT(t.Decode().message(), Catch::Contains("indexes past the 20 elements"));
    Tampered u(s);
    u.header.mutable_raw_arrays(0)->set_path(2, 0x80000000u);  // negative as an int
    CHECK_THAT(u.Decode().message(), Catch::Contains("indexes past the 20 elements"));
  }
  SECTION("an array given twice, or the list itself as a target") {
    Tampered t(e);
    *t.header.add_raw_arrays() = t.header.raw_arrays(0);
    t.arrays.push_back(t.arrays[0]);
    CHECK_THAT(t.Decode().message(), Catch::Contains("given twice"));
    Tampered u(e);
    u.header.mutable_raw_arrays(0)->clear_path();
    u.header.mutable_raw_arrays(0)->add_path(proto::Envelope::kRawArraysFieldNumber);
    CHECK_THAT(u.Decode().message(), Catch::Contains("names no field"));
  }
  SECTION("a header that does not parse") {
    std::vector<std::string_view> none;
    CHECK_THAT(DecodeWire("\xff\xff\xff", none).status().message(),
               Catch::Contains("does not parse"));
  }
}

}  // namespace strads
