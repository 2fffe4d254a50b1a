// A real labgate-session binary as a child process on 127.0.0.1, which tests can kill
// and restart on the same port and data directory.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

#ifndef LABGATE_SESSION_BINARY
#error "LABGATE_SESSION_BINARY must name the labgate-session binary"
#endif

extern char** environ;

namespace labgate::serial::testing {

class SessionChild {
 public:
  // `extra_args` go after the defaults (e.g. "--gateway-token-file", FILE).
  explicit SessionChild(std::string data_dir, std::vector<std::string> extra_args = {})
      : data_dir_(std::move(data_dir)), extra_args_(std::move(extra_args)) {}
  ~SessionChild() { Kill(); }

  // Starts on `port` (0: any); returns the port bound, or 0 on failure.
  int Start(int port = 0) {
    const std::string port_file = absl::StrCat(data_dir_, "/port");
    unlink(port_file.c_str());
    std::vector<std::string> args = {LABGATE_SESSION_BINARY,
                                     "--listen",
                                     absl::StrCat("127.0.0.1:", port),
                                     "--data-dir",
                                     data_dir_,
                                     "--port-file",
                                     port_file,
                                     "--log-level",
                                     "warning"};
    args.insert(args.end(), extra_args_.begin(), extra_args_.end());
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
    int bound = 0;
    while (bound == 0 && std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file);
      std::string text;
      if (in >> text && !absl::SimpleAtoi(text, &bound)) bound = 0;
      if (bound == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    port_ = bound;
    return bound;
  }

  // SIGKILL: no draining, so an append in flight may or may not have been stored.
  void Kill() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  int port() const { return port_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  std::string data_dir_;
  std::vector<std::string> extra_args_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace labgate::serial::testing
