#include "common/inline_unary.h"

#include <grpc/support/time.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/server_builder.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "common/grpc_callback_threads.h"
#include "common/tsan_handoff.h"

namespace labgate {
namespace {

using google::protobuf::Message;
using Serializer = grpc::SerializationTraits<Message>;

// Each tag is handed off when its operation starts and taken over when its completion is
// taken from the queue (common/tsan_handoff.h).
void* Started(void* tag) {
  HandOff(tag);
  return tag;
}

// The server whose queue this thread is draining, if any: work this thread adds is then
// picked up by that loop rather than by a nested one.
thread_local const InlineUnaryServer* t_draining = nullptr;

// How often the sweeper drains while calls are outstanding (and while stopping).
constexpr absl::Duration kSweepPeriod = absl::Milliseconds(20);
constexpr absl::Duration kStoppingSweepPeriod = absl::Milliseconds(2);

}  // namespace

// The server's side of one call, from waiting for it to its last completion.
class InlineUnaryServer::ServerCall final : public UnaryCall {
 public:
  explicit ServerCall(InlineUnaryServer* server)
      : UnaryCall(&context_), server_(server), stream_(&context_) {}

  // Waits for the next incoming call.
  void Await() {
    context_.AsyncNotifyWhenDone(Started(&done_));
    server_->service_.RequestCall(&context_, &stream_, server_->queue_.get(), server_->queue_.get(),
                                  Started(&accepted_));
  }

  void OnAccepted(bool ok) {
    if (!ok) {  // the server is stopping; a call never begun gets no other completion
      delete this;
      return;
    }
    server_->AwaitNextCall();
    stream_.Read(&request_bytes_, Started(&read_));
  }

  void OnRead(bool ok) {
    auto method = server_->methods_.find(context_.method());
    if (!ok) return End(grpc::Status(grpc::StatusCode::INTERNAL, "no request message"));
    if (method == server_->methods_.end()) {
      return End(grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                              absl::StrCat("no method ", context_.method())));
    }
    request_.reset(method->second.request_prototype->New());
    response_.reset(method->second.response_prototype->New());
    if (!Serializer::Deserialize(&request_bytes_, request_.get()).ok()) {
      return End(grpc::Status(grpc::StatusCode::INTERNAL, "request message does not parse"));
    }
    method->second.body(this, request_.get(), response_.get());
  }

  bool IsCancelled() const override { return cancelled_.load(std::memory_order_acquire); }

  // A thread answering from outside the queue's loop (a port worker, the store's writer)
  // delivers what its answer completes, but starts no other handler: it may hold its own
  // locks here, and a handler run under them could need them.
  void Finish(const grpc::Status& status) override {
    InlineUnaryServer* server = server_;
    End(status);
    server->Drain(/*run_handlers=*/false);
  }

  // The call's last two completions: the status sent, and the call over.
  void OnFinished() { Release(); }
  void OnDone() {
    cancelled_.store(context_.IsCancelled(), std::memory_order_release);
    Release();
  }

  Step accepted_{Step::kAccepted, this};
  Step read_{Step::kRead, this};
  Step finished_{Step::kFinished, this};
  Step done_{Step::kDone, this};

