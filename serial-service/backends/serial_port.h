// The one interface every port backend implements (libserialport devices and
// loop:// loopbacks). Calls may block; the service makes blocking ones only on the
// port's own worker thread. With a timeout of 0, Read and Write never block, and may
// run on any thread that holds the idle worker's place.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "serial-service/ports/line_sequence.h"

namespace labgate::serial {

class ReplayedInstrument;

enum class Parity { kNone, kOdd, kEven };
enum class FlowControl { kNone, kHardware, kSoftware };

struct PortSettings {
  int64_t baud_rate = 0;
  int64_t timeout_ms = 1000;
  int data_bits = 8;
  Parity parity = Parity::kNone;
  int stop_bits = 1;
  FlowControl flow_control = FlowControl::kNone;
  std::string terminator;
  int64_t idle_disconnect_ms = 0;  // 0: never auto-close
  std::string session_id;          // empty: the port's I/O is not recorded
  // Named sequences given at open, run by run_sequence (the policy's of the same name win).
  std::vector<LineSequence> sequences;
};

enum class Transport { kUnknown, kUsb, kBluetooth, kPci, kLoopback };

// The modem lines: DTR and RTS are driven by the host; CTS, DSR, DCD and RI by the device.
struct ModemSignals {
  bool dtr = false;
  bool rts = false;
  bool cts = false;
  bool dsr = false;
  bool dcd = false;
  bool ri = false;
};

// What is known about a port without opening it.
struct PortDetails {
  std::string port_name;
  Transport transport = Transport::kUnknown;
  int usb_vid = -1;  // -1 when not a USB device
  int usb_pid = -1;
  std::optional<std::string> serial_number;
  std::optional<std::string> manufacturer;
  std::optional<std::string> product;
  std::optional<std::string> description;
};

class SerialPort {
 public:
  virtual ~SerialPort() = default;

  // NOT_FOUND for a missing device, PERMISSION_DENIED, FAILED_PRECONDITION when busy.
  virtual absl::Status Open() = 0;
  // Applies settings to an open port; may be called again to reconfigure.
  virtual absl::Status Configure(const PortSettings& settings) = 0;
  // Waits up to `timeout_ms` (0: do not wait) until at least one byte is available,
  // then returns what is there, at most `max` bytes. 0 means the timeout passed.
  // UNAVAILABLE "device disconnected" when the device went away.
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t max, int64_t timeout_ms) = 0;
  // What has already arrived, for a caller polling in a loop: never waits, not even for the
  // kernel handing over bytes still on their way (0 then; they show on a later call). A
  // hang-up may show only on the next Read.
  virtual absl::StatusOr<size_t> ReadArrived(char* buffer, size_t max) {
    return Read(buffer, max, 0);
  }
  // Writes as much of `data` as fits within `timeout_ms` (0: what fits at once, without
  // waiting); returns how much that was.
  virtual absl::StatusOr<size_t> Write(const std::string& data, int64_t timeout_ms) = 0;
  // Idempotent.
  virtual void Close() = 0;
  // Which implementation serves the port ("libserialport", "termios", "loopback"), as
  // describe_port reports it. May change at Open (see TtyPort).
  virtual std::string backend_name() const { return "custom"; }
  // A descriptor of the open port that polls readable (or hung up) when Read would not wait:
  // the port's worker sleeps on it to capture bytes as they arrive. -1 when there is none
  // (then the worker drains the port after each call and polls while it has subscribers).
  virtual int ReadableFd() const { return -1; }
  // The recording a replay:// port plays; null for every other backend.
  virtual std::shared_ptr<ReplayedInstrument> replay() const { return nullptr; }

  // The control lines of an open port. A backend without them (a pseudo-terminal, a custom
  // port) answers FAILED_PRECONDITION naming itself, never a made-up state.
  virtual absl::StatusOr<ModemSignals> GetSignals();
  // Sets the lines given; a line left nullopt keeps its level.
  virtual absl::Status SetSignals(std::optional<bool> dtr, std::optional<bool> rts);
  // Holds the transmit line in break for `ms`, then releases it. Blocks for `ms`.
  virtual absl::Status SendBreak(int64_t ms);

 protected:
  // FAILED_PRECONDITION: this backend cannot `what` (e.g. "drive DTR/RTS"), with the reason.
  absl::Status NoControlLines(const std::string& what, const std::string& reason = "") const;
};

// Makes the backend for a port name: loop://... gives a LoopbackPort, anything
// else a TtyPort (libserialport, or termios for ttys libserialport will not open).
// Tests inject their own.
using PortFactory = std::function<std::unique_ptr<SerialPort>(const std::string& port_name)>;
std::unique_ptr<SerialPort> DefaultPortFactory(const std::string& port_name);

bool IsLoopbackName(const std::string& port_name);
bool IsSimName(const std::string& port_name);     // sim://MODEL
bool IsReplayName(const std::string& port_name);  // replay://SESSION_ID[?mode=...&speed=...]

}  // namespace labgate::serial
