// A pseudo-terminal that the real libserialport accepts as a serial port, with a
// simulated instrument on the other end (see ../shared/reference/serial-testing.md).
//
// libserialport 0.1.1 refuses a pty twice: it needs a /sys/class/tty/<name> entry,
// and sp_open() reads the modem lines with TIOCMGET, which a pty does not support.
// So, inside a private mount namespace, the pty's slave end is bind-mounted over an
// existing tty node that has a sysfs entry (/dev/tty1../dev/tty63 on these
// machines), and tiocm_shim.so (LD_PRELOAD) emulates the modem-line ioctls.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace labgate::serial_harness {

// Moves the calling process into a private mount namespace, with every mount made
// private so that bind mounts never reach the host. Call before any thread starts.
absl::Status EnterPrivateMountNamespace();

// True when tiocm_shim.so is loaded into this process.
bool ShimLoaded();

// When the shim is not loaded, re-executes this program (/proc/self/exe with
// `argv`) with tiocm_shim.so prepended to LD_PRELOAD; does not return then. Returns
// an error if that already happened once and the shim still is not there.
absl::Status ReexecWithShimIfNeeded(char** argv);

// The shim's path in the build tree.
const char* ShimPath();

// What the instrument does with the bytes it receives.
enum class InstrumentMode {
  // Line commands ending in "\n" or "\r\n", answered with the same ending:
  //   *IDN?        -> the id string and "\n"
  //   STALL <ms>   -> stop reading and answering for <ms> milliseconds
  //   PARTIAL      -> "partial" with no terminator
  //   DROP         -> the instrument drops off (closes its end)
  //   anything else is echoed back
  kScpi,
  // Every byte is echoed back at once, NUL bytes included.
  kEcho,
};

inline constexpr char kInstrumentId[] = "LABGATE,SIM-PTY,0001,1.0";

class PtyDevice {
 public:
  // Opens a pty and binds its slave end over a free /dev/ttyN node. Fails with a
  // clear message when the mount is not permitted.
  static absl::StatusOr<std::unique_ptr<PtyDevice>> Create(InstrumentMode mode);
  ~PtyDevice();
  PtyDevice(const PtyDevice&) = delete;
  PtyDevice& operator=(const PtyDevice&) = delete;

  // The device path to open with libserialport, e.g. /dev/tty12.
  const std::string& path() const { return path_; }

  // Stops reading and answering for `duration` (bytes wait in the pty meanwhile).
  void Stall(std::chrono::milliseconds duration);
  // Sends unsolicited bytes to the port.
  void Send(const std::string& bytes);
  // The instrument drops off: its end of the pty closes, so the port sees a hang-up.
  void Disconnect();
  // The instrument comes back on a fresh pty, bound over the same path.
  absl::Status Reconnect();
  bool connected() const;

  // Every byte the instrument has received so far.
  std::string Received() const;
  void set_mode(InstrumentMode mode);

 private:
  explicit PtyDevice(std::string path, InstrumentMode mode);
  absl::Status Attach();
  void StopInstrument();
  void Run();
  void Handle(const std::string& chunk);
  void HandleLine(std::string line);
  void Reply(const std::string& bytes);

  const std::string path_;
  std::atomic<InstrumentMode> mode_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> stalled_until_ms_{0};
  int master_fd_ = -1;
  int slave_fd_ = -1;
  bool placeholder_bound_ = false;  // /dev/null over path_, under the pty
  bool pty_bound_ = false;
  std::thread thread_;
  std::string line_;                // instrument thread only
  std::string line_ending_ = "\n";  // instrument thread only: answers end like the command

  mutable absl::Mutex mu_;
  std::string received_ ABSL_GUARDED_BY(mu_);
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace labgate::serial_harness
