// Shell quoting for the commands the launcher prints (--dry-run) and sends over ssh: every word
// comes out as one POSIX shell word, so printed commands can be pasted and remote commands
// survive the remote shell.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strads {

// `word` unchanged when it is made only of safe characters (letters, digits, _ . / : = @ % + , -),
// else in single quotes (with ' written as '\'').
std::string ShellQuote(std::string_view word);

// The words quoted and joined with single spaces.
std::string ShellJoin(const std::vector<std::string>& words);

}  // namespace strads
