#include "gateway/http/grpc_health_probe.h"

#include <grpcpp/client_context.h>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_callback.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace labgate::gateway::http {
namespace {

struct Round {
  Round(size_t calls, std::function<void(std::vector<BackendHealth>)> then)
      : pending(calls), done(std::move(then)) {}

  absl::Mutex mutex;
  size_t pending ABSL_GUARDED_BY(mutex);
  // By backend name, so the answer is in order.
  std::map<std::string, BackendHealth> results ABSL_GUARDED_BY(mutex);
  std::function<void(std::vector<BackendHealth>)> done ABSL_GUARDED_BY(mutex);
};

struct Call {
  grpc::ClientContext context;
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  std::unique_ptr<grpc::health::v1::Health::Stub> stub;
};

}  // namespace

void CheckBackends(const std::map<std::string, std::shared_ptr<grpc::Channel>>& channels,
                   std::chrono::milliseconds timeout,
                   std::function<void(std::vector<BackendHealth>)> done) {
  if (channels.empty()) return done({});
  auto round = std::make_shared<Round>(channels.size(), std::move(done));
  for (const auto& [name, channel] : channels) {
    auto call = std::make_shared<Call>();
    call->stub = grpc::health::v1::Health::NewStub(channel);
    call->context.set_deadline(std::chrono::system_clock::now() + timeout);
    // The server-wide status (""): embedded services share one server and report there.
    call->stub->async()->Check(
        &call->context, &call->request, &call->response,
        OncePointerCallback([call, round, name = name](const grpc::Status& status) {
          BackendHealth health;
          health.name = name;
          health.serving = status.ok() && call->response.status() ==
                                              grpc::health::v1::HealthCheckResponse::SERVING;
          health.state =
              health.serving ? "serving" : (status.ok() ? "not serving" : status.error_message());
          std::function<void(std::vector<BackendHealth>)> finish;
          std::vector<BackendHealth> all;
          {
            absl::MutexLock lock(&round->mutex);
            round->results[name] = std::move(health);
            if (--round->pending == 0) {
              finish = std::move(round->done);
              for (auto& [backend, result] : round->results) all.push_back(std::move(result));
            }
          }
          if (finish) finish(std::move(all));
        }));
  }
}

ReadinessProbe GrpcHealthProbe(std::map<std::string, std::shared_ptr<grpc::Channel>> channels,
                               std::chrono::milliseconds timeout) {
  return [channels = std::move(channels), timeout](std::function<void(bool, std::string)> done) {
    if (channels.empty()) return done(true, "no backends");
    CheckBackends(
        channels, timeout, [done = std::move(done)](const std::vector<BackendHealth>& all) {
          bool ready = true;
          std::string detail;
          // Every backend (each bench too) with its state, the ones down first.
          for (bool down : {true, false}) {
            for (const BackendHealth& backend : all) {
              if (backend.serving == down) continue;
              if (!backend.serving) ready = false;
              detail += (detail.empty() ? "" : "; ") + backend.name + ": " + backend.state;
            }
          }
          done(ready, detail);
        });
  };
}

}  // namespace labgate::gateway::http
