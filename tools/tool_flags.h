// The command-line parsing every tool executable does the same way (strads-gen and the
// strads-*-reference solvers): boost::program_options flags, --help, and exit code 2 for a bad
// flag; and exit code 1, with the error on stderr, for a failure at run time.
#pragma once

#include <iostream>
#include <optional>
#include <string>

#include <boost/program_options.hpp>

namespace strads::tools {

// Parses argv against `desc` into *vm (notifying the bound variables). Returns nullopt when the
// tool should go on; otherwise the exit code to return at once: 0 after printing `desc` for
// --help (which `desc` must define), 2 after printing "NAME: what is wrong" and "(see HINT)" to
// stderr for an unknown flag or a bad value.
inline std::optional<int> ParseToolFlags(int argc, char** argv,
                                         const boost::program_options::options_description& desc,
                                         const std::string& name, const std::string& hint,
                                         boost::program_options::variables_map* vm) {
  namespace po = boost::program_options;
  try {
    po::store(po::command_line_parser(argc, argv).options(desc).run(), *vm);
    po::notify(*vm);
  } catch (const po::error& e) {
    std::cerr << name << ": " << e.what() << "\n(see " << hint << ")\n";
    return 2;
  }
  if (vm->count("help")) {
    std::cout << desc << "\n";
    return 0;
  }
  return std::nullopt;
}

// Prints "NAME: message" to stderr; the exit code of a tool that failed at run time.
inline int ToolFailure(const std::string& name, const std::string& message) {
  std::cerr << name << ": " << message << "\n";
  return 1;
}

}  // namespace strads::tools
