// AppStub<EngineApp>: the App methods (engine/app.h) a test's stub app does not care about —
// name "stub", no options, every spec valid, no output files — so a stub states only the engine
// primitives its test drives.
#pragma once

#include <string>
#include <vector>

#include "engine/app.h"

namespace strads::testing {

template <typename EngineApp>
class AppStub : public EngineApp {
 public:
  std::string name() const override { return "stub"; }
  std::string summary() const override { return "a test's stub app"; }
  boost::program_options::options_description Options() const override {
    return boost::program_options::options_description("stub");
  }
  Status FromOptions(const boost::program_options::variables_map&, proto::JobSpec&) const override {
    return Status::Ok();
  }
  Status Validate(const proto::JobSpec&) const override { return Status::Ok(); }
  std::vector<std::string> OutputFiles() const override { return {}; }
};

}  // namespace strads::testing
