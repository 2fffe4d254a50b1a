// A lost port takes the device that came back: what must hold before a write reaches that
// device (an instrument's limits reset) is done while the port is still lost.
#include <gtest/gtest.h>

#include <future>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "serial-service/ports/port_registry.h"
#include "serial-service/tests/test_util.h"

namespace labgate::serial {
namespace {

using testing::FakeClock;

// A device that takes every write until it is unplugged; then each write is UNAVAILABLE.
class UnpluggablePort : public SerialPort {
 public:
  absl::Status Open() override { return absl::OkStatus(); }
  absl::Status Configure(const PortSettings&) override { return absl::OkStatus(); }
  absl::StatusOr<size_t> Read(char*, size_t, int64_t) override {
    absl::MutexLock lock(&mu_);
    if (unplugged_) return absl::UnavailableError("device disconnected");
    return 0;
  }
  absl::StatusOr<size_t> Write(const std::string& data, int64_t) override {
    absl::MutexLock lock(&mu_);
    if (unplugged_) return absl::UnavailableError("device disconnected");
    received_ += data;
    return data.size();
  }
  void Close() override {}
  void Unplug() {
    absl::MutexLock lock(&mu_);
    unplugged_ = true;
  }
  std::string received() {
    absl::MutexLock lock(&mu_);
    return received_;
  }

 private:
  absl::Mutex mu_;
  bool unplugged_ = false;
  std::string received_;
};

class ReattachTest : public ::testing::Test {
 protected:
  ReattachTest()
      : registry_(
            [this](const std::string&) -> std::unique_ptr<SerialPort> {
              auto port = std::make_unique<UnpluggablePort>();
              first_ = port.get();
              return port;
            },
            &clock_, &hub_) {}

  std::shared_ptr<ManagedPort> Open() {
    PortSettings settings;
    settings.baud_rate = 115200;
    std::promise<absl::Status> opened;
    registry_.Open("alice", "supply", settings,
                   [&](const absl::Status& s) { opened.set_value(s); });
    EXPECT_TRUE(opened.get_future().get().ok());
    auto port = registry_.Select("alice", "supply");
    return port.ok() ? *port : nullptr;
  }

  static absl::StatusOr<WriteResult> Write(ManagedPort& port, std::string bytes) {
    std::promise<absl::StatusOr<WriteResult>> finished;
    port.Write(std::move(bytes), false, 1000,
               [&](absl::StatusOr<WriteResult> result) { finished.set_value(std::move(result)); });
    return finished.get_future().get();
  }

  static absl::Status Reattach(ManagedPort& port, std::unique_ptr<SerialPort> backend,
                               std::function<std::string()> before_open) {
    std::promise<absl::Status> done;
    port.Reattach(std::move(backend), "/dev/back", std::move(before_open),
                  [&](absl::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get();
  }

  FakeClock clock_;
  EventHub hub_;
  UnpluggablePort* first_ = nullptr;
  PortRegistry registry_;
};

TEST_F(ReattachTest, WhatMustHoldFirstIsDoneWhileThePortIsStillLost) {
  std::shared_ptr<ManagedPort> port = Open();
  ASSERT_NE(port, nullptr);
  ASSERT_TRUE(Write(*port, "VOLT 4\n").ok());
  first_->Unplug();
  EXPECT_FALSE(Write(*port, "VOLT 5\n").ok());
  ASSERT_EQ(port->state(), PortState::kError);

  auto back = std::make_unique<UnpluggablePort>();
  UnpluggablePort* device = back.get();
  PortState state_seen = PortState::kOpen;
  std::string received_meanwhile = "unread";
  const absl::Status reattached = Reattach(*port, std::move(back), [&] {
    state_seen = port->state();
    received_meanwhile = device->received();
    return std::string("limits reset");
  });
  ASSERT_TRUE(reattached.ok()) << reattached;
  EXPECT_EQ(state_seen, PortState::kError);
  EXPECT_EQ(received_meanwhile, "");
  EXPECT_EQ(port->state(), PortState::kOpen);
  EXPECT_EQ(port->device_path(), "/dev/back");
  ASSERT_TRUE(Write(*port, "VOLT?\n").ok());
  EXPECT_EQ(device->received(), "VOLT?\n");
}

TEST_F(ReattachTest, APortThatIsNotLostRefusesTheDeviceAndRunsNothing) {
  std::shared_ptr<ManagedPort> port = Open();
  ASSERT_NE(port, nullptr);
  bool ran = false;
  const absl::Status reattached = Reattach(*port, std::make_unique<UnpluggablePort>(), [&] {
    ran = true;
    return std::string();
  });
  EXPECT_EQ(reattached.code(), absl::StatusCode::kFailedPrecondition) << reattached;
  EXPECT_FALSE(ran);
  EXPECT_EQ(port->state(), PortState::kOpen);
}

}  // namespace
}  // namespace labgate::serial
