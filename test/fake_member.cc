// strads_fake_member: an attacker posing as a cluster member, for test/cluster_test.sh (curve_*).
//
//   strads_fake_member --coordinator EP [--client-key FILE --cluster-key FILE] --id ID
//                      [--sender NAME] register|fail JOB_ID
//
// Connects to the coordinator with routing id ID (with CURVE when given keys: e.g. an authorised
// client's key, which is not the cluster's) and sends one message whose `sender` field is NAME
// (default ID): `register` a worker, or a `fail` (a JobFailed) for job JOB_ID (what a real
// member sends when it cannot load its shard, which fails the job). Prints the handshake's fate
// and every reply within a second. Exit 0 when sent, 3 when the handshake was refused (nothing
// could be sent), 2 on a bad command line.
#include <unistd.h>

#include <iostream>
#include <optional>
#include <string>

#include <zmq.hpp>

#include "cli/client_keys.h"
#include "common/endpoint_probe.h"
#include "common/protocol.h"
#include "common/zmq_transport.h"

using namespace strads;

int main(int argc, char** argv) {
  std::string coordinator, id, sender, action;
  uint64_t job = 0;
  ClientKeyPaths paths;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--coordinator")
      coordinator = value();
    else if (a == "--client-key")
      paths.client_key = value();
    else if (a == "--cluster-key")
      paths.cluster_key = value();
    else if (a == "--id")
      id = value();
    else if (a == "--sender")
      sender = value();
    else if (action.empty())
      action = a;
    else
      job = std::stoull(a);
  }
  if (coordinator.empty() || id.empty() || (action != "register" && action != "fail")) {
    std::cerr << "usage: strads_fake_member --coordinator EP [--client-key F --cluster-key F] "
                 "--id ID [--sender NAME] register|fail JOB_ID\n";
    return 2;
  }
  if (sender.empty()) sender = id;
  std::optional<CurveIdentity> curve;
  if (!paths.client_key.empty()) {
    auto keys = LoadClientKeys(paths);
    if (!keys.ok()) {
      std::cerr << keys.status().message() << "\n";
      return 2;
    }
    curve = *keys;
  }
  zmq::context_t context;
  const ProbeResult probe =
      ProbeEndpoint(context, coordinator, std::chrono::milliseconds(3000), curve);
  if (probe != ProbeResult::kAccepted) {
    std::cout << "handshake refused (" << static_cast<int>(probe) << ")\n";
    return 3;
  }
  std::cout << "handshake accepted\n";
  ZmqTransport transport(context, id, std::chrono::milliseconds(1000), curve);
  if (Status st = transport.Connect(kCoordinatorId, coordinator); !st.ok()) {
    std::cerr << st.message() << "\n";
    return 1;
  }
  proto::Envelope e = MakeEnvelope(sender, job);
  if (action == "register") {
    auto* r = e.mutable_register_();
    r->set_role(proto::ROLE_WORKER);
    r->set_host("evil");
    r->set_pid(static_cast<uint32_t>(getpid()));
    r->set_endpoint("tcp://127.0.0.1:9");
  } else {
    e.mutable_job_failed()->set_error("spoofed by a fake member");
  }
  if (Status st = transport.Send(kCoordinatorId, e); !st.ok()) {
    std::cerr << st.message() << "\n";
    return 1;
  }
  std::cout << "sent " << BodyName(e) << " as '" << sender << "'\n";
  while (auto reply = transport.Receive(std::chrono::milliseconds(1000))) {
    std::cout << "reply: " << BodyName(*reply) << "\n";
  }
  return 0;
}
