#include "cli/client_keys.h"

#include <filesystem>

namespace strads {

std::string ClientConfigDir(const char* xdg_config_home, const char* home) {
  if (xdg_config_home && *xdg_config_home) return std::string(xdg_config_home) + "/strads";
  return std::string(home && *home ? home : ".") + "/.config/strads";
}

Result<std::optional<CurveIdentity>> LoadClientKeys(const ClientKeyPaths& paths) {
  const std::string client_key =
      paths.client_key.empty() ? paths.config_dir + "/client.key" : paths.client_key;
  const std::string cluster_key =
      paths.cluster_key.empty() ? paths.config_dir + "/cluster.pub" : paths.cluster_key;
  std::error_code ec;
  if (paths.client_key.empty() && paths.cluster_key.empty() &&
      !std::filesystem::exists(client_key, ec)) {
    return std::optional<CurveIdentity>();
  }
  auto own = ReadKeyFile(client_key, /*need_secret=*/true);
  if (!own.ok()) return own.status();
  auto cluster = ReadKeyFile(cluster_key, /*need_secret=*/false);
  if (!cluster.ok()) {
    return Status::InvalidArgument(cluster.status().message() +
                                   " (the cluster's public key, needed with a client key; "
                                   "strads-cluster keygen writes it)");
  }
  return std::optional<CurveIdentity>(CurveIdentity{*own, cluster->public_key});
}

}  // namespace strads
