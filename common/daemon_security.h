// DaemonSecurity: what a daemon's main() decides about keys, its bind address and its user before
// it opens a socket (README "Security").
//
//  - The bind address is the one the hostfile gives the host (the launcher passes --bind-host): an
//    IP address as it is, a host name resolved to its first IPv4 address here (ZeroMQ binds only
//    to addresses and interfaces), "*" for every interface.
//  - Keys: with --cluster-key every socket speaks CURVE and a ZapHandler (common/zap_handler.h)
//    admits the cluster key and, on the coordinator, the keys of --authorized-clients. Without
//    keys a daemon may bind only to a loopback address, unless --insecure is given.
//  - A daemon run as root is told so in a warning: it can read every file a job names.
// Thread-compatibility: functions and plain values, used by main() before the event loop.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <boost/program_options.hpp>
#include <zmq.hpp>

#include "common/logging.h"
#include "common/zap_handler.h"
#include "common/zmq_transport.h"

namespace strads {

struct SecurityOptions {
  std::string cluster_key;         // the cluster key pair file; empty = no CURVE
  std::string authorized_clients;  // the coordinator's authorised client keys
  bool insecure = false;           // allow a non-loopback bind without keys
};

// Adds --cluster-key, --insecure and, for the coordinator (`with_clients`),
// --authorized-clients to `desc`, filling `options`.
void AddSecurityOptions(boost::program_options::options_description& desc, SecurityOptions* options,
                        bool with_clients);

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(const std::string& host);

// `host` as ZeroMQ can bind it: "*" and IP addresses unchanged, a name resolved to an IPv4
// address. InvalidArgument "cannot resolve bind host NAME: reason".
Result<std::string> ResolveBindHost(const std::string& host);

// Ok, or why a daemon binding to `bind_host` may not start: no keys on a non-loopback address
// without --insecure.
Status CheckKeysRequired(const std::string& bind_host, const SecurityOptions& options);

// The warning for a daemon run with effective user id `euid`, or nothing.
std::optional<std::string> RootWarning(unsigned euid);

// A daemon's security, set up: the keys its transport uses and the ZAP handler that runs while
// its sockets do (declare it before the transport, so it is destroyed after it).
struct DaemonSecurity {
  std::optional<CurveIdentity> curve;  // nullopt: plain TCP
  std::unique_ptr<ZapHandler> zap;
};

// Checks CheckKeysRequired, reads the key files and starts the ZAP handler in `context`; logs
// what it decided (and RootWarning). Errors name the file and the reason.
Result<DaemonSecurity> SetUpDaemonSecurity(zmq::context_t& context, const SecurityOptions& options,
                                           const std::string& bind_host, const Logger& log);

}  // namespace strads
