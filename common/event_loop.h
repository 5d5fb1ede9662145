// The one event loop that owns a node's transport.
//
// An Actor is a node's logic: a plain class driven by incoming envelopes and by the clock (OnTick
// is called at least every `tick`), sending through the Transport it was given. RunEventLoop
// delivers messages to it until `stop` is set or the actor reports Finished(). Version mismatches
// are rejected here, once, for every role.
#pragma once

#include <atomic>
#include <chrono>

#include "common/logging.h"
#include "common/transport.h"

namespace strads {

using Clock = std::chrono::steady_clock;

class Actor {
 public:
  virtual ~Actor() = default;
  virtual void OnMessage(const proto::Envelope& envelope, Clock::time_point now) = 0;
  virtual void OnTick(Clock::time_point now) = 0;
  // True once the actor wants its loop to end (e.g. after a Shutdown message).
  virtual bool Finished() const = 0;
  // True while the actor waits for work on another thread that it polls in OnTick: the loop then
  // ticks every millisecond.
  virtual bool Polling() const { return false; }
};

// Runs until `stop` becomes true or `actor.Finished()`. Thread: the caller's; the transport must
// be used by no other thread meanwhile.
void RunEventLoop(Transport& transport, Actor& actor, const std::atomic<bool>& stop,
                  const Logger& log,
                  std::chrono::milliseconds tick = std::chrono::milliseconds(50));

}  // namespace strads
