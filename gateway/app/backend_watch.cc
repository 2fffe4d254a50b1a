#include "gateway/app/backend_watch.h"

#include <grpcpp/client_context.h>

#include "absl/time/time.h"
#include "common/log.h"
#include "gateway/core/gateway_metrics.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace labgate::gateway {
namespace {

// "labgate.serial.v1.SerialService" -> "serial".
std::string ShortName(const std::string& service_name) {
  std::string name = service_name;
  if (name.rfind("labgate.", 0) == 0) name = name.substr(8, name.find('.', 8) - 8);
  return name;
}

// A dead backend fails its check at once (its connection is refused or reset); the deadline
// is for one that hangs, and is loose so that a loaded machine is not mistaken for an outage
// (and its answer for a reconnect).
constexpr auto kCheckDeadline = std::chrono::seconds(3);

}  // namespace

std::unique_ptr<BackendWatch> BackendWatch::Start(const BackendChannels& channels,
                                                  std::chrono::milliseconds period) {
  std::vector<Target> targets;
  const SerialBenches* benches = channels.serial_benches();
  for (const auto& [name, channel] : channels.all()) {
    if (benches != nullptr && name == channels.serial_service()) continue;
    targets.push_back({ShortName(name), "", channel});
  }
  if (benches != nullptr) {
    for (const Bench& bench : benches->all()) {
      targets.push_back({ShortName(channels.serial_service()), bench.name, bench.channel});
    }
  }
  return std::unique_ptr<BackendWatch>(new BackendWatch(std::move(targets), period));
}

BackendWatch::BackendWatch(std::vector<Target> targets, std::chrono::milliseconds period)
    : targets_(std::move(targets)), period_(period) {
  // Every backend's reconnect count is listed from the start, at 0.
  for (const Target& target : targets_) {
    GatewayMetrics::Get().backend_reconnects.With({target.service, target.bench});
  }
  thread_ = std::thread([this] { Run(); });
}

BackendWatch::~BackendWatch() {
  stop_.Notify();
  if (thread_.joinable()) thread_.join();
}

void BackendWatch::Run() {
  do {
    for (Target& target : targets_) Check(target);
  } while (!stop_.WaitForNotificationWithTimeout(absl::FromChrono(period_)));
}

void BackendWatch::Check(Target& target) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + kCheckDeadline);
  grpc::health::v1::HealthCheckRequest request;  // "": the server as a whole
  grpc::health::v1::HealthCheckResponse response;
  auto stub = grpc::health::v1::Health::NewStub(target.channel);
  const grpc::Status status = stub->Check(&context, request, &response);
  const int up =
      status.ok() && response.status() == grpc::health::v1::HealthCheckResponse::SERVING ? 1 : 0;
  GatewayMetrics& families = GatewayMetrics::Get();
  families.backend_up.With({target.service, target.bench}).Set(up);
  if (target.last == 0 && up == 1) {
    families.backend_reconnects.With({target.service, target.bench}).Increment();
    LG_LOG(kDebug) << target.service << " backend" << (target.bench.empty() ? "" : " of bench ")
                   << target.bench << " answers again";
  }
  target.last = up;
}

}  // namespace labgate::gateway
