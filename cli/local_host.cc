#include "cli/local_host.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace strads {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

LocalHost::LocalHost(std::vector<std::string> names) {
  for (auto& n : names) {
    if (!n.empty()) names_.push_back(Lower(std::move(n)));
  }
}

LocalHost LocalHost::Detect() {
  std::vector<std::string> names;
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) == 0) {
    names.emplace_back(buf);
    addrinfo hints{};
    hints.ai_flags = AI_CANONNAME;
    addrinfo* info = nullptr;
    if (getaddrinfo(buf, nullptr, &hints, &info) == 0) {
      if (info->ai_canonname != nullptr) names.emplace_back(info->ai_canonname);
      freeaddrinfo(info);
    }
  }
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) == 0) {
    for (ifaddrs* i = ifs; i != nullptr; i = i->ifa_next) {
      if (i->ifa_addr == nullptr) continue;
      char text[INET6_ADDRSTRLEN] = {};
      const int family = i->ifa_addr->sa_family;
      const void* addr = nullptr;
      if (family == AF_INET) addr = &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr;
      if (family == AF_INET6) addr = &reinterpret_cast<sockaddr_in6*>(i->ifa_addr)->sin6_addr;
      if (addr != nullptr && inet_ntop(family, addr, text, sizeof(text)) != nullptr) {
        names.emplace_back(text);
      }
    }
    freeifaddrs(ifs);
  }
  return LocalHost(std::move(names));
}

bool LocalHost::Contains(std::string host) const {
  host = Lower(std::move(host));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.rfind("127.", 0) == 0 || host == "localhost" || host == "::1" ||
      host == "localhost.localdomain") {
    return true;
  }
  return std::find(names_.begin(), names_.end(), host) != names_.end();
}

}  // namespace strads
