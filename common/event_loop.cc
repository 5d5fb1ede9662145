#include "common/event_loop.h"

#include <algorithm>

#include "common/log_throttle.h"
#include "common/protocol.h"
#include "common/wire_text.h"

namespace strads {

void RunEventLoop(Transport& transport, Actor& actor, const std::atomic<bool>& stop,
                  const Logger& log, std::chrono::milliseconds tick) {
  auto next_tick = Clock::now();
  LogThrottle rejected_log;  // a peer of another version may send many
  while (!stop.load() && !actor.Finished()) {
    auto now = Clock::now();
    if (now >= next_tick) {
      try {
        actor.OnTick(now);
      } catch (const std::exception& e) {
        log->error("tick failed: {}", e.what());
      }
      next_tick = now + (actor.Polling() ? std::chrono::milliseconds(1) : tick);
      continue;
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - now);
    auto envelope = transport.Receive(std::max(wait, std::chrono::milliseconds(1)));
    if (!envelope) continue;
    if (Status st = CheckVersion(*envelope); !st.ok()) {
      if (auto line = rejected_log.Note("rejected message: " + st.message(), Clock::now())) {
        log->warn("{}", *line);
      }
      // Answer, so a peer of another version learns why instead of timing out.
      if (envelope->body_case() != proto::Envelope::kError) {
        auto reply = MakeEnvelope(transport.id(), envelope->job_id());
        reply.mutable_error()->set_message(WireText(st.message()));
        (void)transport.Send(envelope->sender(), reply);
      }
      continue;
    }
    try {
      actor.OnMessage(*envelope, Clock::now());
      if (actor.Polling())
        next_tick = std::min(next_tick, Clock::now() + std::chrono::milliseconds(1));
    } catch (const std::exception& e) {
      // A bug or a resource failure while handling one message must not end the daemon.
      log->error("handling {} from {} failed: {}", BodyName(*envelope), envelope->sender(),
                 e.what());
    }
  }
}

}  // namespace strads
