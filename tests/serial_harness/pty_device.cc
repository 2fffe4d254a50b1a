#include "tests/serial_harness/pty_device.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "tests/serial_harness/modem_line_listener.h"

#ifndef LABGATE_TIOCM_SHIM_PATH
#error "LABGATE_TIOCM_SHIM_PATH must name tiocm_shim.so"
#endif

namespace labgate::serial_harness {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

absl::Status Errno(const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", std::strerror(errno)));
}

// tty nodes with a /sys/class/tty entry that a pty can stand in for. Each process
// has its own mount namespace, so the numbers only have to be unique per process.
absl::Mutex device_numbers_mu;
bool device_number_used[64] ABSL_GUARDED_BY(device_numbers_mu) = {};

absl::StatusOr<std::string> AcquireDevicePath() {
  absl::MutexLock lock(&device_numbers_mu);
  for (int number = 1; number <= 63; ++number) {
    if (device_number_used[number]) continue;
    const std::string path = absl::StrCat("/dev/tty", number);
    struct stat info;
    const std::string sysfs = absl::StrCat("/sys/class/tty/tty", number);
    if (stat(path.c_str(), &info) != 0 || lstat(sysfs.c_str(), &info) != 0) continue;
    device_number_used[number] = true;
    return path;
  }
  return absl::ResourceExhaustedError("no free /dev/ttyN node (with a sysfs entry) left");
}

void ReleaseDevicePath(const std::string& path) {
  int number = 0;
  if (!absl::SimpleAtoi(path.substr(std::string("/dev/tty").size()), &number)) return;
  if (number < 1 || number > 63) return;
  absl::MutexLock lock(&device_numbers_mu);
  device_number_used[number] = false;
}

}  // namespace

absl::Status EnterPrivateMountNamespace() {
  if (unshare(CLONE_NEWNS) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("unshare(CLONE_NEWNS) failed: ", std::strerror(errno)));
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot make / private in the new mount namespace: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

bool ShimLoaded() { return dlsym(RTLD_DEFAULT, "labgate_tiocm_shim_loaded") != nullptr; }

const char* ShimPath() { return LABGATE_TIOCM_SHIM_PATH; }

absl::Status ReexecWithShimIfNeeded(char** argv) {
  if (ShimLoaded()) return absl::OkStatus();
  constexpr char kMarker[] = "LABGATE_SERIAL_HARNESS_REEXEC";
  if (getenv(kMarker) != nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(ShimPath(), " did not load through LD_PRELOAD"));
  }
  std::string preload = ShimPath();
  if (const char* existing = getenv("LD_PRELOAD"); existing != nullptr && *existing) {
    preload += absl::StrCat(":", existing);
  }
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv(kMarker, "1", 1);
  execv("/proc/self/exe", argv);
  return absl::InternalError(
      absl::StrCat("cannot re-execute with LD_PRELOAD: ", std::strerror(errno)));
}

PtyDevice::PtyDevice(std::string path, InstrumentMode mode)
    : path_(std::move(path)), mode_(mode), wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

absl::StatusOr<std::unique_ptr<PtyDevice>> PtyDevice::Create(InstrumentMode mode) {
  absl::StatusOr<std::string> path = AcquireDevicePath();
  if (!path.ok()) return path.status();
  std::unique_ptr<PtyDevice> device(new PtyDevice(*path, mode));
  // /dev/null lies under every pty bound here: while one pty is swapped for the next, the
  // path opens as no serial port at all, never as the real /dev/ttyN (a console).
  if (mount("/dev/null", device->path_.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot bind-mount /dev/null over ", device->path_, ": ", std::strerror(errno),
                     " (the pty serial harness needs root in a private mount namespace)"));
  }
  device->placeholder_bound_ = true;
  if (absl::Status status = device->Attach(); !status.ok()) return status;  // releases path
  return device;
}

PtyDevice::~PtyDevice() {
  if (listened_device_ != 0) StopListeningTo(listened_device_);
  Disconnect();
  if (pty_bound_) umount2(path_.c_str(), MNT_DETACH);
  if (placeholder_bound_) umount2(path_.c_str(), MNT_DETACH);
  ReleaseDevicePath(path_);
  if (wake_fd_ >= 0) close(wake_fd_);
}

