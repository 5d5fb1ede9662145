// Keygen: what `deploy/strads-cluster keygen` does (through `strads cluster keygen`), README
// "Security".
//
//   KEYS_DIR/cluster.key          the cluster's CURVE key pair, 0600 (made once, then kept: every
//                                 daemon of the cluster holds it and is a member)
//   KEYS_DIR/cluster.pub          its public key, for clients
//   KEYS_DIR/authorized_clients   the client public keys the coordinator admits, one per line
//                                 with a comment (like ssh's authorized_keys)
//   CLIENT_DIR/client.key         this client's key pair, 0600 (made if absent, else reused)
//   CLIENT_DIR/cluster.pub        a copy of the cluster's public key (where strads looks)
//
// Running it again adds nothing that is there already: the same files give the same keys, and a
// client key is listed once. Existing files are read and checked, so a damaged one is reported
// (FILE:LINE: reason) rather than replaced.
// Thread-compatibility: a function; touches only the files above.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace strads {

// Makes what is missing of the files above; `comment` follows the client key in
// authorized_clients (e.g. "alice@host 2026-11-24"). Returns one line per thing done or found,
// for the user.
Result<std::vector<std::string>> Keygen(const std::string& keys_dir, const std::string& client_dir,
                                        const std::string& comment);

}  // namespace strads
