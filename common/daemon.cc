#include "common/daemon.h"

#include <unistd.h>
#include <csignal>

namespace strads {
namespace {

std::atomic<bool>* g_stop = nullptr;  // only for the async-signal handler

extern "C" void HandleStopSignal(int) {
  if (g_stop) g_stop->store(true);
}

}  // namespace

void StopOnSignals(std::atomic<bool>* stop) {
  g_stop = stop;
  struct sigaction sa {};
  sa.sa_handler = HandleStopSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string HostName() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0 || buf[0] == 0) return "localhost";
  return buf;
}

}  // namespace strads