void PtyDevice::WakeInstrument() {
  const uint64_t one = 1;
  while (wake_fd_ >= 0 && write(wake_fd_, &one, sizeof(one)) < 0 && errno == EINTR) {
  }
}

absl::Status PtyDevice::Attach() {
  struct termios raw;
  std::memset(&raw, 0, sizeof(raw));
  cfmakeraw(&raw);
  char slave_name[128];
  int master = -1, slave = -1;
  if (openpty(&master, &slave, slave_name, &raw, nullptr) != 0) return Errno("openpty");
  // Commands run by labgate-pty-run must not inherit our ends: a copy held open by a
  // child would keep the pty alive after Disconnect(), so the port would see no hang-up.
  fcntl(master, F_SETFD, FD_CLOEXEC);
  fcntl(slave, F_SETFD, FD_CLOEXEC);
  // The previous pty, if any, goes first: a mount over its deleted pts node would fail.
  if (pty_bound_) umount2(path_.c_str(), MNT_DETACH);
  pty_bound_ = false;
  if (mount(slave_name, path_.c_str(), nullptr, MS_BIND, nullptr) != 0) {
    const int error = errno;
    close(master);
    close(slave);
    return absl::PermissionDeniedError(
        absl::StrCat("cannot bind-mount ", slave_name, " over ", path_, ": ", std::strerror(error),
                     " (the pty serial harness needs root in a private mount namespace)"));
  }
  pty_bound_ = true;
  master_fd_ = master;
  slave_fd_ = slave;
  // The host's line changes on this pty (a fresh one after Reconnect) reach OnModemLines.
  if (listened_device_ != 0) StopListeningTo(listened_device_);
  struct stat slave_info;
  if (fstat(slave, &slave_info) == 0) {
    listened_device_ = slave_info.st_rdev;
    ListenTo(listened_device_, [this](int bits) { OnModemLines(bits); });
  }
  stop_ = false;
  stalled_until_ms_ = 0;
  line_.clear();
  {
    absl::MutexLock lock(&mu_);
    connected_ = true;
  }
  thread_ = std::thread(&PtyDevice::Run, this);
  return absl::OkStatus();
}

void PtyDevice::StopInstrument() {
  stop_ = true;
  WakeInstrument();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void PtyDevice::Disconnect() {
  StopInstrument();
  absl::MutexLock lock(&mu_);
  if (master_fd_ >= 0) close(master_fd_);
  if (slave_fd_ >= 0) close(slave_fd_);
  master_fd_ = -1;
  slave_fd_ = -1;
  connected_ = false;
}

absl::Status PtyDevice::Reconnect() {
  Disconnect();
  return Attach();
}

bool PtyDevice::connected() const {
  absl::MutexLock lock(&mu_);
  return connected_;
}

void PtyDevice::Stall(std::chrono::milliseconds duration) {
  stalled_until_ms_ = NowMs() + duration.count();
  WakeInstrument();
}

void PtyDevice::Send(const std::string& bytes) { Reply(bytes); }

std::string PtyDevice::Received() const {
  absl::MutexLock lock(&mu_);
  return received_;
}

void PtyDevice::set_mode(InstrumentMode mode) { mode_ = mode; }

void PtyDevice::Reply(const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = write(master_fd_, bytes.data() + done, bytes.size() - done);
    if (wrote < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;
    }
    done += static_cast<size_t>(wrote);
  }
}

