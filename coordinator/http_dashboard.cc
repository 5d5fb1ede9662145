#include "coordinator/http_dashboard.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <optional>

#include <httplib.h>

#include <fmt/format.h>

#include "coordinator/dashboard_api.h"

namespace strads {
namespace {

using SteadyClock = std::chrono::steady_clock;

// A connection's socket for cpp-httplib's request processing, with deadlines for the whole
// request and for the whole reply, where cpp-httplib's own stream has a timeout per read (which a
// client sending a byte a second never meets).
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, SteadyClock::duration timeout)
      : sock_(sock), timeout_(timeout), read_deadline_(SteadyClock::now() + timeout) {}

  bool is_readable() const override { return Wait(POLLIN, read_deadline_); }
  bool is_writable() const override {
    // The reply's deadline starts with its first byte.
    if (!write_deadline_) write_deadline_ = SteadyClock::now() + timeout_;
    return Wait(POLLOUT, *write_deadline_);
  }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    ssize_t n;
    do n = ::recv(sock_, ptr, size, 0);
    while (n < 0 && errno == EINTR);
    return n;
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    Address(::getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    Address(::getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  bool Wait(short events, SteadyClock::time_point deadline) const {
    while (true) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
      if (left.count() <= 0) return false;
      pollfd p{sock_, events, 0};
      const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready > 0) return true;
      if (ready == 0 || errno != EINTR) return false;
    }
  }
  template <class Get>
  void Address(Get get, std::string& ip, int& port) const {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    ip.clear();
    port = 0;
    if (get(sock_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return;
    char text[INET6_ADDRSTRLEN] = "";
    if (addr.ss_family == AF_INET) {
      const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
      ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
      port = ntohs(a->sin_port);
    } else if (addr.ss_family == AF_INET6) {
      const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
      ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
      port = ntohs(a->sin6_port);
    }
    ip = text;
  }

  int sock_;
  SteadyClock::duration timeout_;
  SteadyClock::time_point read_deadline_;
  mutable std::optional<SteadyClock::time_point> write_deadline_;
};

}  // namespace

// cpp-httplib's server, its connections served by the DeadlineStream above (one request each)
// and counted against the cap.
class HttpDashboard::Server : public httplib::Server {
 public:
  Server(HttpDashboardOptions options, Logger log) : options_(options), log_(std::move(log)) {}

 private:
  bool process_and_close_socket(socket_t sock) override {
    if (open_.fetch_add(1) >= options_.max_connections) {
      // Beyond the cap: a short answer without waiting for the request (best effort, the socket
      // is fresh), so that a flood of idle connections costs a pool thread microseconds each.
      static constexpr std::string_view kBusy =
          "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
      (void)::send(sock, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      log_->debug("http: refused a connection: {} are open", options_.max_connections);
    } else {
      DeadlineStream stream(sock, std::chrono::duration_cast<SteadyClock::duration>(
                                      std::chrono::duration<double>(options_.request_timeout_s)));
      bool closed = false;
      (void)process_request(stream, /*close_connection=*/true, closed, nullptr);
    }
    open_.fetch_sub(1);
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
    return true;
  }

  const HttpDashboardOptions options_;
  Logger log_;
  std::atomic<size_t> open_{0};
};

Result<std::unique_ptr<HttpDashboard>> HttpDashboard::Start(const DashboardState& state,
                                                            const std::string& address, int port,
                                                            Logger log,
                                                            HttpDashboardOptions options) {
  if (port < 0 || port > 65535) {
    return Status::InvalidArgument(fmt::format("--http-port {}: not a port (0-65535)", port));
  }
  if (options.max_connections == 0 || options.threads < options.max_connections + 2 ||
      !(options.request_timeout_s > 0)) {
    return Status::InvalidArgument(fmt::format(
        "dashboard: {} threads for {} connections with a {} s timeout (needs connections >= 1, "
        "threads >= connections + 2, timeout > 0)",
        options.threads, options.max_connections, options.request_timeout_s));
  }
  auto server = std::make_unique<Server>(options, log);
  const size_t threads = options.threads;
  server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
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

HttpDashboard::HttpDashboard(std::unique_ptr<Server> server, int port)
    : server_(std::move(server)), port_(port) {}

HttpDashboard::~HttpDashboard() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace strads
