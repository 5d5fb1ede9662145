#include "common/wire_frames.h"

#include <bit>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>
#include <google/protobuf/repeated_field.h>

namespace strads {
namespace {

static_assert(std::endian::native == std::endian::little,
              "raw frames carry arrays in little-endian byte order");

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::RepeatedField;

// The one reflection call that reaches an array's storage, which raw frames need (to swap it out,
// and to fill it with one memcpy). Protobuf deprecates it in favour of GetMutableRepeatedFieldRef,
// which offers element access only; it is still supported in every release.
template <typename T>
RepeatedField<T>* Storage(Message& m, const FieldDescriptor& f) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  return m.GetReflection()->MutableRepeatedField<T>(&m, &f);
#pragma GCC diagnostic pop
}

constexpr int kRawArraysField = proto::Envelope::kRawArraysFieldNumber;
constexpr size_t kMaxPathLength = 32;

size_t ElementSize(const FieldDescriptor& f) {
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      return 8;
    case FieldDescriptor::CPPTYPE_FLOAT:
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32:
      return 4;
    default:
      return 0;  // not a number that travels raw (bool, enum, string, message)
  }
}

template <typename T>
RawFrame SwapOut(Message& m, const FieldDescriptor& f) {
  auto owned = std::make_shared<RepeatedField<T>>();
  Storage<T>(m, f)->Swap(owned.get());
  const void* data = owned->data();
  const size_t size = static_cast<size_t>(owned->size()) * sizeof(T);
  return RawFrame{data, size, std::move(owned)};
}

// fn(T{}) for the C++ type T of f's elements. REQUIRES: ElementSize(f) > 0.
template <typename Fn>
decltype(auto) WithElementType(const FieldDescriptor& f, Fn&& fn) {
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return fn(double{});
    case FieldDescriptor::CPPTYPE_INT64:
      return fn(int64_t{});
    case FieldDescriptor::CPPTYPE_UINT64:
      return fn(uint64_t{});
    case FieldDescriptor::CPPTYPE_FLOAT:
      return fn(float{});
    case FieldDescriptor::CPPTYPE_INT32:
      return fn(int32_t{});
    default:
      return fn(uint32_t{});
  }
}

RawFrame SwapOut(Message& m, const FieldDescriptor& f) {
  return WithElementType(f, [&](auto tag) { return SwapOut<decltype(tag)>(m, f); });
}

// Moves m's large numeric arrays (and those of every message under it) into `out`, listing each
// in `manifest`; `path` leads from the envelope to m.
void Lift(Message& m, bool is_envelope, int min_elements, std::vector<uint32_t>& path,
          WireMessage& out, google::protobuf::RepeatedPtrField<proto::RawArray>& manifest) {
  const auto* reflection = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (is_envelope && f->number() == kRawArraysField) continue;
    path.push_back(static_cast<uint32_t>(f->number()));
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        const int n = reflection->FieldSize(m, f);
        for (int i = 0; i < n; ++i) {
          path.push_back(static_cast<uint32_t>(i));
          Lift(*reflection->MutableRepeatedMessage(&m, f, i), false, min_elements, path, out,
               manifest);
          path.pop_back();
        }
      } else {
        Lift(*reflection->MutableMessage(&m, f), false, min_elements, path, out, manifest);
      }
    } else if (f->is_repeated() && ElementSize(*f) > 0 &&
               reflection->FieldSize(m, f) >= min_elements) {
      out.arrays.push_back(SwapOut(m, *f));
      manifest.Add()->mutable_path()->Assign(path.begin(), path.end());
    }
    path.pop_back();
  }
}

template <typename T>
void Fill(Message& m, const FieldDescriptor& f, std::string_view bytes) {
  auto* field = Storage<T>(m, f);
  const int n = static_cast<int>(bytes.size() / sizeof(T));
  field->Reserve(n);
  std::memcpy(field->AddNAlreadyReserved(n), bytes.data(), bytes.size());
}

