#include "cli/registration_waiter.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/counted_noun.h"
#include "common/protocol.h"

namespace strads {
namespace {

int Listed(const proto::StatusReply& reply, proto::Role role, const std::string* host) {
  int n = 0;
  for (const auto& m : reply.members()) {
    n += m.role() == role && (host == nullptr || m.host() == *host);
  }
  return n;
}

}  // namespace

RegistrationWaiter::RegistrationWaiter(ExpectedMembers expected,
                                       std::function<Clock::time_point()> now,
                                       std::function<void(std::chrono::milliseconds)> pause,
                                       std::chrono::milliseconds interval)
    : expected_(std::move(expected)),
      now_(std::move(now)),
      pause_(std::move(pause)),
      interval_(interval) {}

std::string RegistrationWaiter::Counts(const proto::StatusReply& reply) const {
  auto expected = [&](proto::Role role) {
    int n = 0;
    for (const auto& [key, count] : expected_) n += key.first == role ? count : 0;
    return n;
  };
  // "0/1 scheduler and 1/2 workers": the noun agrees with the number expected.
  return fmt::format("{}/{} and {}/{}", Listed(reply, proto::ROLE_SCHEDULER, nullptr),
                     CountedNoun(expected(proto::ROLE_SCHEDULER), "scheduler"),
                     Listed(reply, proto::ROLE_WORKER, nullptr),
                     CountedNoun(expected(proto::ROLE_WORKER), "worker"));
}

std::vector<std::string> RegistrationWaiter::Shortfalls(const proto::StatusReply& reply) const {
  std::vector<std::string> out;
  for (const auto& [key, count] : expected_) {
    const int listed = Listed(reply, key.first, &key.second);
    if (listed < count) {
      out.push_back(fmt::format("{} of {} {}s on {}", count - listed, count, RoleName(key.first),
                                key.second));
    }
  }
  return out;
}

RegistrationWaiter::Outcome RegistrationWaiter::Wait(const AskStatus& ask, const FindExited& exited,
                                                     std::chrono::seconds timeout) const {
  const auto deadline = now_() + timeout;
  proto::StatusReply last;
  Status last_error = Status::Unavailable("no status request was answered");
  bool answered = false;
  auto missing_roles = [&] {
    std::vector<std::string> roles;
    for (const auto& [key, count] : expected_) {
      const std::string name = RoleName(key.first);
      if (Listed(last, key.first, &key.second) < count &&
          std::find(roles.begin(), roles.end(), name) == roles.end()) {
        roles.push_back(name);
      }
    }
    return roles;
  };
  while (true) {
    auto reply = ask();
    if (reply.ok()) {
      last = *reply;
      answered = true;
      if (Shortfalls(last).empty()) return {Status::Ok(), {}};
    } else {
      last_error = reply.status();
    }
    if (auto who = exited()) {
      return {Status::FailedPrecondition(*who + " exited"), missing_roles()};
    }
    if (now_() >= deadline) {
      if (!answered) {
        return {
            Status::DeadlineExceeded(fmt::format("after {} s the coordinator did not answer: {}",
                                                 timeout.count(), last_error.message())),
            missing_roles()};
      }
      return {Status::DeadlineExceeded(fmt::format("after {} s the coordinator lists {}; not "
                                                   "registered: {}",
                                                   timeout.count(), Counts(last),
                                                   fmt::join(Shortfalls(last), ", "))),
              missing_roles()};
    }
    pause_(interval_);
  }
}

}  // namespace strads
