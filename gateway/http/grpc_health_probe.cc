#include "gateway/http/grpc_health_probe.h"

#include <grpcpp/client_context.h>

#include <mutex>

#include "grpc/health/v1/health.grpc.pb.h"

namespace labgate::gateway::http {
namespace {

struct Round {
  std::mutex mutex;
  size_t pending = 0;
  std::string not_ready;
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
            std::string not_ready;
            {
              std::lock_guard<std::mutex> lock(round->mutex);
              if (!serving) {
                round->not_ready += (round->not_ready.empty() ? "" : "; ") + name + ": " +
                                    (status.ok() ? "not serving" : status.error_message());
              }
              if (--round->pending == 0) {
                finish = std::move(round->done);
                not_ready = round->not_ready;
              }
            }
            if (finish) {
              finish(not_ready.empty(), not_ready.empty() ? "all backends serving" : not_ready);
            }
          });
    }
  };
}

}  // namespace labgate::gateway::http