Status Place(proto::Envelope& envelope, const proto::RawArray& where, std::string_view bytes) {
  const auto& path = where.path();
  if (path.empty() || static_cast<size_t>(path.size()) > kMaxPathLength) {
    return Status::InvalidArgument(fmt::format("a raw array's path has {} steps", path.size()));
  }
  Message* m = &envelope;
  for (int i = 0; i < path.size(); ++i) {
    const auto* reflection = m->GetReflection();
    const FieldDescriptor* f = m->GetDescriptor()->FindFieldByNumber(static_cast<int>(path[i]));
    if (f == nullptr || (m == &envelope && f->number() == kRawArraysField)) {
      return Status::InvalidArgument(fmt::format("a raw array's path names no field {} in {}",
                                                 path[i], m->GetDescriptor()->name()));
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        // Unsigned: an index of 2^31 or more must not turn negative and slip past the bound.
        if (i + 1 >= path.size() ||
            path[i + 1] >= static_cast<uint32_t>(reflection->FieldSize(*m, f))) {
          return Status::InvalidArgument(
              fmt::format("a raw array's path indexes past the {} elements of {}",
                          reflection->FieldSize(*m, f), f->full_name()));
        }
        m = reflection->MutableRepeatedMessage(m, f, static_cast<int>(path[++i]));
      } else {
        if (!reflection->HasField(*m, f)) {
          return Status::InvalidArgument(
              fmt::format("a raw array's path goes through {}, which is not set", f->full_name()));
        }
        m = reflection->MutableMessage(m, f);
      }
      continue;
    }
    const size_t element = ElementSize(*f);
    if (i + 1 != path.size() || !f->is_repeated() || element == 0) {
      return Status::InvalidArgument(fmt::format(
          "a raw array's path ends at {}, which is not a repeated number", f->full_name()));
    }
    if (reflection->FieldSize(*m, f) != 0) {
      return Status::InvalidArgument(
          fmt::format("{} is given twice (in the header and as a raw frame)", f->full_name()));
    }
    if (bytes.empty() || bytes.size() % element != 0 ||
        bytes.size() / element > static_cast<size_t>(std::numeric_limits<int>::max())) {
      return Status::InvalidArgument(
          fmt::format("the raw frame of {} has {} bytes, not a positive whole number of {}-byte "
                      "elements",
                      f->full_name(), bytes.size(), element));
    }
    WithElementType(*f, [&](auto tag) { Fill<decltype(tag)>(*m, *f, bytes); });
    return Status::Ok();
  }
  return Status::InvalidArgument("a raw array's path ends at a message, not at a number");
}

}  // namespace

Result<WireMessage> EncodeWire(proto::Envelope envelope, int min_elements) {
  WireMessage out;
  envelope.clear_raw_arrays();  // the encoder's to fill: a stale list would not match the frames
  std::vector<uint32_t> path;
  Lift(envelope, true, min_elements, path, out, *envelope.mutable_raw_arrays());
  if (!envelope.SerializeToString(&out.header)) {
    return Status::Internal("cannot serialize the envelope's header");
  }
  return out;
}

Result<proto::Envelope> DecodeWire(std::string_view header,
                                   std::span<const std::string_view> arrays) {
  proto::Envelope envelope;
  if (!envelope.ParseFromArray(header.data(), static_cast<int>(header.size()))) {
    return Status::InvalidArgument("the header frame does not parse as an envelope");
  }
  if (static_cast<size_t>(envelope.raw_arrays_size()) != arrays.size()) {
    return Status::InvalidArgument(fmt::format("the header lists {} raw arrays, {} frames follow",
                                               envelope.raw_arrays_size(), arrays.size()));
  }
  for (size_t k = 0; k < arrays.size(); ++k) {
    STRADS_RETURN_IF_ERROR(Place(envelope, envelope.raw_arrays(static_cast<int>(k)), arrays[k]));
  }
  envelope.clear_raw_arrays();
  return envelope;
}

}  // namespace strads
