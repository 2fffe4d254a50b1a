#include "tests/serial_harness/harness_main.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/serial_harness/modem_line_listener.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial_harness {

int HarnessMain(int argc, char** argv) {
  if (absl::Status status = ReexecWithShimIfNeeded(argv); !status.ok()) {
    std::fprintf(stderr,
                 "FATAL: serial pty harness: %s; the pty tests cannot run (they never skip)\n",
                 std::string(status.message()).c_str());
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
  if (absl::Status status = StartModemLineListener(); !status.ok()) {
    std::fprintf(stderr, "FATAL: serial pty harness: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  return RUN_ALL_TESTS();
}

}  // namespace labgate::serial_harness