void PtyDevice::Run() {
  char buffer[4096];
  while (!stop_) {
    if (NowMs() < stalled_until_ms_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (boot_pending_.exchange(false)) Boot();
    StreamIfDue();
    // Asleep until the host writes or another thread wakes it: an idle instrument costs the
    // machine no wake-ups (a benchmark runs eight of them beside the one it measures).
    struct pollfd entries[2] = {{master_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    const int ready = poll(entries, wake_fd_ >= 0 ? 2 : 1,
                           stream_period_ms_ > 0 ? 1
                           : wake_fd_ >= 0       ? -1
                                                 : 5);
    if (ready > 0 && (entries[1].revents & POLLIN)) {
      uint64_t drained;
      while (read(wake_fd_, &drained, sizeof(drained)) < 0 && errno == EINTR) {
      }
    }
    if (ready <= 0 || !(entries[0].revents & POLLIN)) continue;
    if (NowMs() < stalled_until_ms_) continue;  // stalled while we waited
    const ssize_t got = read(master_fd_, buffer, sizeof(buffer));
    if (got <= 0) continue;
    if (in_reset_) continue;  // a board held in reset hears nothing
    const std::string chunk(buffer, static_cast<size_t>(got));
    {
      absl::MutexLock lock(&mu_);
      received_ += chunk;
    }
    Handle(chunk);
  }
}

void PtyDevice::Handle(const std::string& chunk) {
  if (mode_ == InstrumentMode::kEcho) {
    Reply(chunk);
    return;
  }
  for (char c : chunk) {
    if (c == '\r') {
      line_ending_ = "\r\n";
      continue;
    }
    if (c != '\n') {
      line_.push_back(c);
      continue;
    }
    std::string line = std::move(line_);
    line_.clear();
    HandleLine(line);
    line_ending_ = "\n";
    if (stop_) return;
  }
}

void PtyDevice::HandleLine(const std::string& line) {
  if (mode_ == InstrumentMode::kBoard) {
    HandleBoardLine(line);
    return;
  }
  if (mode_ == InstrumentMode::kPowerSupply) {
    HandleSupplyLine(line);
    return;
  }
  if (line == "*IDN?") {
    Reply(absl::StrCat(kInstrumentId, line_ending_));
  } else if (absl::StartsWith(line, "STALL ")) {
    int ms = 0;
    if (absl::SimpleAtoi(line.substr(6), &ms)) Stall(std::chrono::milliseconds(ms));
  } else if (absl::StartsWith(line, "STREAM ")) {
    int ms = 0;
    if (absl::SimpleAtoi(line.substr(7), &ms) && ms >= 0) {
      stream_period_ms_ = ms;
      next_reading_ms_ = NowMs() + ms;
    }
  } else if (line == "PARTIAL") {
    Reply("partial");
  } else if (line == "DROP") {
    // Close our ends from the instrument thread itself; Disconnect() joins it later.
    stop_ = true;
    absl::MutexLock lock(&mu_);
    close(master_fd_);
    close(slave_fd_);
    master_fd_ = -1;
    slave_fd_ = -1;
    connected_ = false;
  } else {
    Reply(absl::StrCat(line, line_ending_));
  }
}

void PtyDevice::HandleBoardLine(const std::string& line) {
  switch (board_state_) {
    case BoardState::kLogin:
      user_ok_ = line == kBoardUser;
      board_state_ = BoardState::kPassword;
      Reply("Password: ");
      return;
    case BoardState::kPassword:
      if (user_ok_ && line == kBoardPassword) {
        board_state_ = BoardState::kShell;
        Reply(absl::StrCat("\r\nWelcome to labgate-sim\r\n", kBoardShellPrompt));
      } else {
        board_state_ = BoardState::kLogin;
        Reply(absl::StrCat("\r\nLogin incorrect\r\n", kBoardLoginPrompt));
      }
      return;
    case BoardState::kShell:
      if (line == "exit") {
        board_state_ = BoardState::kLogin;
        Reply(absl::StrCat("logout\r\n", kBoardLoginPrompt));
      } else if (line == "uname") {
        Reply(absl::StrCat("Linux labgate-sim\r\n", kBoardShellPrompt));
      } else if (line.empty()) {
        Reply(kBoardShellPrompt);
      } else {
        Reply(absl::StrCat("sh: ", line, ": not found\r\n", kBoardShellPrompt));
      }
      return;
  }
}

// The listener's thread: only flags change here; the instrument thread does the talking.
void PtyDevice::OnModemLines(int bits) {
  const int before = modem_bits_.exchange(bits);
  if (mode_ != InstrumentMode::kBoard) return;
  const bool dtr = (bits & TIOCM_DTR) != 0;
  const bool dtr_before = before >= 0 && (before & TIOCM_DTR) != 0;
  if (!dtr) {
    in_reset_ = true;
  } else if (!dtr_before && in_reset_) {
    boot_pending_ = true;
    WakeInstrument();
  }
}

void PtyDevice::Boot() {
  in_reset_ = false;
  board_state_ = BoardState::kLogin;
  line_.clear();
  ++boots_;
  const std::string banner = kBoardBanner;
  const size_t half = banner.find("DRAM");
  Reply(banner.substr(0, half));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Reply(absl::StrCat(banner.substr(half), kBoardLoginPrompt));
}

void PtyDevice::StreamIfDue() {
  if (stream_period_ms_ <= 0 || NowMs() < next_reading_ms_) return;
  next_reading_ms_ += stream_period_ms_;
  ++readings_;
  Reply(absl::StrFormat("READING %d %.4f V\n", readings_, 5.0 + 0.001 * (readings_ % 100)));
}

namespace {

// "12", "12V", "500mA", "4.9 V" -> the value in volts or amps; false if it is none of those.
bool SupplyNumber(std::string text, double* value) {
  text = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(text));
  double scale = 1;
  for (const char* unit : {"V", "A"}) {
    if (absl::EndsWith(text, unit)) text.pop_back();
  }
  if (absl::EndsWith(text, "M")) {
    text.pop_back();
    scale = 0.001;
  }
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), value)) return false;
  *value *= scale;
  return true;
}

}  // namespace

