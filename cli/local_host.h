// LocalHost: which hostfile hosts are this machine, so the launcher starts their daemons directly
// instead of over ssh. Loopback names and addresses (127.*, localhost, ::1) always are; so are
// the names and addresses given at construction (Detect: the host name, its canonical name and
// the addresses of the network interfaces). Comparison ignores case and [] around IPv6 addresses.
// Thread-compatibility: immutable after construction.
#pragma once

#include <string>
#include <vector>

namespace strads {

class LocalHost {
 public:
  explicit LocalHost(std::vector<std::string> names);

  // This machine's names and addresses, as the OS reports them.
  static LocalHost Detect();

  bool Contains(std::string host) const;

 private:
  std::vector<std::string> names_;  // lower case
};

}  // namespace strads
