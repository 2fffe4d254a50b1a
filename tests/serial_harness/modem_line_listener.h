// Hears the modem-line changes that tiocm_shim.so reports and hands each to the simulated
// instrument on that pty. The shim sends "<st_rdev> <TIOCM bits>" datagrams to the abstract
// unix socket named by LABGATE_TIOCM_NOTIFY whenever a program (this one or a child: a
// labgate-serial, a gateway) changes DTR or RTS on a pty that the kernel gave no modem lines.
#pragma once

#include <sys/types.h>

#include <functional>

#include "absl/status/status.h"

namespace labgate::serial_harness {

// Starts this process's listener and sets LABGATE_TIOCM_NOTIFY for it and the children it
// starts. setenv() is not thread-safe: call it before other threads start. Idempotent.
absl::Status StartModemLineListener();

// Calls `on_change(bits)` on the listener's thread for every change on the tty whose device
// number is `device`, until StopListeningTo(device) (which waits for a call in progress).
void ListenTo(dev_t device, std::function<void(int bits)> on_change);
void StopListeningTo(dev_t device);

}  // namespace labgate::serial_harness
