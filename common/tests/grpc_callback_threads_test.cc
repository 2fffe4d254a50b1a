// A channel whose last reference goes inside a callback on one of gRPC's callback threads
// (its owner let it go while a call was finishing) must not take the process down.
#include "common/grpc_callback_threads.h"

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "absl/synchronization/notification.h"

namespace labgate {
namespace {

// gRPC copies the callback inside UnaryCall and runs it on its own thread, and Debian's gRPC
// is not built with ThreadSanitizer, which then sees no order between the copy and the
// callback's reads of it. The callback takes this lock, which UnaryCall's caller holds,
// before it reads anything it captured. A mutex of the C library's, so that the sanitizer
// sees it; not a capture, so that reaching it reads nothing of the copy.
std::mutex g_call_started;

TEST(GrpcCallbackThreadsTest, AChannelReleasedInsideItsLastCallbackLeavesTheProcessRunning) {
  KeepGrpcCallbackThreads();
  // Without the kept pool, some of these rounds abort the process (gRPC 1.51).
  for (int round = 0; round < 2000; ++round) {
    struct Call {
      grpc::ClientContext context;  // holds a reference to the channel
      grpc::ByteBuffer request;
      grpc::ByteBuffer response;
    };
    auto call = std::make_shared<Call>();
    grpc::Slice empty;
    call->request = grpc::ByteBuffer(&empty, 1);
    call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    absl::Notification done;
    {
      // A target of its own each round: channels to one target share a connection, whose
      // backoff after a failure would hold later calls until their deadline.
      auto channel = grpc::CreateChannel("unix:/nonexistent/labgate-test-" + std::to_string(round),
                                         grpc::InsecureChannelCredentials());
      grpc::GenericStub stub(channel);
      std::unique_lock<std::mutex> starting(g_call_started);
      stub.UnaryCall(&call->context, "/labgate.Test/Nothing", grpc::StubOptions(), &call->request,
                     &call->response, [call, &done](const grpc::Status& /*status*/) mutable {
                       { std::lock_guard<std::mutex> started(g_call_started); }
                       done.Notify();
                       call.reset();  // the channel's last reference, when the test let go
                     });
    }
    call.reset();
    ASSERT_TRUE(done.WaitForNotificationWithTimeout(absl::Seconds(30))) << "round " << round;
  }
}

}  // namespace
}  // namespace labgate
