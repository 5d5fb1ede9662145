// HttpDashboard: the coordinator's live web dashboard, an HTTP server (Debian's cpp-httplib) on
// its own threads serving DashboardReply (coordinator/dashboard_api.h) of the current snapshot
// of a DashboardState.
//
// The server never touches the coordinator: the coordinator's event loop publishes snapshots to
// the DashboardState, and the server's threads only read the latest one. Only GET is served.
// Slow or idle clients cannot starve the others: each connection serves one request and must
// send it within `request_timeout_s` (a deadline for the whole request, not per read, so a client
// trickling a header line at a time is cut off too) and take the reply within as long again;
// at most `max_connections` are served at once, and a thread pool larger than that answers the
// ones beyond at once with 503.
// Thread-safety: Start and the destructor from one thread; the server runs on threads it owns.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "common/logging.h"
#include "common/status.h"
#include "coordinator/dashboard_state.h"

namespace strads {

struct HttpDashboardOptions {
  size_t threads = 8;            // the pool; two more than max_connections at least
  size_t max_connections = 6;    // connections served at once; more are answered 503 at once
  double request_timeout_s = 5;  // to send the request, and again to take the reply
};

class HttpDashboard {
 public:
  // Binds `address` (e.g. 127.0.0.1; 0.0.0.0 for every interface) and `port` (0: any free port)
  // and starts serving `state`, which must outlive the dashboard. An error if it cannot bind or
  // the options make no sense.
  static Result<std::unique_ptr<HttpDashboard>> Start(const DashboardState& state,
                                                      const std::string& address, int port,
                                                      Logger log,
                                                      HttpDashboardOptions options = {});
  // Stops the server and joins its threads.
  ~HttpDashboard();

  int port() const { return port_; }

  HttpDashboard(const HttpDashboard&) = delete;
  HttpDashboard& operator=(const HttpDashboard&) = delete;

  class Server;  // cpp-httplib's server with the limits above

 private:
  HttpDashboard(std::unique_ptr<Server> server, int port);

  std::unique_ptr<Server> server_;
  int port_;
  std::atomic<bool> listening_over_{false};  // listen_after_bind returned
  std::thread thread_;
};

}  // namespace strads
