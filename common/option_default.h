// ValueWithDefault: a Boost.Program_options value whose default `--help` shows as the shortest
// text that reads back as the same number ("0.1", "1e-06"), where Boost's lexical_cast would show
// all 17 digits ("0.10000000000000001", "9.9999999999999995e-07").
// Header-only; the caller links Boost::program_options.
#pragma once

#include <string>

#include <fmt/format.h>
#include <boost/program_options.hpp>

namespace strads {

// The text `--help` shows for a default: fmt's shortest round-trip form.
template <class T>
std::string DefaultText(const T& value) {
  return fmt::format("{}", value);
}

// po::value(store)->default_value(value) with DefaultText(value) as its text. `store` may be
// null (the value is then read from the variables_map).
template <class T>
boost::program_options::typed_value<T>* ValueWithDefault(T* store, const T& value) {
  return boost::program_options::value<T>(store)->default_value(value, DefaultText(value));
}

}  // namespace strads
