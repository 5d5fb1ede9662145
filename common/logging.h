// Named spdlog loggers, one per component, every line tagged with role and node id.
//
// MakeLogger returns a new logger (not registered globally) writing to stderr. Daemons create one
// per component in main and pass it down; libraries never write to std::cout.
#pragma once

#include <memory>
#include <string>

#include <spdlog/logger.h>

namespace strads {

using Logger = std::shared_ptr<spdlog::logger>;

// A logger named "<role>:<node_id>" at `level` ("trace".."off"); unknown levels mean "info".
Logger MakeLogger(const std::string& role, const std::string& node_id,
                  const std::string& level = "info");

}  // namespace strads
