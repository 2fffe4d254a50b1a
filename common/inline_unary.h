// The embedded gateway's transport for unary calls to its own services. Each call is a real
// gRPC call over an in-process channel (serialized messages, metadata, deadline, status and
// trailers), but one completion queue carries both ends and the threads taking part drain it
// themselves: a handler that answers at once runs on, and answers to, the calling thread; one
// that answers later (a port worker, the store's writer) delivers the caller's completion on
// the thread that answered. No call waits for gRPC's callback threads, which is where most of a
// callback-API call's time goes (bench/README.md, "The gRPC hop itself").
#pragma once

#include <google/protobuf/message.h>
#include <grpcpp/client_context.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/server.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/unary_call.h"

namespace labgate {

class InlineUnaryServer {
 public:
  using Message = google::protobuf::Message;
  // A method's implementation; the request and response live until the call finishes.
  using Body = std::function<void(UnaryCall*, const Message*, Message*)>;
  // The caller's completion: the response is filled in when `status` is OK.
  using Done = std::function<void(const grpc::Status& status)>;

  InlineUnaryServer();
  ~InlineUnaryServer();
  InlineUnaryServer(const InlineUnaryServer&) = delete;
  InlineUnaryServer& operator=(const InlineUnaryServer&) = delete;

  // Serves `path` ("/package.Service/Method"); before Start.
  void Add(std::string path, const Message& request_prototype, const Message& response_prototype,
           Body body);
  template <typename Service, typename Request, typename Response>
  void Add(std::string path, Service* service,
           void (Service::*body)(UnaryCall*, const Request*, Response*)) {
    Add(std::move(path), Request::default_instance(), Response::default_instance(),
        [service, body](UnaryCall* call, const Message* request, Message* response) {
          (service->*body)(call, static_cast<const Request*>(request),
                           static_cast<Response*>(response));
        });
  }
  absl::Status Start();
  bool Serves(const std::string& path) const { return methods_.contains(path); }

  // Calls `path` with `context` (deadline, metadata), then runs what is ready on this
  // thread. `done` runs exactly once: before Call returns when the handler answered at once,
  // else on the thread that answered. `response` must live until then.
  void Call(grpc::ClientContext* context, const std::string& path, const Message& request,
            Message* response, Done done);
  // Runs what the queue holds on this thread: after cancelling a call's context, say.
  void Pump();
  // Ends calls still running after `grace` (their callers get an error) and stops. Calls
  // made afterwards fail with UNAVAILABLE.
  void Shutdown(std::chrono::milliseconds grace);

 private:
  struct Method {
    const Message* request_prototype;
    const Message* response_prototype;
    Body body;
  };
  class ServerCall;
  struct ClientCall;
  // What a completion ends: which step of which call.
  struct Step {
    enum Kind { kAccepted, kRead, kFinished, kDone, kClientFinished } kind;
    void* call;
  };

  void AwaitNextCall();
  void RunStep(const Step& step, bool ok);
  // Runs what the queue holds on this thread; without `run_handlers`, requests that would
  // start a handler are left for a thread that may run them (a caller's, or the sweeper).
  void Drain(bool run_handlers);
  void RunDeferredReads();
  // The sweeper: drains the queue every few milliseconds while it is needed.
  bool SweepNeeded() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  bool SweepNow() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Sweep();

  std::map<std::string, Method> methods_;  // fixed once started
  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::GenericStub> stub_;
  // Client calls not yet completed: while there are some, the sweeper drains the queue now
  // and then for completions no caller's thread caused (a deadline passing).
  std::atomic<int> outstanding_{0};
  std::atomic<uint64_t> progress_{0};  // completions run, for the sweeper to tell a stall
  absl::Mutex mutex_;
  bool started_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  bool queue_closed_ ABSL_GUARDED_BY(mutex_) = false;
  bool sweep_now_ ABSL_GUARDED_BY(mutex_) = false;
  // Requests taken by a thread that may not start handlers: (call, ok).
  std::vector<std::pair<void*, bool>> deferred_reads_ ABSL_GUARDED_BY(mutex_);
  std::atomic<bool> has_deferred_reads_{false};  // deferred_reads_ is not empty
  bool sweeper_done_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread sweeper_;
};

}  // namespace labgate
