// One unary call as a service adapter sees it, whichever transport carries it: gRPC's
// callback API (every remote caller) or the embedded inline transport (common/inline_unary.h).
// An adapter method is written once, against UnaryCall, and served by both.
#pragma once

#include <grpcpp/server_context.h>
#include <grpcpp/support/server_callback.h>
#include <grpcpp/support/status.h>

#include <map>
#include <string>

namespace labgate {

class UnaryCall {
 public:
  UnaryCall(const UnaryCall&) = delete;
  UnaryCall& operator=(const UnaryCall&) = delete;
  virtual ~UnaryCall() = default;

  const std::multimap<grpc::string_ref, grpc::string_ref>& client_metadata() const {
    return context_->client_metadata();
  }
  void AddTrailingMetadata(const std::string& key, const std::string& value) {
    context_->AddTrailingMetadata(key, value);
  }
  // Whether the caller has given up (cancelled, or its deadline passed). Any thread.
  virtual bool IsCancelled() const = 0;
  // Ends the call with `status`; the response is complete by then. Called exactly once,
  // from any thread; the call (this object) may be gone when it returns.
  virtual void Finish(const grpc::Status& status) = 0;

 protected:
  explicit UnaryCall(grpc::ServerContextBase* context) : context_(context) {}

 private:
  grpc::ServerContextBase* context_;
};

// A callback-API call: lives until Finish hands the status to the call's reactor.
class CallbackUnaryCall final : public UnaryCall {
 public:
  explicit CallbackUnaryCall(grpc::CallbackServerContext* context)
      : UnaryCall(context), context_(context), reactor_(context->DefaultReactor()) {}
  bool IsCancelled() const override { return context_->IsCancelled(); }
  void Finish(const grpc::Status& status) override {
    grpc::ServerUnaryReactor* reactor = reactor_;
    delete this;
    reactor->Finish(status);
  }
  grpc::ServerUnaryReactor* reactor() const { return reactor_; }

 private:
  grpc::CallbackServerContext* context_;
  grpc::ServerUnaryReactor* reactor_;
};

// The callback API's entry for a unary method whose one implementation is `body`.
template <typename Service, typename Request, typename Response>
grpc::ServerUnaryReactor* ServeCallback(
    Service* service, void (Service::*body)(UnaryCall*, const Request*, Response*),
    grpc::CallbackServerContext* context, const Request* request, Response* response) {
  auto* call = new CallbackUnaryCall(context);
  grpc::ServerUnaryReactor* reactor = call->reactor();
  (service->*body)(call, request, response);
  return reactor;
}

}  // namespace labgate
