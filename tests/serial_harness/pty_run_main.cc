// labgate-pty-run: runs a command in a private mount namespace in which some
// /dev/ttyN nodes are pseudo-terminals with simulated instruments on the other end,
// and with tiocm_shim.so preloaded, so that the real libserialport (in
// labgate-serial, the gateway, a benchmark...) can open them.
//
//   labgate-pty-run [--devices N] [--mode scpi|echo|board|psu] [--reconnect-ms MS] -- COMMAND...
//
// The command gets LABGATE_PTY_DEVICES=/dev/ttyA,/dev/ttyB,... in its environment.
// An instrument that was told "DROP" comes back after --reconnect-ms (0: never).
// Exits with the command's status; 1 (with a message) when the namespace, the bind
// mounts or the shim are not available. Needs root.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "tests/serial_harness/modem_line_listener.h"
#include "tests/serial_harness/pty_device.h"

extern char** environ;

namespace {

using labgate::serial_harness::InstrumentMode;
using labgate::serial_harness::PtyDevice;

volatile sig_atomic_t child_pid = 0;

void ForwardSignal(int signal_number) {
  if (child_pid > 0) kill(child_pid, signal_number);
}

int Usage() {
  std::fprintf(
      stderr,
      "usage: labgate-pty-run [--devices N] [--mode scpi|echo|board|psu] [--reconnect-ms MS] "
      "-- COMMAND [ARGS...]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int devices = 1;
  int reconnect_ms = 0;
  InstrumentMode mode = InstrumentMode::kScpi;
  int command_at = -1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") {
      command_at = i + 1;
      break;
    }
    if (i + 1 >= argc) return Usage();
    const std::string value = argv[++i];
    if (arg == "--devices") {
      if (!absl::SimpleAtoi(value, &devices) || devices < 1 || devices > 60) return Usage();
    } else if (arg == "--reconnect-ms") {
      if (!absl::SimpleAtoi(value, &reconnect_ms) || reconnect_ms < 0) return Usage();
    } else if (arg == "--mode") {
      if (value == "scpi") {
        mode = InstrumentMode::kScpi;
      } else if (value == "echo") {
        mode = InstrumentMode::kEcho;
      } else if (value == "board") {
        mode = InstrumentMode::kBoard;
      } else if (value == "psu") {
        mode = InstrumentMode::kPowerSupply;
      } else {
        return Usage();
      }
    } else {
      return Usage();
    }
  }
  if (command_at < 0 || command_at >= argc) return Usage();

  if (absl::Status status = labgate::serial_harness::ReexecWithShimIfNeeded(argv); !status.ok()) {
    std::fprintf(stderr, "labgate-pty-run: FATAL: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (absl::Status status = labgate::serial_harness::EnterPrivateMountNamespace(); !status.ok()) {
    std::fprintf(stderr, "labgate-pty-run: FATAL: %s (needs root)\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  // The command's DTR/RTS changes reach the instruments (a kBoard one reboots on a DTR pulse).
  if (absl::Status status = labgate::serial_harness::StartModemLineListener(); !status.ok()) {
    std::fprintf(stderr, "labgate-pty-run: FATAL: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  std::vector<std::unique_ptr<PtyDevice>> ptys;
  std::vector<std::string> paths;
  for (int i = 0; i < devices; ++i) {
    auto device = PtyDevice::Create(mode);
    if (!device.ok()) {
      std::fprintf(stderr, "labgate-pty-run: FATAL: %s\n",
                   std::string(device.status().message()).c_str());
      return 1;
    }
    paths.push_back((*device)->path());
    ptys.push_back(std::move(*device));
  }
  const std::string joined = absl::StrJoin(paths, ",");
  setenv("LABGATE_PTY_DEVICES", joined.c_str(), 1);
  std::fprintf(stderr, "labgate-pty-run: instruments on %s\n", joined.c_str());

  signal(SIGTERM, ForwardSignal);
  signal(SIGINT, ForwardSignal);
  pid_t pid = 0;
  if (int error =
          posix_spawnp(&pid, argv[command_at], nullptr, nullptr, argv + command_at, environ);
      error != 0) {
    std::fprintf(stderr, "labgate-pty-run: cannot run %s: %s\n", argv[command_at],
                 std::strerror(error));
    return 127;
  }
  child_pid = pid;

  using Clock = std::chrono::steady_clock;
  std::vector<Clock::time_point> dropped_at(ptys.size());
  int status = 0;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) {
      std::perror("labgate-pty-run: waitpid");
      return 1;
    }
    for (size_t i = 0; i < ptys.size() && reconnect_ms > 0; ++i) {
      if (ptys[i]->connected()) {
        dropped_at[i] = Clock::time_point();
      } else if (dropped_at[i] == Clock::time_point()) {
        dropped_at[i] = Clock::now();
      } else if (Clock::now() - dropped_at[i] >= std::chrono::milliseconds(reconnect_ms)) {
        if (absl::Status reconnected = ptys[i]->Reconnect(); !reconnected.ok()) {
          std::fprintf(stderr, "labgate-pty-run: cannot bring %s back: %s\n",
                       ptys[i]->path().c_str(), std::string(reconnected.message()).c_str());
        }
        dropped_at[i] = Clock::time_point();
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ptys.clear();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
