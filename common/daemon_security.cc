#include "common/daemon_security.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/counted_noun.h"

namespace strads {

void AddSecurityOptions(boost::program_options::options_description& desc, SecurityOptions* options,
                        bool with_clients) {
  namespace po = boost::program_options;
  desc.add_options()(
      "cluster-key", po::value(&options->cluster_key),
      "the cluster's CURVE key pair (strads-cluster keygen: RUN_DIR/keys/cluster.key); "
      "every socket then uses CURVE")(
      "insecure", po::bool_switch(&options->insecure),
      "allow binding to a non-loopback address without --cluster-key (anyone who can reach the "
      "ports controls the cluster)");
  if (with_clients) {
    desc.add_options()("authorized-clients", po::value(&options->authorized_clients),
                       "public keys of the clients admitted, one per line "
                       "(RUN_DIR/keys/authorized_clients); needs --cluster-key");
  }
}

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1" || host == "[::1]") return true;
  in_addr addr{};
  return inet_pton(AF_INET, host.c_str(), &addr) == 1 && (ntohl(addr.s_addr) >> 24) == 127;
}

Result<std::string> ResolveBindHost(const std::string& host) {
  if (host == "*") return host;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1 || inet_pton(AF_INET6, host.c_str(), &v6) == 1) {
    return host;
  }
  addrinfo hints{};
  hints.ai_family = AF_INET;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0 || !found) {
    return Status::InvalidArgument(
        fmt::format("cannot resolve bind host {}: {}", host, gai_strerror(rc)));
  }
  char text[INET_ADDRSTRLEN] = {0};
  inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text, sizeof(text));
  freeaddrinfo(found);
  return std::string(text);
}

Status CheckKeysRequired(const std::string& bind_host, const SecurityOptions& options) {
  if (!options.authorized_clients.empty() && options.cluster_key.empty()) {
    return Status::InvalidArgument("--authorized-clients needs --cluster-key");
  }
  if (!options.cluster_key.empty() || options.insecure || IsLoopbackHost(bind_host)) {
    return Status::Ok();
  }
  return Status::FailedPrecondition(fmt::format(
      "refusing to bind {} without keys: anyone who can reach it could submit jobs, read results "
      "and shut the cluster down. Make keys with `strads-cluster keygen` and pass "
      "--cluster-key, bind to 127.0.0.1, or pass --insecure",
      bind_host == "*" ? std::string("every interface (*)") : bind_host));
}

std::optional<std::string> RootWarning(unsigned euid) {
  if (euid != 0) return std::nullopt;
  return "running as root: a job can make this daemon read any file on this host; run it as an "
         "unprivileged user and confine data with --data-root";
}

Result<DaemonSecurity> SetUpDaemonSecurity(zmq::context_t& context, const SecurityOptions& options,
                                           const std::string& bind_host, const Logger& log) {
  if (auto warning = RootWarning(geteuid())) log->warn("{}", *warning);
  STRADS_RETURN_IF_ERROR(CheckKeysRequired(bind_host, options));
  DaemonSecurity security;
  if (options.cluster_key.empty()) {
    log->info("no --cluster-key: plain TCP{}", options.insecure ? " (--insecure)" : "");
    return security;
  }
  STRADS_ASSIGN_OR_RETURN(auto pair, ReadKeyFile(options.cluster_key, /*need_secret=*/true));
  CurveTrust trust;
  trust.member_public_key = pair.public_key;
  if (!options.authorized_clients.empty()) {
    STRADS_ASSIGN_OR_RETURN(auto clients, AuthorizedKeys::Read(options.authorized_clients));
    trust.clients = std::move(clients);
  }
  const size_t clients = trust.clients.size();
  STRADS_ASSIGN_OR_RETURN(auto zap, ZapHandler::Start(context, std::move(trust), log));
  security.zap = std::move(zap);
  security.curve = CurveIdentity{pair, pair.public_key};
  log->info("CURVE on: cluster key {}, {}", options.cluster_key,
            CountedNoun(clients, "authorised client key"));
  return security;
}

}  // namespace strads
