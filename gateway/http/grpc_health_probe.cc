#include "gateway/http/grpc_health_probe.h"

#include <grpcpp/client_context.h>

#include <map>
#include <mutex>

#include "grpc/health/v1/health.grpc.pb.h"

namespace labgate::gateway::http {
namespace {

struct Round {
  std::mutex mutex;
  size_t pending = 0;
  bool ready = true;
  std::map<std::string, std::string> states;  // by backend name, so the detail is in order
  std::function<void(bool, std::string)> done;
};

struct Call {
  grpc::ClientContext context;
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  std::unique_ptr<grpc::health::v1::Health::Stub> stub;
};

}  // namespace

ReadinessProbe GrpcHealthProbe(std::map<std::string, std::shared_ptr<grpc::Channel>> channels,
                               std::chrono::milliseconds timeout) {
  return [channels = std::move(channels), timeout](std::function<void(bool, std::string)> done) {
    if (channels.empty()) return done(true, "no backends");
    auto round = std::make_shared<Round>();
    round->pending = channels.size();
    round->done = std::move(done);
    for (const auto& [name, channel] : channels) {
      auto call = std::make_shared<Call>();
      call->stub = grpc::health::v1::Health::NewStub(channel);
      call->context.set_deadline(std::chrono::system_clock::now() + timeout);
      // The server-wide status (""): embedded services share one server and report there.
      call->stub->async()->Check(
          &call->context, &call->request, &call->response,
          [call, round, name = name](grpc::Status status) {
            bool serving = status.ok() && call->response.status() ==
                                              grpc::health::v1::HealthCheckResponse::SERVING;
            std::function<void(bool, std::string)> finish;
            bool ready = false;
            std::string detail;
            {
              std::lock_guard<std::mutex> lock(round->mutex);
              round->ready = round->ready && serving;
              round->states[name] =
                  serving ? "serving" : (status.ok() ? "not serving" : status.error_message());
              if (--round->pending == 0) {
                finish = std::move(round->done);
                ready = round->ready;
                // Every backend (each bench too) with its state, the ones down first.
                for (bool down : {true, false}) {
                  for (const auto& [backend, state] : round->states) {
                    if ((state != "serving") != down) continue;
                    detail += (detail.empty() ? "" : "; ") + backend + ": " + state;
                  }
                }
              }
            }
            if (finish) {
              finish(ready, detail);
            }
          });
    }
  };
}

}  // namespace labgate::gateway::http
