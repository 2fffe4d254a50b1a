#include "gateway/backends/serial_stubs.h"

namespace labgate::gateway {

SerialStubs::SerialStubs(const std::shared_ptr<grpc::Channel>& serial, const SerialBenches* benches)
    : benches_(benches) {
  if (serial != nullptr) serial_ = labgate::serial::v1::SerialService::NewStub(serial);
  if (benches_ != nullptr) {
    for (const Bench& bench : benches_->all()) {
      per_bench_.push_back(labgate::serial::v1::SerialService::NewStub(bench.channel));
    }
  }
}

absl::StatusOr<SerialStubs::Target> SerialStubs::For(const std::string& port) const {
  if (benches_ == nullptr) {
    if (serial_ == nullptr) return absl::UnavailableError("no serial service is configured");
    return Target{serial_.get(), port, nullptr};
  }
  auto route = benches_->Resolve(port);
  if (!route.ok()) return route.status();
  const size_t index = static_cast<size_t>(route->bench - benches_->all().data());
  return Target{per_bench_[index].get(), route->local_port, route->bench};
}

}  // namespace labgate::gateway
