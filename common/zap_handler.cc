#include "common/zap_handler.h"

#include <atomic>
#include <vector>

#include <fmt/format.h>
#include <zmq_addon.hpp>

#include "common/log_throttle.h"

namespace strads {
namespace {

constexpr const char* kZapEndpoint = "inproc://zeromq.zap.01";

}  // namespace

ZapHandler::ZapHandler(zmq::context_t& context, CurveTrust trust, Logger log)
    : context_(context),
      trust_(std::move(trust)),
      log_(std::move(log)),
      zap_(context, zmq::socket_type::rep),
      stop_(context, zmq::socket_type::pair),
      stop_listener_(context, zmq::socket_type::pair) {}

Result<std::unique_ptr<ZapHandler>> ZapHandler::Start(zmq::context_t& context, CurveTrust trust,
                                                      Logger log) {
  static std::atomic<uint64_t> handlers{0};
  std::unique_ptr<ZapHandler> h(new ZapHandler(context, std::move(trust), std::move(log)));
  try {
    h->zap_.set(zmq::sockopt::linger, 0);
    h->zap_.bind(kZapEndpoint);
    const std::string pipe = fmt::format("inproc://strads-zap-stop-{}", handlers.fetch_add(1));
    h->stop_listener_.bind(pipe);
    h->stop_.connect(pipe);
  } catch (const zmq::error_t& e) {
    return Status::FailedPrecondition(std::string("cannot start the ZAP handler: ") + e.what());
  }
  h->thread_ = std::thread([raw = h.get()] { raw->Run(); });
  return h;
}

ZapHandler::~ZapHandler() {
  if (thread_.joinable()) {
    stop_.send(zmq::str_buffer("stop"), zmq::send_flags::none);
    thread_.join();
  }
}

void ZapHandler::Run() {
  LogThrottle refused_log;  // strangers may knock thousands of times
  std::vector<zmq::pollitem_t> items = {{static_cast<void*>(zap_), 0, ZMQ_POLLIN, 0},
                                        {static_cast<void*>(stop_listener_), 0, ZMQ_POLLIN, 0}};
  while (true) {
    try {
      zmq::poll(items, std::chrono::milliseconds(-1));
    } catch (const zmq::error_t& e) {
      if (e.num() == EINTR) continue;
      log_->error("ZAP handler stops: {}", e.what());
      return;
    }
    if (items[1].revents & ZMQ_POLLIN) return;
    if (!(items[0].revents & ZMQ_POLLIN)) continue;
    // RFC 27: version, request id, domain, address, identity, mechanism, credentials...
    std::vector<zmq::message_t> request;
    if (!zmq::recv_multipart(zap_, std::back_inserter(request))) continue;
    ZapVerdict verdict;
    std::string address;
    if (request.size() < 6 || request[0].to_string() != "1.0") {
      verdict.reason = "malformed ZAP request";
    } else {
      address = request[3].to_string();
      const std::string mechanism = request[5].to_string();
      const std::string key =
          request.size() > 6 ? Z85FromBinaryKey(request[6].to_string_view()) : std::string();
      verdict = trust_.Authorize(mechanism, key);
    }
    if (!verdict.admitted) {
      const std::string what =
          fmt::format("refused a connection from {}: {}", address, verdict.reason);
      if (auto line = refused_log.Note(what, std::chrono::steady_clock::now())) {
        log_->warn("{}", *line);
      }
    }
    const std::string request_id = request.size() > 1 ? request[1].to_string() : "";
    std::array<zmq::const_buffer, 6> reply = {
        zmq::str_buffer("1.0"),
        zmq::buffer(request_id),
        zmq::buffer(std::string_view(verdict.admitted ? "200" : "400")),
        zmq::buffer(std::string_view(verdict.admitted ? "OK" : "not authorised")),
        zmq::buffer(verdict.user_id),
        zmq::const_buffer()};
    (void)zmq::send_multipart(zap_, reply);
  }
}

}  // namespace strads
