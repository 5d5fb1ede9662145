// Process-level helpers for the daemons' and the CLI's main(): signals, host name.
#pragma once

#include <atomic>
#include <string>

namespace strads {

// SIGINT and SIGTERM set `*stop` (which must live for the whole process); the event loop then
// ends at its next tick. Call once from main.
void StopOnSignals(std::atomic<bool>* stop);

// This machine's host name, or "localhost" if it cannot be read.
std::string HostName();

}  // namespace strads
