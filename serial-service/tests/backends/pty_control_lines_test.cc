// The control lines through the real libserialport on a pseudo-terminal: the harness's
// tiocm_shim.so answers the modem-line ioctls a pty lacks, as a connected device would
// (CTS, DSR and carrier up), so sp_set_dtr, sp_set_rts and sp_get_signals run for real.
#include <gtest/gtest.h>

#include "serial-service/backends/libserialport_backend.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial {
namespace {

TEST(PtyControlLinesTest, LibserialportDrivesDtrAndRtsAndReadsTheDevicesLines) {
  ASSERT_TRUE(serial_harness::ShimLoaded()) << "tiocm_shim.so is not preloaded";
  auto device = serial_harness::PtyDevice::Create(serial_harness::InstrumentMode::kScpi);
  ASSERT_TRUE(device.ok()) << device.status();
  LibSerialPortBackend port((*device)->path());
  ASSERT_TRUE(port.Open().ok());
  PortSettings settings;
  settings.baud_rate = 115200;
  ASSERT_TRUE(port.Configure(settings).ok());

  ASSERT_TRUE(port.SetSignals(true, false).ok());
  absl::StatusOr<ModemSignals> lines = port.GetSignals();
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_TRUE(lines->dtr);
  EXPECT_FALSE(lines->rts);
  EXPECT_TRUE(lines->cts && lines->dsr && lines->dcd) << "the shim's connected device";
  EXPECT_FALSE(lines->ri);

  ASSERT_TRUE(port.SetSignals(false, true).ok());
  lines = port.GetSignals();
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_FALSE(lines->dtr);
  EXPECT_TRUE(lines->rts);
  ASSERT_TRUE(port.SetSignals(true, std::nullopt).ok());
  lines = port.GetSignals();
  ASSERT_TRUE(lines.ok()) << lines.status();
  EXPECT_TRUE(lines->dtr);
  EXPECT_TRUE(lines->rts) << "a line left out keeps its level";

  port.Close();
  EXPECT_EQ(port.GetSignals().status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(port.SendBreak(10).code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace labgate::serial
