#include "coordinator/http_dashboard.h"

#include <httplib.h>

#include <fmt/format.h>

#include "coordinator/dashboard_api.h"

namespace strads {

Result<std::unique_ptr<HttpDashboard>> HttpDashboard::Start(const DashboardState& state,
                                                            const std::string& address, int port,
                                                            Logger log) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument(fmt::format("--http-port {}: not a port (0-65535)", port));
  }
  auto server = std::make_unique<httplib::Server>();
  // A dashboard has few viewers; two threads keep it from competing with the coordinator.
  server->new_task_queue = [] { return new httplib::ThreadPool(2); };
  // cpp-httplib's default also sets SO_REUSEPORT, with which a second coordinator given the same
  // port would bind it too and share its requests: only SO_REUSEADDR (a restart may rebind a port
  // in TIME_WAIT).
  server->set_socket_options([](socket_t sock) {
    const int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  server->Get(".*", [&state](const httplib::Request& request, httplib::Response& response) {
    const HttpReply reply = DashboardReply(*state.Current(), request.path);
    response.status = reply.status;
    response.set_header("Cache-Control", "no-store");
    response.set_content(reply.body, reply.content_type.c_str());
  });
  server->set_logger([log](const httplib::Request& request, const httplib::Response& response) {
    log->debug("http {} {} -> {}", request.method, request.path, response.status);
  });
  const int bound = port == 0 ? server->bind_to_any_port(address)
                              : (server->bind_to_port(address, port) ? port : -1);
  if (bound <= 0) {
    return Status::Unavailable(fmt::format(
        "cannot serve the dashboard on {}:{} (address in use or not local?)", address, port));
  }
  auto dashboard = std::unique_ptr<HttpDashboard>(new HttpDashboard(std::move(server), bound));
  HttpDashboard& d = *dashboard;
  d.thread_ = std::thread([&d] {
    d.server_->listen_after_bind();
    d.listening_over_ = true;
  });
  // cpp-httplib's stop() only stops a server whose loop has begun, and it has no way to wait for
  // that: wait here (the loop begins at once), so the destructor's stop() always ends it.
  while (!d.server_->is_running() && !d.listening_over_) std::this_thread::yield();
  return dashboard;
}

HttpDashboard::HttpDashboard(std::unique_ptr<httplib::Server> server, int port)
    : server_(std::move(server)), port_(port) {}

HttpDashboard::~HttpDashboard() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strads
