// strads-wire-bench: what a message costs on a ZeroMQ socket, one protobuf frame against a header
// plus raw frames (common/wire_frames.h), for the column layout's largest message: a worker's
// ColumnPartials, `n` ids, `n` new values and a dense change of `n` rows (3n numbers, 24n bytes).
//
// Both ways run in one process over the same kind of sockets (a DEALER sending to a ROUTER on
// tcp loopback), one message in flight at a time, as in a round:
//   protobuf  the envelope serialized into one frame, which ZeroMQ copies; polled for, received
//             and parsed on arrival (an earlier transport, without its sender check);
//   raw       ZmqTransport::SendOwned: the arrays leave in place; ZmqTransport::Receive.
// The envelopes are built before the clock starts; each way is timed over `--messages` messages
// at each size, the two ways alternating in blocks, and the median block is printed as
// microseconds a message and GB/s of numbers. A benchmark, not a test: it checks the messages
// arrive whole, and nothing about their speed.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "common/protocol.h"
#include "common/zmq_transport.h"
#include "tools/tool_flags.h"

namespace po = boost::program_options;

namespace {

using Clock = std::chrono::steady_clock;

strads::proto::Envelope PartialsOf(size_t n) {
  auto e = strads::MakeEnvelope("client", 1, 1);
  auto* p = e.mutable_column_partials();
  auto* change = p->mutable_change();
  change->set_size(n);
  change->set_dense(true);
  for (size_t i = 0; i < n; ++i) {
    p->add_ids(i * 977 % 1000000);
    p->add_values(1.0 / static_cast<double>(i + 1));
    change->add_values(-0.5 * static_cast<double>(i));
  }
  return e;
}

bool Whole(const strads::proto::Envelope& e, size_t n) {
  return e.column_partials().ids_size() == static_cast<int>(n) &&
         e.column_partials().change().values_size() == static_cast<int>(n);
}

// Seconds for `count` messages the old way: serialize, send one frame, receive, parse.
double TimeProtobuf(zmq::socket_t& dealer, zmq::socket_t& router,
                    const std::vector<strads::proto::Envelope>& batch, size_t n) {
  const auto t0 = Clock::now();
  for (const auto& e : batch) {
    std::string bytes;
    e.SerializeToString(&bytes);
    dealer.send(zmq::buffer(bytes), zmq::send_flags::none);
    // Polled first, as ZmqTransport::Receive does.
    std::vector<zmq::pollitem_t> items = {{static_cast<void*>(router), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, std::chrono::milliseconds(5000));
    std::vector<zmq::message_t> frames;
    (void)zmq::recv_multipart(router, std::back_inserter(frames));
    strads::proto::Envelope back;
    back.ParseFromArray(frames[1].data(), static_cast<int>(frames[1].size()));
    if (!Whole(back, n)) throw std::runtime_error("a protobuf message arrived torn");
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double TimeRaw(strads::ZmqTransport& client, strads::ZmqTransport& server,
               std::vector<strads::proto::Envelope>& batch, size_t n) {
  const auto t0 = Clock::now();
  for (auto& e : batch) {
    if (!client.SendOwned("server", std::move(e)).ok()) throw std::runtime_error("send failed");
    auto back = server.Receive(std::chrono::milliseconds(5000));
    if (!back || !Whole(*back, n)) throw std::runtime_error("a raw-frame message arrived torn");
  }
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

}  // namespace

constexpr char kTool[] = "strads-wire-bench";

int main(int argc, char** argv) {
  std::vector<size_t> sizes = {256, 4096, 65536, 1048576};
  size_t messages = 40;
  size_t blocks = 5;
  po::options_description desc("strads-wire-bench options");
  desc.add_options()("help", "show this help")(
      "sizes", po::value(&sizes)->multitoken(),
      "numbers per array (the message carries 3 arrays of this size); default 256 4096 65536 "
      "1048576")("messages", po::value(&messages)->default_value(messages), "messages a block")(
      "blocks", po::value(&blocks)->default_value(blocks),
      "blocks of each way, alternating; the median is printed");
  po::variables_map vm;
  if (auto code = strads::tools::ParseToolFlags(argc, argv, desc, "strads-wire-bench",
                                                "strads-wire-bench --help", &vm)) {
    return *code;
  }
  if (messages == 0 || blocks == 0) {
    std::cerr << "strads-wire-bench: --messages and --blocks must be positive\n";
    return 2;
  }

  zmq::context_t context;
  strads::ZmqTransport server(context, "server");
  auto bound = server.Bind("tcp://127.0.0.1:0");
  if (!bound.ok()) return strads::tools::ToolFailure(kTool, bound.status().message());
  strads::ZmqTransport client(context, "client");
  if (!client.Connect("server", *bound).ok()) return 1;
  zmq::socket_t router(context, zmq::socket_type::router);
  router.bind("tcp://127.0.0.1:*");
  const std::string raw_endpoint = router.get(zmq::sockopt::last_endpoint);
  zmq::socket_t dealer(context, zmq::socket_type::dealer);
  dealer.set(zmq::sockopt::routing_id, "client");
  dealer.connect(raw_endpoint);

  fmt::print(
      "| numbers a message | protobuf µs/msg | raw frames µs/msg | raw / protobuf | "
      "protobuf GB/s | raw GB/s |\n|---|---|---|---|---|---|\n");
  try {
    for (size_t n : sizes) {
      std::vector<double> proto_s, raw_s;
      const auto one = PartialsOf(n);
      const size_t count = std::max<size_t>(1, std::min(messages, (size_t{64} << 20) / (24 * n)));
      for (size_t b = 0; b < blocks; ++b) {
        std::vector<strads::proto::Envelope> batch(count, one);
        proto_s.push_back(TimeProtobuf(dealer, router, batch, n) / static_cast<double>(count));
        raw_s.push_back(TimeRaw(client, server, batch, n) / static_cast<double>(count));
      }
      std::sort(proto_s.begin(), proto_s.end());
      std::sort(raw_s.begin(), raw_s.end());
      const double p = proto_s[blocks / 2], r = raw_s[blocks / 2];
      const double bytes = 24.0 * static_cast<double>(n);
      fmt::print("| {} | {:.1f} | {:.1f} | {:.2f} | {:.2f} | {:.2f} |\n", 3 * n, p * 1e6, r * 1e6,
                 r / p, bytes / p / 1e9, bytes / r / 1e9);
    }
  } catch (const std::exception& e) {
    std::cerr << "strads-wire-bench: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
