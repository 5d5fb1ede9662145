#include "common/logging.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace strads {

Logger MakeLogger(const std::string& role, const std::string& node_id, const std::string& level) {
  auto sink = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>(role + ":" + node_id, sink);
  logger->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ [%n] %v");
  logger->set_level(spdlog::level::from_str(level));
  return logger;
}

}  // namespace strads
