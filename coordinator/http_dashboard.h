// HttpDashboard: the coordinator's live web dashboard, an HTTP server (Debian's cpp-httplib) on
// its own threads serving DashboardReply (coordinator/dashboard_api.h) of the current snapshot
// of a DashboardState.
//
// The server never touches the coordinator: the coordinator's event loop publishes snapshots to
// the DashboardState, and the server's threads only read the latest one. Only GET is served.
// Thread-safety: Start and the destructor from one thread; the server runs on threads it owns.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/logging.h"
#include "common/status.h"
#include "coordinator/dashboard_state.h"

namespace httplib {
class Server;
}

namespace strads {

class HttpDashboard {
 public:
  // Binds `address` (e.g. 127.0.0.1; 0.0.0.0 for every interface) and `port` (0: any free port)
  // and starts serving `state`, which must outlive the dashboard. An error if it cannot bind.
  static Result<std::unique_ptr<HttpDashboard>> Start(const DashboardState& state,
                                                      const std::string& address, int port,
                                                      Logger log);
  // Stops the server and joins its threads.
  ~HttpDashboard();

  int port() const { return port_; }

  HttpDashboard(const HttpDashboard&) = delete;
  HttpDashboard& operator=(const HttpDashboard&) = delete;

 private:
  HttpDashboard(std::unique_ptr<httplib::Server> server, int port);

  std::unique_ptr<httplib::Server> server_;
  int port_;
  std::atomic<bool> listening_over_{false};  // listen_after_bind returned
  std::thread thread_;
};

}  // namespace strads
