#include "common/curve_keys.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <array>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <zmq.h>

namespace strads {
namespace {

constexpr size_t kZ85KeyLength = 40;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The line trimmed; empty for a comment line. Only a line that starts with '#' is a comment: Z85
// keys may contain '#' (and '='), so a key line has no trailing comment.
std::string_view Content(std::string_view line) {
  line = Trim(line);
  return !line.empty() && line.front() == '#' ? std::string_view() : line;
}

Result<std::string> ReadText(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": no such " + what);
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::IoError(path + ": cannot read " + what);
  return text.str();
}

// Calls `f(line_number, content)` for each non-empty line of `text` (comments removed).
template <typename F>
void ForEachLine(std::string_view text, F&& f) {
  size_t number = 0;
  while (!text.empty()) {
    ++number;
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    std::string_view content = Content(line);
    if (!content.empty()) f(number, content);
  }
}

}  // namespace

bool IsZ85Key(std::string_view key) {
  if (key.size() != kZ85KeyLength) return false;
  std::array<uint8_t, 32> binary{};
  const std::string text(key);
  return zmq_z85_decode(binary.data(), text.c_str()) != nullptr;
}

std::string Z85FromBinaryKey(std::string_view binary) {
  if (binary.size() != 32) return "";
  std::array<char, kZ85KeyLength + 1> text{};
  if (!zmq_z85_encode(text.data(), reinterpret_cast<const uint8_t*>(binary.data()), 32)) return "";
  return std::string(text.data());
}

Result<CurveKeyPair> GenerateCurveKeyPair() {
  std::array<char, kZ85KeyLength + 1> pub{}, sec{};
  if (zmq_curve_keypair(pub.data(), sec.data()) != 0) {
    return Status::FailedPrecondition(
        std::string("cannot make a CURVE key pair (libzmq without libsodium?): ") +
        zmq_strerror(zmq_errno()));
  }
  return CurveKeyPair{pub.data(), sec.data()};
}

std::string FormatKeyFile(const CurveKeyPair& pair, const std::string& comment) {
  std::string text = "# " + comment + "\npublic-key = " + pair.public_key + "\n";
  if (!pair.secret_key.empty()) text += "secret-key = " + pair.secret_key + "\n";
  return text;
}

Result<CurveKeyPair> ParseKeyFile(std::string_view text, const std::string& name,
                                  bool need_secret) {
  CurveKeyPair pair;
  std::string errors;
  ForEachLine(text, [&](size_t number, std::string_view content) {
    const size_t eq = content.find('=');
    const std::string_view field = Trim(content.substr(0, eq));
    const std::string_view value =
        eq == std::string_view::npos ? std::string_view() : Trim(content.substr(eq + 1));
    std::string* slot = field == "public-key"   ? &pair.public_key
                        : field == "secret-key" ? &pair.secret_key
                                                : nullptr;
    auto error = [&](const std::string& why) {
      errors += fmt::format("{}{}:{}: {}", errors.empty() ? "" : "\n", name, number, why);
    };
    if (eq == std::string_view::npos || !slot) {
      return error("expected 'public-key = KEY' or 'secret-key = KEY'");
    }
    if (!IsZ85Key(value)) {
      return error(fmt::format("{} is not a CURVE key (40 Z85 characters)", field));
    }
    *slot = std::string(value);
  });
  if (errors.empty() && pair.public_key.empty()) errors = name + ": no public-key line";
  if (errors.empty() && need_secret && pair.secret_key.empty()) {
    errors = name + ": no secret-key line (a .pub file? this needs the key pair)";
  }
  if (!errors.empty()) return Status::InvalidArgument(errors);
  return pair;
}

Result<CurveKeyPair> ReadKeyFile(const std::string& path, bool need_secret) {
  STRADS_ASSIGN_OR_RETURN(auto text, ReadText(path, "key file"));
  auto pair = ParseKeyFile(text, path, need_secret);
  if (!pair.ok()) return pair;
  struct stat st {};
  if (!pair->secret_key.empty() && stat(path.c_str(), &st) == 0 && (st.st_mode & 077) != 0) {
    return Status::InvalidArgument(
        fmt::format("{}: permissions {:04o} are too open for a secret key; chmod 600 {}", path,
                    st.st_mode & 0777, path));
  }
  return pair;
}

Status WriteSecretFile(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(path + ": cannot create");
  // An existing file keeps its mode through O_CREAT; a secret must not stay readable.
  const bool ok = fchmod(fd, 0600) == 0 &&
                  write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (close(fd) != 0 || !ok) return Status::IoError(path + ": cannot write");
  return Status::Ok();
}

Result<AuthorizedKeys> AuthorizedKeys::Parse(std::string_view text, const std::string& name) {
  AuthorizedKeys keys;
  std::string errors;
  ForEachLine(text, [&](size_t number, std::string_view content) {
    const size_t space = content.find_first_of(" \t");
    const std::string_view key = content.substr(0, space);
    if (!IsZ85Key(key)) {
      errors += fmt::format(
          "{}{}:{}: not a CURVE public key (40 Z85 characters, then an "
          "optional comment)",
          errors.empty() ? "" : "\n", name, number);
      return;
    }
    keys.keys_[std::string(key)] =
        space == std::string_view::npos ? "" : std::string(Trim(content.substr(space)));
  });
  if (!errors.empty()) return Status::InvalidArgument(errors);
  return keys;
}

Result<AuthorizedKeys> AuthorizedKeys::Read(const std::string& path) {
  STRADS_ASSIGN_OR_RETURN(auto text, ReadText(path, "file"));
  return Parse(text, path);
}

ZapVerdict CurveTrust::Authorize(std::string_view mechanism, const std::string& client_key) const {
  if (mechanism != "CURVE") {
    return {false, "",
            fmt::format("mechanism {} refused: this cluster requires CURVE keys",
                        std::string(mechanism))};
  }
  if (!member_public_key.empty() && client_key == member_public_key) {
    return {true, kMemberUserId, ""};
  }
  if (clients.Contains(client_key)) return {true, kClientUserId, ""};
  return {false, "", "unknown client key " + client_key};
}

}  // namespace strads
