// A whole STRADS cluster in one process: the coordinator, S schedulers and P workers, each an
// Actor on its own thread with its own event loop, talking over one InProcHub. The same classes
// as the daemons, minus ZeroMQ: `strads run` uses it, and so do the in-process cluster tests.
// Thread-safety: construct, use and destroy from one thread; the members run on theirs.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/fault_injecting_transport.h"
#include "common/inproc_transport.h"
#include "common/logging.h"
#include "common/memory_matrix.h"
#include "coordinator/coordinator.h"
#include "engine/app_registry.h"

namespace strads {

// Scripts the faults of one member (tests): called with the member's node id and its transport
// before the member starts, e.g. to kill "worker-1" at its tenth message.
using FaultScript = std::function<void(const std::string& id, FaultInjectingTransport& transport)>;

class EmbeddedCluster {
 public:
  // Starts every member; they register at once. `log_level` applies to every member's logger.
  // With a `faults` script, every scheduler and worker talks through a FaultInjectingTransport
  // that the script may program; without one, members use the hub directly. Jobs may name the
  // matrices of `memory` as --data memory:NAME (common/memory_matrix.h); the caller keeps their
  // buffers alive and unchanged until the cluster is destroyed.
  EmbeddedCluster(uint32_t schedulers, uint32_t workers, CoordinatorOptions options,
                  const std::string& log_level = "warn", FaultScript faults = {},
                  std::shared_ptr<const MemoryData> memory = nullptr);
  // Stops every member and joins the threads.
  ~EmbeddedCluster();

  InProcHub& hub() { return hub_; }
  // The apps its members know (BuiltinApps()).
  const AppRegistry& apps() const { return apps_; }
  // Node ids, e.g. "worker-1".
  std::string worker_id(uint32_t i) const { return "worker-" + std::to_string(i); }

  // The fault-injecting transport of member `id`; nullptr without a fault script or for the
  // coordinator.
  FaultInjectingTransport* faults(const std::string& id);

 private:
  struct Node {
    std::string id;
    std::unique_ptr<InProcTransport> hub_transport;
    std::unique_ptr<FaultInjectingTransport> faults;  // only with a fault script
    Transport* transport = nullptr;                   // what the actor uses: one of the above
    std::unique_ptr<Actor> actor;
    std::atomic<bool> stop{false};
    std::thread thread;
    Logger log;
  };
  void Launch(Node& node);

  AppRegistry apps_;  // before the members, which refer to it
  InProcHub hub_;
  std::vector<std::unique_ptr<Node>> nodes_;  // coordinator, schedulers, workers
};

}  // namespace strads
