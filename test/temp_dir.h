// Test support: a fresh directory under the system temp dir, removed with everything in it when
// the object goes out of scope, and reading a file whole. For tests only (they REQUIRE, Catch2
// style).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <catch2/catch.hpp>

namespace strads::testing {

// The bytes of the file at `path`, which must be readable.
inline std::string ReadFile(const std::filesystem::path& path) {
  INFO(path.string());
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.is_open());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  REQUIRE_FALSE(in.bad());
  return bytes.str();
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "strads_test_XXXXXX").string();
    REQUIRE(mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `contents` to a file `name` in the directory and returns its path.
  std::string Write(const std::string& name, const std::string& contents) const {
    const std::string p = (path_ / name).string();
    std::ofstream out(p, std::ios::binary);
    out << contents;
    REQUIRE(out.good());
    return p;
  }
  std::string Path(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace strads::testing
