// SerialPort::ReadArrived on a real pty, through both tty backends: it takes what has arrived
// without waiting, and what it misses shows on a later call.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "serial-service/backends/termios_port.h"
#include "serial-service/backends/tty_port.h"
#include "tests/serial_harness/pty_device.h"

namespace labgate::serial {
namespace {

using serial_harness::InstrumentMode;
using serial_harness::PtyDevice;
using Clock = std::chrono::steady_clock;

enum class Backend { kTty, kTermios };

class PtyReadArrivedTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(serial_harness::ShimLoaded()) << "tiocm_shim.so is not preloaded";
    auto device = PtyDevice::Create(InstrumentMode::kScpi);
    ASSERT_TRUE(device.ok()) << device.status();
    device_ = std::move(*device);
    if (GetParam() == Backend::kTty) {
      port_ = std::make_unique<TtyPort>(device_->path());
    } else {
      port_ = std::make_unique<TermiosPort>(device_->path());
    }
    absl::Status opened = port_->Open();
    ASSERT_TRUE(opened.ok()) << opened;
    PortSettings settings;
    settings.baud_rate = 115200;
    absl::Status configured = port_->Configure(settings);
    ASSERT_TRUE(configured.ok()) << configured;
  }

  // ReadArrived in a loop, as a query polling for its reply does, until `count` bytes.
  std::string PollArrived(size_t count) {
    std::string got;
    char buffer[256];
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    while (got.size() < count && Clock::now() < deadline) {
      absl::StatusOr<size_t> n = port_->ReadArrived(buffer, sizeof(buffer));
      EXPECT_TRUE(n.ok()) << n.status();
      if (!n.ok()) break;
      got.append(buffer, *n);
    }
    return got;
  }

  std::unique_ptr<PtyDevice> device_;
  std::unique_ptr<SerialPort> port_;
};

TEST_P(PtyReadArrivedTest, NothingArrivedIsZeroAndARepliesBytesAreTakenWhole) {
  char buffer[64];
  absl::StatusOr<size_t> nothing = port_->ReadArrived(buffer, sizeof(buffer));
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_EQ(*nothing, 0u);

  ASSERT_TRUE(port_->Write("*IDN?\n", 1000).ok());
  const std::string reply = std::string(serial_harness::kInstrumentId) + "\n";
  EXPECT_EQ(PollArrived(reply.size()), reply);

  device_->Send("+1.25E+00\n");
  EXPECT_EQ(PollArrived(10), "+1.25E+00\n");
  nothing = port_->ReadArrived(buffer, sizeof(buffer));
  ASSERT_TRUE(nothing.ok()) << nothing.status();
  EXPECT_EQ(*nothing, 0u) << "nothing is read twice";
}

TEST_P(PtyReadArrivedTest, AtMostMaxBytesAreTakenAndTheRestStays) {
  device_->Send("0123456789");
  std::string got;
  char buffer[4];
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (got.size() < 10 && Clock::now() < deadline) {
    absl::StatusOr<size_t> n = port_->ReadArrived(buffer, sizeof(buffer));
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_LE(*n, sizeof(buffer));
    got.append(buffer, *n);
  }
  EXPECT_EQ(got, "0123456789");
}

TEST_P(PtyReadArrivedTest, AVanishedDeviceShowsOnTheNextReadAtTheLatest) {
  device_->Disconnect();
  char buffer[64];
  absl::StatusOr<size_t> arrived = port_->ReadArrived(buffer, sizeof(buffer));
  if (arrived.ok()) {
    EXPECT_EQ(*arrived, 0u);
    absl::StatusOr<size_t> read = port_->Read(buffer, sizeof(buffer), 100);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), absl::StatusCode::kUnavailable) << read.status();
  } else {
    EXPECT_EQ(arrived.status().code(), absl::StatusCode::kUnavailable) << arrived.status();
  }
}

INSTANTIATE_TEST_SUITE_P(BothTtyBackends, PtyReadArrivedTest,
                         ::testing::Values(Backend::kTty, Backend::kTermios),
                         [](const ::testing::TestParamInfo<Backend>& info) {
                           return info.param == Backend::kTty ? "Libserialport" : "Termios";
                         });

}  // namespace
}  // namespace labgate::serial
