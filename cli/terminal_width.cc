#include "cli/terminal_width.h"

#include <sys/ioctl.h>
#include <unistd.h>

namespace strads {

size_t TerminalWidth(int fd) {
  if (!isatty(fd)) return 0;
  winsize size{};
  // A terminal that does not report its size (ws_col 0, e.g. a serial console): the VT100's 80.
  if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 80;
  return size.ws_col;
}

}  // namespace strads
