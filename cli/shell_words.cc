#include "cli/shell_words.h"

#include <cctype>

namespace strads {

std::string ShellQuote(std::string_view word) {
  auto safe = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
  };
  bool plain = !word.empty();
  for (char c : word) plain = plain && safe(c);
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ShellJoin(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    out += ShellQuote(w);
  }
  return out;
}

}  // namespace strads
