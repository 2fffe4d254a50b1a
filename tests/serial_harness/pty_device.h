// A pseudo-terminal that the real libserialport accepts as a serial port, with a
// simulated instrument on the other end (see ../shared/reference/serial-testing.md).
//
// libserialport 0.1.1 refuses a pty twice: it needs a /sys/class/tty/<name> entry,
// and sp_open() reads the modem lines with TIOCMGET, which a pty does not support.
// So, inside a private mount namespace, the pty's slave end is bind-mounted over an
// existing tty node that has a sysfs entry (/dev/tty1../dev/tty63 on these
// machines), and tiocm_shim.so (LD_PRELOAD) emulates the modem-line ioctls.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

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
  //   STREAM <ms>  -> a reading "READING <n> <volts> V" every <ms> ms (STREAM 0 stops)
  //   anything else is echoed back
  kScpi,
  // Every byte is echoed back at once, NUL bytes included.
  kEcho,
  // A board with a login shell, its reset wired to DTR: releasing DTR holds it in reset,
  // asserting DTR again boots it (so a pulse of DTR low resets it). Booting prints
  // kBoardBanner in two parts 20 ms apart, then kBoardLoginPrompt. Lines ending "\n" or
  // "\r\n": at the login prompt a user name gets "Password: ", and kBoardUser with
  // kBoardPassword gets kBoardShellPrompt ("Login incorrect" and the login prompt again
  // otherwise); the shell answers `uname` with "Linux labgate-sim" and `exit` with the login
  // prompt. Input is lost while held in reset. Needs StartModemLineListener().
  kBoard,
  // A three-channel power supply that keeps its state: `VOLT v`, `CURR a` (optionally
  // `SOUR<n>:` first, `:LEV` after, and a V/mV or A/mA suffix), `APPL CH<n>,v[,a]`, `OUTP ON|OFF`,
  // `VOLT?`/`CURR?`/`MEAS:VOLT?` (answered), `*IDN?` -> "LABGATE,SIM-PSU,<serial>,1.0"; several
  // commands per line with ';'. Its own small reader, on purpose not labgate's: a test sees what
  // reached the instrument (Supply(), Applied()) independently of what labgate decided.
  kPowerSupply,
};

inline constexpr char kInstrumentId[] = "LABGATE,SIM-PTY,0001,1.0";
inline constexpr char kBoardBanner[] =
    "\r\nlabgate-sim boot 2.1 (reset)\r\nDRAM: 64 MiB\r\nStarting kernel ...\r\n";
inline constexpr char kBoardLoginPrompt[] = "labgate-sim login: ";
inline constexpr char kBoardUser[] = "root";
inline constexpr char kBoardPassword[] = "labgate";
inline constexpr char kBoardShellPrompt[] = "root@labgate-sim:~# ";

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

  // The modem bits the host last set on this pty (TIOCM_DTR, TIOCM_RTS), as the shim reported
  // them; -1 before any change. And how many times a kBoard instrument has booted.
  int modem_bits() const { return modem_bits_; }
  int boots() const { return boots_; }

  // The power supply's state and every setting command it applied, in order.
  struct SupplyChannel {
    double volts = 0, amps = 0;
  };
  SupplyChannel Supply(int channel) const;
  bool output_on() const;
  std::vector<std::string> Applied() const;
  void set_serial(const std::string& serial);

 private:
  explicit PtyDevice(std::string path, InstrumentMode mode);
  absl::Status Attach();
  void StopInstrument();
  void Run();
  void Handle(const std::string& chunk);
  void HandleLine(const std::string& line);
  void HandleBoardLine(const std::string& line);
  void OnModemLines(int bits);
  void Boot();
  void StreamIfDue();
  void HandleSupplyLine(const std::string& line);
  void Reply(const std::string& bytes);
  // Interrupts the instrument thread's wait, so that it sees a flag another thread set.
  void WakeInstrument();

  const std::string path_;
  std::atomic<InstrumentMode> mode_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> stalled_until_ms_{0};
  std::atomic<int> modem_bits_{-1};
  std::atomic<bool> in_reset_{false};
  std::atomic<bool> boot_pending_{false};
  std::atomic<int> boots_{0};
  const int wake_fd_;          // an eventfd the instrument thread also waits on
  dev_t listened_device_ = 0;  // 0: not registered with the modem-line listener
  int master_fd_ = -1;
  int slave_fd_ = -1;
  bool placeholder_bound_ = false;  // /dev/null over path_, under the pty
  bool pty_bound_ = false;
  std::thread thread_;
  std::string line_;                // instrument thread only
  std::string line_ending_ = "\n";  // instrument thread only: answers end like the command
  enum class BoardState { kLogin, kPassword, kShell };
  BoardState board_state_ = BoardState::kLogin;  // instrument thread only
  bool user_ok_ = false;                         // instrument thread only
  int64_t stream_period_ms_ = 0;                 // instrument thread only
  int64_t next_reading_ms_ = 0;                  // instrument thread only
  int64_t readings_ = 0;                         // instrument thread only

  mutable absl::Mutex mu_;
  std::string received_ ABSL_GUARDED_BY(mu_);
  SupplyChannel supply_[4] ABSL_GUARDED_BY(mu_);  // channels 1..3
  bool output_on_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::string> applied_ ABSL_GUARDED_BY(mu_);
  std::string serial_ ABSL_GUARDED_BY(mu_) = "PSU0001";
  bool connected_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace labgate::serial_harness