 private:
  // Sends the status (and the response, when OK); `this` may be gone on return.
  void End(const grpc::Status& status) {
    absl::ReaderMutexLock lock(&server_->mutex_);
    if (server_->queue_closed_) {  // a late answer after shutdown ended the call
      Release();
      return;
    }
    if (!status.ok()) {
      stream_.Finish(status, Started(&finished_));
      return;
    }
    bool own_buffer = false;
    if (!Serializer::Serialize(*response_, &reply_bytes_, &own_buffer).ok()) {
      stream_.Finish(grpc::Status(grpc::StatusCode::INTERNAL, "response does not serialize"),
                     Started(&finished_));
      return;
    }
    stream_.WriteAndFinish(reply_bytes_, grpc::WriteOptions(), status, Started(&finished_));
  }
  void Release() {
    if (completions_left_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  InlineUnaryServer* server_;
  grpc::GenericServerContext context_;
  grpc::GenericServerAsyncReaderWriter stream_;
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer reply_bytes_;
  std::unique_ptr<Message> request_;
  std::unique_ptr<Message> response_;
  std::atomic<bool> cancelled_{false};
  std::atomic<int> completions_left_{2};
};

// The caller's side of one call.
struct InlineUnaryServer::ClientCall {
  Step finished{Step::kClientFinished, this};
  grpc::ByteBuffer response_bytes;
  grpc::Status status;
  Message* response = nullptr;
  Done done;
  std::unique_ptr<grpc::GenericClientAsyncResponseReader> reader;
};

InlineUnaryServer::InlineUnaryServer() = default;

InlineUnaryServer::~InlineUnaryServer() { Shutdown(std::chrono::milliseconds(0)); }

void InlineUnaryServer::Add(std::string path, const Message& request_prototype,
                            const Message& response_prototype, Body body) {
  methods_[std::move(path)] = Method{&request_prototype, &response_prototype, std::move(body)};
}

absl::Status InlineUnaryServer::Start() {
  grpc::ServerBuilder builder;
  builder.RegisterAsyncGenericService(&service_);
  queue_ = builder.AddCompletionQueue();
  server_ = builder.BuildAndStart();
  if (server_ == nullptr) return absl::InternalError("the inline gRPC server did not start");
  grpc::ChannelArguments arguments;
  arguments.SetMaxReceiveMessageSize(64 * 1024 * 1024);
  KeepGrpcCallbackThreads();
  stub_ = std::make_unique<grpc::GenericStub>(server_->InProcessChannel(arguments));
  {
    absl::MutexLock lock(&mutex_);
    started_ = true;
  }
  AwaitNextCall();
  sweeper_ = std::thread([this] { Sweep(); });
  return absl::OkStatus();
}

void InlineUnaryServer::AwaitNextCall() { (new ServerCall(this))->Await(); }

void InlineUnaryServer::Call(grpc::ClientContext* context, const std::string& path,
                             const Message& request, Message* response, Done done) {
  auto* call = new ClientCall;
  call->response = response;
  call->done = std::move(done);
  grpc::ByteBuffer request_bytes;
  bool own_buffer = false;
  if (!Serializer::Serialize(request, &request_bytes, &own_buffer).ok()) {
    Done failed = std::move(call->done);
    delete call;
    failed(grpc::Status(grpc::StatusCode::INTERNAL, "request does not serialize"));
    return;
  }
  {
    absl::ReaderMutexLock lock(&mutex_);
    if (!started_ || stopping_) {
      Done failed = std::move(call->done);
      delete call;
      failed(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the embedded services have stopped"));
      return;
    }
    outstanding_.fetch_add(1, std::memory_order_relaxed);
    call->reader = stub_->PrepareUnaryCall(context, path, request_bytes, queue_.get());
    call->reader->StartCall();
    call->reader->Finish(&call->response_bytes, &call->status, Started(&call->finished));
  }
  if (t_draining != this) Pump();
}

void InlineUnaryServer::RunStep(const Step& step, bool ok) {
  if (step.kind == Step::kClientFinished) {
    auto* call = static_cast<ClientCall*>(step.call);
    if (call->status.ok() && !Serializer::Deserialize(&call->response_bytes, call->response).ok()) {
      call->status = grpc::Status(grpc::StatusCode::INTERNAL, "response message does not parse");
    }
    outstanding_.fetch_sub(1, std::memory_order_relaxed);
    Done done = std::move(call->done);
    grpc::Status status = std::move(call->status);
    delete call;
    done(status);
    return;
  }
  auto* call = static_cast<ServerCall*>(step.call);
  switch (step.kind) {
    case Step::kAccepted:
      return call->OnAccepted(ok);
    case Step::kRead:
      return call->OnRead(ok);
    case Step::kFinished:
      return call->OnFinished();
    case Step::kDone:
      return call->OnDone();
    case Step::kClientFinished:
      break;
  }
}

void InlineUnaryServer::Pump() { Drain(/*run_handlers=*/true); }

void InlineUnaryServer::Drain(bool run_handlers) {
  if (queue_ == nullptr || t_draining == this) return;  // the loop below this frame drains
  const InlineUnaryServer* outer = t_draining;
  t_draining = this;
  bool deferred = false;
  if (run_handlers) RunDeferredReads();
  void* tag = nullptr;
  bool ok = false;
  while (queue_->AsyncNext(&tag, &ok, gpr_inf_past(GPR_CLOCK_MONOTONIC)) ==
         grpc::CompletionQueue::GOT_EVENT) {
    TakeOver(tag);
    const Step& step = *static_cast<const Step*>(tag);
    if (!run_handlers && step.kind == Step::kRead) {
      absl::MutexLock lock(&mutex_);
      deferred_reads_.push_back({step.call, ok});
      has_deferred_reads_.store(true, std::memory_order_release);
      deferred = true;
      continue;
    }
    RunStep(step, ok);
    progress_.fetch_add(1, std::memory_order_relaxed);
  }
  if (run_handlers) RunDeferredReads();
  t_draining = outer;
  if (deferred) {
    absl::MutexLock lock(&mutex_);
    sweep_now_ = true;
  }
}

void InlineUnaryServer::RunDeferredReads() {
  // Every call's drain passes here, and reads are rarely deferred: no lock unless some are.
  // One deferred meanwhile is the sweeper's, which its deferring thread wakes.
  if (!has_deferred_reads_.load(std::memory_order_acquire)) return;
  std::vector<std::pair<void*, bool>> reads;
  {
    absl::MutexLock lock(&mutex_);
    reads.swap(deferred_reads_);
    has_deferred_reads_.store(false, std::memory_order_relaxed);
  }
  for (const auto& [call, ok] : reads) RunStep(Step{Step::kRead, call}, ok);
}

bool InlineUnaryServer::SweepNeeded() const {
  return stopping_ || sweep_now_ || outstanding_.load(std::memory_order_relaxed) > 0;
}

bool InlineUnaryServer::SweepNow() const { return stopping_ || sweep_now_; }

void InlineUnaryServer::Sweep() {
  uint64_t seen = progress_.load(std::memory_order_relaxed);
  for (;;) {
    bool stopping = false;
    bool now = false;
    {
      absl::MutexLock lock(&mutex_);
      mutex_.Await(absl::Condition(this, &InlineUnaryServer::SweepNeeded));
      if (sweeper_done_) return;
      // Shutdown, or a handler left for it, cuts the wait short.
      if (!stopping_) {
        mutex_.AwaitWithTimeout(absl::Condition(this, &InlineUnaryServer::SweepNow), kSweepPeriod);
      }
      now = sweep_now_;
      sweep_now_ = false;
      stopping = stopping_;
    }
    if (stopping) absl::SleepFor(kStoppingSweepPeriod);
    // While callers drain, what they cause is theirs to run: the sweeper steps in only when
    // nothing moved for a whole period, or when asked to.
    const uint64_t progress = progress_.load(std::memory_order_relaxed);
    if (progress != seen && !now && !stopping) {
      seen = progress;
      continue;
    }
    Pump();
    seen = progress_.load(std::memory_order_relaxed);
  }
}

void InlineUnaryServer::Shutdown(std::chrono::milliseconds grace) {
  {
    absl::MutexLock lock(&mutex_);
    if (!started_ || stopping_) return;
    stopping_ = true;
  }
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  {
    absl::MutexLock lock(&mutex_);
    queue_closed_ = true;
  }
  queue_->Shutdown();
  {
    absl::MutexLock lock(&mutex_);
    sweeper_done_ = true;
  }
  sweeper_.join();
  void* tag = nullptr;
  bool ok = false;
  const InlineUnaryServer* outer = t_draining;
  t_draining = this;
  while (queue_->Next(&tag, &ok)) {
    TakeOver(tag);
    RunStep(*static_cast<const Step*>(tag), ok);
  }
  // Requests left for a handler thread are ended unanswered.
  std::vector<std::pair<void*, bool>> reads;
  {
    absl::MutexLock lock(&mutex_);
    reads.swap(deferred_reads_);
  }
  for (const auto& [call, unused_ok] : reads) RunStep(Step{Step::kRead, call}, false);
  t_draining = outer;
}

}  // namespace labgate
