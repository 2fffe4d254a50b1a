#include "common/grpc_callback_threads.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <mutex>

namespace labgate {

void KeepGrpcCallbackThreads() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Never destroyed, and never connected: nothing listens on the socket. Starting one
    // callback call is what ties the channel to the pool; the call fails by itself.
    static auto* channel = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
        "unix:/nonexistent/labgate-callback-threads", grpc::InsecureChannelCredentials()));
    struct Call {
      grpc::ClientContext context;
      grpc::ByteBuffer request;
      grpc::ByteBuffer response;
    };
    auto* call = new Call;
    grpc::Slice empty;
    call->request = grpc::ByteBuffer(&empty, 1);  // an unset buffer cannot be sent
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(1));
    grpc::GenericStub stub(*channel);
    stub.UnaryCall(&call->context, "/labgate.Keep/Alive", grpc::StubOptions(), &call->request,
                   &call->response, [call](const grpc::Status&) { delete call; });
  });
}

}  // namespace labgate
