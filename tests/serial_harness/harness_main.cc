#include "tests/serial_harness/harness_main.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "tests/serial_harness/pty_device.h"

#ifndef LABGATE_TIOCM_SHIM_PATH
#error "LABGATE_TIOCM_SHIM_PATH must name tiocm_shim.so"
#endif

namespace labgate::serial_harness {

int HarnessMain(int argc, char** argv) {
  if (!ShimLoaded()) {
    if (getenv("LABGATE_SERIAL_HARNESS_REEXEC") != nullptr) {
      std::fprintf(stderr,
                   "FATAL: serial pty harness: %s did not load from LD_PRELOAD; the pty "
                   "tests cannot run (they never skip)\n",
                   LABGATE_TIOCM_SHIM_PATH);
      return 1;
    }
    std::string preload = LABGATE_TIOCM_SHIM_PATH;
    if (const char* existing = getenv("LD_PRELOAD"); existing != nullptr && *existing) {
      preload += std::string(":") + existing;
    }
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("LABGATE_SERIAL_HARNESS_REEXEC", "1", 1);
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "FATAL: serial pty harness: cannot re-execute with LD_PRELOAD: %s\n",
                 std::strerror(errno));
    return 1;
  }
  testing::InitGoogleTest(&argc, argv);
  if (GTEST_FLAG_GET(list_tests)) return RUN_ALL_TESTS();
  if (absl::Status status = EnterPrivateMountNamespace(); !status.ok()) {
    std::fprintf(stderr,
                 "FATAL: serial pty harness: %s\n"
                 "The pty serial tests need a private mount namespace (run as root, or with "
                 "CAP_SYS_ADMIN, where unshare(CLONE_NEWNS) is allowed). They fail here "
                 "rather than skip.\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  return RUN_ALL_TESTS();
}

}  // namespace labgate::serial_harness
