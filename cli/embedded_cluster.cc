#include "cli/embedded_cluster.h"

#include "apps/builtin_apps.h"
#include "common/protocol.h"
#include "scheduler/scheduler.h"
#include "worker/worker.h"

namespace strads {

EmbeddedCluster::EmbeddedCluster(uint32_t schedulers, uint32_t workers, CoordinatorOptions options,
                                 const std::string& log_level, FaultScript faults,
                                 std::shared_ptr<const MemoryData> memory)
    : apps_(BuiltinApps()) {
  options.expect_schedulers = schedulers;
  options.expect_workers = workers;
  auto coordinator = std::make_unique<Node>();
  coordinator->id = kCoordinatorId;
  coordinator->hub_transport = std::make_unique<InProcTransport>(hub_, kCoordinatorId);
  coordinator->transport = coordinator->hub_transport.get();
  coordinator->log = MakeLogger("coordinator", kCoordinatorId, log_level);
  coordinator->actor = std::make_unique<Coordinator>(*coordinator->transport, options, apps_,
                                                     coordinator->log, Clock::now());
  nodes_.push_back(std::move(coordinator));
  auto add_member = [&](const std::string& role, uint32_t i) {
    auto node = std::make_unique<Node>();
    const std::string id = role + "-" + std::to_string(i);
    node->id = id;
    node->hub_transport = std::make_unique<InProcTransport>(hub_, id);
    node->transport = node->hub_transport.get();
    if (faults) {
      node->faults = std::make_unique<FaultInjectingTransport>(*node->hub_transport);
      faults(id, *node->faults);
      node->transport = node->faults.get();
    }
    node->log = MakeLogger(role, id, log_level);
    MemberIdentity identity;
    identity.host = "embedded";
    identity.pid = i;
    identity.endpoint = "inproc://" + id;
    identity.memory_data = memory;
    if (role == "scheduler") {
      node->actor = std::make_unique<Scheduler>(*node->transport, identity, apps_, node->log);
    } else {
      node->actor = std::make_unique<Worker>(*node->transport, identity, apps_, node->log);
    }
    nodes_.push_back(std::move(node));
  };
  for (uint32_t s = 0; s < schedulers; ++s) add_member("scheduler", s);
  for (uint32_t w = 0; w < workers; ++w) add_member("worker", w);
  for (auto& node : nodes_) Launch(*node);
}

void EmbeddedCluster::Launch(Node& node) {
  node.thread = std::thread([&node] {
    RunEventLoop(*node.transport, *node.actor, node.stop, node.log, std::chrono::milliseconds(20));
  });
}

FaultInjectingTransport* EmbeddedCluster::faults(const std::string& id) {
  for (auto& node : nodes_) {
    if (node->id == id) return node->faults.get();
  }
  return nullptr;
}

EmbeddedCluster::~EmbeddedCluster() {
  for (auto& node : nodes_) {
    node->stop = true;
    hub_.Wake(node->id);  // not a tick later (20 ms: most of a small fit from Python)
  }
  for (auto& node : nodes_) {
    if (node->thread.joinable()) node->thread.join();
  }
  // Members before the coordinator: their destructors may still wait for background loads.
  for (auto it = nodes_.rbegin(); it != nodes_.rend(); ++it) (*it)->actor.reset();
}

}  // namespace strads
