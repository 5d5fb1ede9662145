// ClientKeys: which CURVE keys the CLI presents to a coordinator.
//
//   --client-key FILE   this client's key pair   (default CONFIG/client.key)
//   --cluster-key FILE  the cluster's public key (default CONFIG/cluster.pub)
// CONFIG is $XDG_CONFIG_HOME/strads, else ~/.config/strads; `deploy/strads-cluster keygen` writes
// both there and adds the client's public key to the cluster's authorized_clients. With neither
// flag and no CONFIG/client.key the CLI speaks plain TCP (a loopback cluster without keys).
// Thread-compatibility: a function of its arguments.
#pragma once

#include <optional>
#include <string>

#include "common/status.h"
#include "common/zmq_transport.h"

namespace strads {

struct ClientKeyPaths {
  std::string client_key;   // --client-key; empty = the default
  std::string cluster_key;  // --cluster-key; empty = the default
  std::string config_dir;   // CONFIG (see above)
};

// CONFIG from the environment values given ($XDG_CONFIG_HOME, $HOME; null if unset).
std::string ClientConfigDir(const char* xdg_config_home, const char* home);

// The keys to use, nullopt for none. Errors name the file: a key file that is given or defaulted
// but unreadable, or a client key without the cluster's public key.
Result<std::optional<CurveIdentity>> LoadClientKeys(const ClientKeyPaths& paths);

}  // namespace strads
