// A whole STRADS cluster in one process: the coordinator, S schedulers and P workers, each an
// Actor on its own thread with its own event loop, talking over one InProcHub. The same classes
// as the daemons, minus ZeroMQ: `strads run` uses it, and so do the in-process cluster tests.
// Thread-safety: construct, use and destroy from one thread; the members run on theirs.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/inproc_transport.h"
#include "common/logging.h"
#include "coordinator/coordinator.h"
#include "engine/app_registry.h"

namespace strads {

class EmbeddedCluster {
 public:
  // Starts every member; they register at once. `log_level` applies to every member's logger.
  EmbeddedCluster(uint32_t schedulers, uint32_t workers, CoordinatorOptions options,
                  const std::string& log_level = "warn");
  // Stops every member and joins the threads.
  ~EmbeddedCluster();

  InProcHub& hub() { return hub_; }
  // The apps its members know (BuiltinApps()).
  const AppRegistry& apps() const { return apps_; }
  // Node ids, e.g. "worker-1".
  std::string worker_id(uint32_t i) const { return "worker-" + std::to_string(i); }

  // Stops worker i's thread abruptly, as if its process died (no goodbye message).
  void KillWorker(uint32_t i);

 private:
  struct Node {
    std::unique_ptr<InProcTransport> transport;
    std::unique_ptr<Actor> actor;
    std::atomic<bool> stop{false};
    std::thread thread;
    Logger log;
  };
  void Launch(Node& node);

  AppRegistry apps_;  // before the members, which refer to it
  InProcHub hub_;
  std::vector<std::unique_ptr<Node>> nodes_;  // coordinator, schedulers, workers
  uint32_t schedulers_;
};

}  // namespace strads
