// The gateway's own calls to the serial service (resources, port event logs), which must
// reach the bench that serves a port: one stub per bench, or the one serial service's.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gateway/backends/serial_benches.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::gateway {

class SerialStubs {
 public:
  // `benches` (several, or named; may be null) must outlive this; without them every
  // port goes to `serial`.
  SerialStubs(const std::shared_ptr<grpc::Channel>& serial, const SerialBenches* benches);

  struct Target {
    labgate::serial::v1::SerialService::Stub* stub;
    std::string local_port;        // the name the serving service knows the port by
    const Bench* bench = nullptr;  // null without benches
  };
  // Where `port` (as the gateway's clients name it: BENCH:PORT with benches) is served.
  absl::StatusOr<Target> For(const std::string& port) const;

  const SerialBenches* benches() const { return benches_; }
  // The one serial service's stub (without benches: every port's).
  labgate::serial::v1::SerialService::Stub* serial() const { return serial_.get(); }
  // Bench `index` of benches()->all().
  labgate::serial::v1::SerialService::Stub* bench(size_t index) const {
    return per_bench_[index].get();
  }

 private:
  std::unique_ptr<labgate::serial::v1::SerialService::Stub> serial_;
  const SerialBenches* benches_;
  std::vector<std::unique_ptr<labgate::serial::v1::SerialService::Stub>> per_bench_;
};

}  // namespace labgate::gateway
