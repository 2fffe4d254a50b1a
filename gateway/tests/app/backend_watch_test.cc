// BackendWatch against a real serial service on 127.0.0.1: labgate_backend_up follows the
// service's health as it stops and comes back, and its return counts one reconnect.
#include "gateway/app/backend_watch.h"

#include <gtest/gtest.h>

#include <chrono>

#include "gateway/core/gateway_metrics.h"
#include "gateway/tests/eventually.h"
#include "gateway/tests/serial_bench.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {
namespace {

using testing::ChannelTo;
using testing::SerialBench;

using testing::Eventually;

TEST(BackendWatchTest, UpFollowsTheBackendAndItsReturnCountsAReconnect) {
  SerialBench bench;
  ASSERT_NO_FATAL_FAILURE(bench.Start());
  const int port = bench.port();
  BackendChannels channels;
  const std::string serial = labgate::serial::v1::SerialService::service_full_name();
  channels.set_serial_service(serial);
  channels.Set(serial, ChannelTo(bench.address()));
  channels.SetAddress(serial, bench.address());

  auto& up = GatewayMetrics::Get().backend_up.With({"serial", ""});
  auto& reconnects = GatewayMetrics::Get().backend_reconnects.With({"serial", ""});
  const uint64_t reconnects_before = reconnects.value();
  up.Set(-1);  // neither answer, so the first check is seen
  auto watch = BackendWatch::Start(channels, std::chrono::milliseconds(50));

  EXPECT_TRUE(Eventually([&] { return up.value() == 1; }));
  bench.Stop();
  EXPECT_TRUE(Eventually([&] { return up.value() == 0; }));
  EXPECT_EQ(reconnects.value(), reconnects_before);
  ASSERT_NO_FATAL_FAILURE(bench.Start(port));
  EXPECT_TRUE(Eventually([&] { return up.value() == 1; }));
  EXPECT_EQ(reconnects.value(), reconnects_before + 1);
  watch.reset();
}

TEST(BackendWatchTest, EachBenchIsWatchedOnItsOwn) {
  SerialBench lab_a;
  ASSERT_NO_FATAL_FAILURE(lab_a.Start());
  SerialBench lab_b;
  ASSERT_NO_FATAL_FAILURE(lab_b.Start());
  const std::string serial = labgate::serial::v1::SerialService::service_full_name();
  std::vector<Bench> benches = {{"lab-a", lab_a.address(), ChannelTo(lab_a.address())},
                                {"lab-b", lab_b.address(), ChannelTo(lab_b.address())}};
  BackendChannels channels;
  channels.set_serial_service(serial);
  channels.Set(serial, benches.front().channel);
  channels.SetSerialBenches(std::make_shared<SerialBenches>(std::move(benches)));

  auto& a_up = GatewayMetrics::Get().backend_up.With({"serial", "lab-a"});
  auto& b_up = GatewayMetrics::Get().backend_up.With({"serial", "lab-b"});
  auto watch = BackendWatch::Start(channels, std::chrono::milliseconds(50));
  EXPECT_TRUE(Eventually([&] { return a_up.value() == 1 && b_up.value() == 1; }));
  lab_b.Stop();
  EXPECT_TRUE(Eventually([&] { return b_up.value() == 0; }));
  EXPECT_EQ(a_up.value(), 1);
  watch.reset();
}

}  // namespace
}  // namespace labgate::gateway
