// TerminalWidth: how many columns the terminal behind a file descriptor shows, for fitting the
// progress line and the status tables (cli/fitted_line.h, cli/text_table.h).
// Thread-safety: safe (one ioctl).
#pragma once

#include <cstddef>

namespace strads {

// The columns of the terminal `fd` refers to, asked anew at each call (the window may have been
// resized); 0 when `fd` is not a terminal (a pipe or file: lines are not cut).
size_t TerminalWidth(int fd);

}  // namespace strads
