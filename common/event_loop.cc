#include "common/event_loop.h"

#include "common/protocol.h"

namespace strads {

void RunEventLoop(Transport& transport, Actor& actor, const std::atomic<bool>& stop,
                  const Logger& log, std::chrono::milliseconds tick) {
  auto next_tick = Clock::now();
  while (!stop.load() && !actor.Finished()) {
    auto now = Clock::now();
    if (now >= next_tick) {
      actor.OnTick(now);
      next_tick = now + tick;
      continue;
    }
    auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next_tick - now);
    auto envelope = transport.Receive(std::max(wait, std::chrono::milliseconds(1)));
    if (!envelope) continue;
    if (Status st = CheckVersion(*envelope); !st.ok()) {
      log->warn("rejected message: {}", st.message());
      continue;
    }
    actor.OnMessage(*envelope, Clock::now());
  }
}

}  // namespace strads
