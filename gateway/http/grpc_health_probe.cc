#include "gateway/http/grpc_health_probe.h"

#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>

#include <mutex>
#include <vector>

namespace labgate::gateway::http {
namespace {

// grpc.health.v1.HealthCheckRequest{service}: field 1, length-delimited.
grpc::ByteBuffer HealthRequest(const std::string& service) {
  std::string wire;
  wire.push_back(0x0a);
  size_t length = service.size();
  while (length >= 0x80) {
    wire.push_back(static_cast<char>((length & 0x7f) | 0x80));
    length >>= 7;
  }
  wire.push_back(static_cast<char>(length));
  wire += service;
  grpc::Slice slice(wire);
  return grpc::ByteBuffer(&slice, 1);
}

// HealthCheckResponse.status == SERVING (field 1 varint 1).
bool IsServing(const grpc::ByteBuffer& response) {
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) return false;
  std::string wire;
  for (const auto& slice : slices) {
    wire.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  return wire.size() >= 2 && wire[0] == 0x08 && wire[1] == 0x01;
}

struct Round {
  std::mutex mutex;
  size_t pending = 0;
  std::string not_ready;
  std::function<void(bool, std::string)> done;
};

struct Call {
  grpc::ClientContext context;
  grpc::ByteBuffer request;
  grpc::ByteBuffer response;
  std::unique_ptr<grpc::GenericStub> stub;
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
      call->stub = std::make_unique<grpc::GenericStub>(channel);
      call->context.set_deadline(std::chrono::system_clock::now() + timeout);
      // The server-wide status (""): embedded services share one server and report there.
      call->request = HealthRequest("");
      call->stub->UnaryCall(
          &call->context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &call->request,
          &call->response, [call, round, name = name](grpc::Status status) {
            bool serving = status.ok() && IsServing(call->response);
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
