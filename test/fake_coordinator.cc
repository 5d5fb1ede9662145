// strads_fake_coordinator: the coordinator that test/launcher_test.sh's stub cluster runs. It
// speaks the real protocol on loopback (so the real `strads status`, `strads shutdown` and
// `strads cluster wait` talk to it) but knows its members from files the stub daemons leave in
// $STUB_STATE: member.ROLE.PID holding the member's host. It binds --port (0 = any), writes the
// endpoint to --endpoint-file, and exits on a ShutdownCluster request (dropping
// $STUB_STATE/shutdown, which stops the stub members) or once that file exists.
// Every request is logged to $STUB_STATE/requests.log ("status" or "shutdown").
// Environment: STUB_STATE (required), STUB_HIDE=ROLE (never list members of ROLE),
// STUB_IGNORE_SHUTDOWN=1 (answer ShutdownCluster but keep running, like a hung cluster).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <zmq.hpp>

#include "common/protocol.h"
#include "common/zmq_transport.h"

namespace fs = std::filesystem;
using namespace strads;

namespace {

proto::StatusReply Members(const fs::path& state, const std::string& hide) {
  proto::StatusReply reply;
  reply.set_coordinator(kCoordinatorId);
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(state, ec)) {
    const std::string name = e.path().filename().string();  // member.ROLE.PID
    if (name.rfind("member.", 0) != 0) continue;
    const std::string rest = name.substr(7);
    const std::string role = rest.substr(0, rest.find('.'));
    if (role == hide) continue;
    std::ifstream in(e.path());
    std::string host;
    std::getline(in, host);
    auto* m = reply.add_members();
    m->set_id(role + "@" + host + ":" + rest.substr(rest.find('.') + 1));
    m->set_role(role == "scheduler" ? proto::ROLE_SCHEDULER : proto::ROLE_WORKER);
    m->set_host(host);
  }
  return reply;
}

}  // namespace

int main(int argc, char** argv) {
  std::string port = "7700", endpoint_file;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--port") port = argv[i + 1];
    if (a == "--endpoint-file") endpoint_file = argv[i + 1];
  }
  const char* state_env = std::getenv("STUB_STATE");
  if (state_env == nullptr || endpoint_file.empty()) {
    std::cerr << "fake coordinator: needs STUB_STATE and --endpoint-file\n";
    return 2;
  }
  const fs::path state = state_env;
  const char* hide_env = std::getenv("STUB_HIDE");
  const std::string hide = hide_env != nullptr ? hide_env : "";
  const bool ignore_shutdown = std::getenv("STUB_IGNORE_SHUTDOWN") != nullptr;

  zmq::context_t context;
  ZmqTransport transport(context, kCoordinatorId);
  auto bound = transport.Bind(TcpEndpoint("127.0.0.1", std::stoi(port)));
  if (!bound.ok()) {
    std::cerr << "fake coordinator: " << bound.status().message() << "\n";
    return 1;
  }
  // Like the real coordinator, a second socket for status requests (the CLI connects to it as a
  // separate peer).
  auto status_bound = transport.Bind(TcpEndpoint("127.0.0.1", 0));
  if (!status_bound.ok()) {
    std::cerr << "fake coordinator: " << status_bound.status().message() << "\n";
    return 1;
  }
  {
    std::ofstream(endpoint_file + ".tmp") << *bound << "\n";
    fs::rename(endpoint_file + ".tmp", endpoint_file);
  }
  std::cout << "fake coordinator at " << *bound << std::endl;
  while (!fs::exists(state / "shutdown")) {
    auto msg = transport.Receive(std::chrono::milliseconds(100));
    if (!msg) continue;
    auto reply = MakeEnvelope(kCoordinatorId);
    std::ofstream(state / "requests.log", std::ios::app)
        << (msg->has_shutdown_cluster() ? "shutdown" : "status") << "\n";
    if (msg->has_status_request()) {
      *reply.mutable_status_reply() = Members(state, hide);
      reply.mutable_status_reply()->set_status_endpoint(*status_bound);
    } else if (msg->has_shutdown_cluster()) {
      reply.mutable_shutdown_cluster();
      if (!ignore_shutdown) std::ofstream(state / "shutdown").flush();
    } else {
      reply.mutable_error()->set_message("fake coordinator: unsupported request");
    }
    (void)transport.Send(msg->sender(), reply);
  }
  // Let the last reply (the shutdown's) leave before the socket closes.
  (void)transport.Receive(std::chrono::milliseconds(300));
  return 0;
}
