// CURVE keys: the files `deploy/strads-cluster keygen` writes, and who they admit.
//
// A key is a Curve25519 key in Z85 text (40 characters, ZeroMQ's zmq_z85_encode). Two kinds of
// file, both line-oriented text where a line starting with '#' is a comment (only such a line:
// Z85 keys may contain '#' and '='):
//
//   key file (cluster.key, client.key: a pair; cluster.pub: public only)
//       public-key = <40 characters>
//       secret-key = <40 characters>          # absent in a .pub file
//     A file holding a secret key must not be readable by group or others (like ssh's keys).
//
//   authorized clients (authorized_clients, like ssh's authorized_keys)
//       <40 characters> [comment...]          # one client public key per line
//
// CurveTrust says who a CURVE handshake admits (the ZAP decision, common/zap_handler.h): the
// cluster's own public key is a member (every daemon holds the cluster key pair); an authorised
// client key is a client; anything else is refused. All of it is plain logic, testable without
// sockets. Thread-compatibility: plain values; const methods may be called from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace strads {

struct CurveKeyPair {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85; empty for a public-only file
};

// A fresh key pair (libsodium through zmq_curve_keypair).
Result<CurveKeyPair> GenerateCurveKeyPair();

// The text of a key file for `pair` (the secret line only if the pair has one); `comment` goes
// on a '#' line at the top.
std::string FormatKeyFile(const CurveKeyPair& pair, const std::string& comment);

// Parses a key file's text; `name` prefixes errors ("NAME:LINE: reason"). With `need_secret`, a
// file without a secret key is an error. A key that is not 40 Z85 characters is an error.
Result<CurveKeyPair> ParseKeyFile(std::string_view text, const std::string& name, bool need_secret);

// Reads and parses the key file at `path`: NotFound "PATH: no such key file", or the errors of
// ParseKeyFile; a file with a secret key readable by group or others is refused (InvalidArgument
// "PATH: permissions 0644 are too open; chmod 600 PATH").
Result<CurveKeyPair> ReadKeyFile(const std::string& path, bool need_secret);

// Writes `text` to `path` with mode 0600 (created or truncated).
Status WriteSecretFile(const std::string& path, const std::string& text);

// True if `key` is 40 characters that decode as Z85 to 32 bytes.
bool IsZ85Key(std::string_view key);

// The Z85 text of a 32-byte binary key (as ZAP hands it over); empty if `binary` is not 32 bytes.
std::string Z85FromBinaryKey(std::string_view binary);

// The authorised client keys: key -> comment.
class AuthorizedKeys {
 public:
  // Parses the text of an authorized_clients file; errors as "NAME:LINE: reason", all of them.
  static Result<AuthorizedKeys> Parse(std::string_view text, const std::string& name);
  // Reads and parses `path` (NotFound "PATH: no such file").
  static Result<AuthorizedKeys> Read(const std::string& path);

  bool Contains(const std::string& z85) const { return keys_.count(z85) > 0; }
  size_t size() const { return keys_.size(); }

 private:
  std::map<std::string, std::string> keys_;
};

// The ZAP User-Id of an authenticated peer (common/sender_check.h reads it back).
inline constexpr const char* kMemberUserId = "member";
inline constexpr const char* kClientUserId = "client";

struct ZapVerdict {
  bool admitted = false;
  std::string user_id;  // kMemberUserId or kClientUserId when admitted
  std::string reason;   // why not, for the log
};

// Who a daemon admits: holders of the cluster key pair (members) and authorised clients.
struct CurveTrust {
  std::string member_public_key;  // Z85: the cluster's public key
  AuthorizedKeys clients;

  // The decision for a handshake with `mechanism` ("CURVE", "NULL", ...) and the peer's public
  // key `client_key` (Z85). Only CURVE with a known key is admitted.
  ZapVerdict Authorize(std::string_view mechanism, const std::string& client_key) const;
};

}  // namespace strads