PtyDevice::SupplyChannel PtyDevice::Supply(int channel) const {
  absl::MutexLock lock(&mu_);
  return channel >= 1 && channel <= 3 ? supply_[channel] : SupplyChannel{};
}

bool PtyDevice::output_on() const {
  absl::MutexLock lock(&mu_);
  return output_on_;
}

std::vector<std::string> PtyDevice::Applied() const {
  absl::MutexLock lock(&mu_);
  return applied_;
}

void PtyDevice::set_serial(const std::string& serial) {
  absl::MutexLock lock(&mu_);
  serial_ = serial;
}

void PtyDevice::HandleSupplyLine(const std::string& line) {
  for (absl::string_view part : absl::StrSplit(line, ';')) {
    std::string command = absl::AsciiStrToUpper(absl::StripAsciiWhitespace(part));
    if (command.empty()) continue;
    if (command == "*IDN?") {
      absl::MutexLock lock(&mu_);
      Reply(absl::StrCat("LABGATE,SIM-PSU,", serial_, ",1.0", line_ending_));
      continue;
    }
    int channel = 1;
    if (command[0] == ':') command.erase(0, 1);
    if (absl::StartsWith(command, "SOUR") && command.size() > 4 &&
        absl::ascii_isdigit(static_cast<unsigned char>(command[4]))) {
      channel = command[4] - '0';
      command = command.substr(command.find(':') == std::string::npos ? command.size()
                                                                      : command.find(':') + 1);
    }
    absl::StrReplaceAll({{":LEV", ""}}, &command);
    const size_t space = command.find(' ');
    const std::string header = command.substr(0, space);
    const std::string argument = space == std::string::npos ? "" : command.substr(space + 1);
    absl::MutexLock lock(&mu_);
    if (channel < 1 || channel > 3) continue;
    double value = 0;
    if ((header == "VOLT" || header == "CURR") && SupplyNumber(argument, &value)) {
      (header == "VOLT" ? supply_[channel].volts : supply_[channel].amps) = value;
      applied_.push_back(absl::StrCat(header, " ", channel, " ", value));
    } else if (header == "APPL") {
      std::vector<std::string> fields = absl::StrSplit(argument, ',');
      int target = 0;
      if (fields.size() < 2 || !absl::StartsWith(fields[0], "CH") ||
          !absl::SimpleAtoi(fields[0].substr(2), &target) || target < 1 || target > 3 ||
          !SupplyNumber(fields[1], &value)) {
        continue;
      }
      supply_[target].volts = value;
      double amps = 0;
      if (fields.size() > 2 && SupplyNumber(fields[2], &amps)) supply_[target].amps = amps;
      applied_.push_back(absl::StrCat("APPL ", target, " ", value));
    } else if (header == "OUTP") {
      output_on_ = argument == "ON" || argument == "1";
      applied_.push_back(absl::StrCat("OUTP ", output_on_ ? "ON" : "OFF"));
    } else if (header == "VOLT?" || header == "MEAS:VOLT?") {
      Reply(absl::StrCat(supply_[channel].volts, line_ending_));
    } else if (header == "CURR?" || header == "MEAS:CURR?") {
      Reply(absl::StrCat(supply_[channel].amps, line_ending_));
    }
  }
}

}  // namespace labgate::serial_harness
