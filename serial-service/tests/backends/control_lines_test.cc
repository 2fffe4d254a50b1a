// The control lines at the backend: the loop:// plug wires RTS to CTS and DTR to DSR and DCD,
// and a pseudo-terminal, which has no modem lines, is refused by name rather than answered
// with a made-up state.
#include <gtest/gtest.h>
#include <pty.h>
#include <unistd.h>

#include <chrono>

#include "absl/strings/match.h"
#include "serial-service/backends/loopback_port.h"
#include "serial-service/backends/termios_port.h"

namespace labgate::serial {
namespace {

TEST(LoopbackControlLinesTest, ThePlugWiresRtsToCtsAndDtrToDsrAndDcd) {
  LoopbackPort port;
  ASSERT_TRUE(port.Open().ok());
  absl::StatusOr<ModemSignals> idle = port.GetSignals();
  ASSERT_TRUE(idle.ok()) << idle.status();
  EXPECT_FALSE(idle->dtr || idle->rts || idle->cts || idle->dsr || idle->dcd || idle->ri);

  ASSERT_TRUE(port.SetSignals(true, std::nullopt).ok());
  absl::StatusOr<ModemSignals> dtr = port.GetSignals();
  ASSERT_TRUE(dtr.ok());
  EXPECT_TRUE(dtr->dtr && dtr->dsr && dtr->dcd);
  EXPECT_FALSE(dtr->rts || dtr->cts || dtr->ri);

  ASSERT_TRUE(port.SetSignals(false, true).ok());
  absl::StatusOr<ModemSignals> rts = port.GetSignals();
  ASSERT_TRUE(rts.ok());
  EXPECT_TRUE(rts->rts && rts->cts);
  EXPECT_FALSE(rts->dtr || rts->dsr || rts->dcd);
  ASSERT_TRUE(port.SetSignals(std::nullopt, false).ok());
  ASSERT_TRUE(port.SetSignals(true, std::nullopt).ok());
  absl::StatusOr<ModemSignals> kept = port.GetSignals();
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(kept->dtr);
  EXPECT_FALSE(kept->rts) << "a line left out keeps its level";

  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(port.SendBreak(30).ok());
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(30))
      << "a break lasts the time asked";

  // Reopening starts with the lines low, as a freshly opened device.
  port.Close();
  EXPECT_EQ(port.GetSignals().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(port.SetSignals(true, true).code(), absl::StatusCode::kUnavailable);
  ASSERT_TRUE(port.Open().ok());
  EXPECT_FALSE(port.GetSignals()->dtr);
}

TEST(TermiosControlLinesTest, APseudoTerminalIsRefusedNamingTheBackendAndTheReason) {
  int controller = -1;
  int device = -1;
  char name[256] = {};
  ASSERT_EQ(openpty(&controller, &device, name, nullptr, nullptr), 0);
  close(device);  // the port opens it by name, as it would a real device
  TermiosPort port(name);
  ASSERT_TRUE(port.Open().ok());
  for (const absl::Status& refused :
       {port.GetSignals().status(), port.SetSignals(true, std::nullopt),
        port.SetSignals(std::nullopt, false), port.SendBreak(10)}) {
    EXPECT_EQ(refused.code(), absl::StatusCode::kFailedPrecondition) << refused;
    EXPECT_TRUE(absl::StrContains(refused.message(), "the termios backend cannot")) << refused;
    EXPECT_TRUE(absl::StrContains(refused.message(), name)) << refused;
  }
  port.Close();
  EXPECT_EQ(port.GetSignals().status().code(), absl::StatusCode::kUnavailable);
  close(controller);
}

}  // namespace
}  // namespace labgate::serial
