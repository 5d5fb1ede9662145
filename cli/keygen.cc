#include "cli/keygen.h"

#include <filesystem>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "common/curve_keys.h"

namespace strads {
namespace {

namespace fs = std::filesystem;

// The key pair in `path`, made and written there (0600) if the file does not exist.
Result<CurveKeyPair> ReadOrMakeKeyPair(const std::string& path, const std::string& comment,
                                       std::vector<std::string>& done) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    auto pair = ReadKeyFile(path, /*need_secret=*/true);
    if (pair.ok()) done.push_back("kept " + path);
    return pair;
  }
  auto pair = GenerateCurveKeyPair();
  if (!pair.ok()) return pair;
  if (Status st = WriteSecretFile(path, FormatKeyFile(*pair, comment)); !st.ok()) return st;
  done.push_back("wrote " + path);
  return pair;
}

Status MakeDir(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Status::IoError(fmt::format("{}: cannot create: {}", dir, ec.message()));
  fs::permissions(dir, fs::perms::owner_all, ec);
  return Status::Ok();
}

}  // namespace

Result<std::vector<std::string>> Keygen(const std::string& keys_dir, const std::string& client_dir,
                                        const std::string& comment) {
  std::vector<std::string> done;
  for (const std::string& dir : {keys_dir, client_dir}) {
    if (Status st = MakeDir(dir); !st.ok()) return st;
  }
  auto cluster = ReadOrMakeKeyPair(keys_dir + "/cluster.key",
                                   "the STRADS cluster's key pair: every daemon holds it", done);
  if (!cluster.ok()) return cluster.status();
  const std::string pub = FormatKeyFile({cluster->public_key, ""}, "the STRADS cluster's key");
  for (const std::string& dir : {keys_dir, client_dir}) {
    if (Status st = WriteFileAtomically(dir + "/cluster.pub", pub); !st.ok()) return st;
    done.push_back("wrote " + dir + "/cluster.pub");
  }

  const std::string authorized = keys_dir + "/authorized_clients";
  std::string text = "# client public keys the coordinator admits (strads-cluster keygen)\n";
  if (auto existing = ReadWholeFile(authorized); existing.ok()) {
    text = *existing;
  } else if (existing.status().code() != StatusCode::kNotFound) {
    return existing.status();
  }
  auto keys = AuthorizedKeys::Parse(text, authorized);
  if (!keys.ok()) return keys.status();

  auto client = ReadOrMakeKeyPair(client_dir + "/client.key", "a STRADS client's key pair", done);
  if (!client.ok()) return client.status();
  if (keys->Contains(client->public_key)) {
    done.push_back(fmt::format("{} already lists {}", authorized, client_dir + "/client.key"));
    return done;
  }
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += fmt::format("{} {}\n", client->public_key, comment);
  if (Status st = WriteFileAtomically(authorized, text); !st.ok()) return st;
  done.push_back(fmt::format("added the key of {} to {}", client_dir + "/client.key", authorized));
  return done;
}

}  // namespace strads
