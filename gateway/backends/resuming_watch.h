// A server stream watched for as long as its owner wants it: when the stream ends (the
// service restarted, or is not up yet) it is begun again after a pause, until Stop().
#pragma once

#include <grpcpp/alarm.h>
#include <grpcpp/client_context.h>
#include <grpcpp/support/client_callback.h>

#include <chrono>
#include <functional>
#include <memory>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/open_streams.h"

namespace labgate::gateway {

template <typename Event>
class ResumingWatch : public std::enable_shared_from_this<ResumingWatch<Event>> {
 public:
  // Begins one call: stub->async()->Method(context, &request, reactor). The request must
  // live as long as the watch (capture it by value).
  using StartFn = std::function<void(grpc::ClientContext*, grpc::ClientReadReactor<Event>*)>;
  struct Callbacks {
    std::function<void(const Event&)> on_event;  // each message, on a gRPC thread
    std::function<void()> on_started;            // each time a stream is up (optional)
    std::function<void()> on_ended = nullptr;    // each time a stream ends (optional)
  };

  static std::shared_ptr<ResumingWatch> Start(StartFn start, Callbacks callbacks,
                                              std::chrono::milliseconds retry_after) {
    auto watch = std::shared_ptr<ResumingWatch>(
        new ResumingWatch(std::move(start), std::move(callbacks), retry_after));
    watch->Begin();
    return watch;
  }

  // Cancels the stream and any pending retry. No callback starts after it returns, and one
  // running on another thread has returned: callbacks may reach into the watch's owner, which
  // is destroyed next. (A callback that stops its own watch does not wait for itself.)
  void Stop() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    CancelLocked();
    mutex_.Await(absl::Condition(this, &ResumingWatch::NoCallbackElsewhere));
  }
  // Stop without the wait, for owners whose callbacks keep only state they share: such an
  // owner may be let go on any thread, even under a lock one of its callbacks takes.
  void Cancel() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    CancelLocked();
  }

 private:
  class Reactor final : public grpc::ClientReadReactor<Event> {
   public:
    explicit Reactor(std::shared_ptr<ResumingWatch> watch) : watch_(std::move(watch)) {}
    void OnReadInitialMetadataDone(bool ok) override {
      if (ok && watch_->callbacks_.on_started) watch_->CallBack(watch_->callbacks_.on_started);
    }
    void OnReadDone(bool ok) override {
      if (!ok) return;
      watch_->CallBack([this] { watch_->callbacks_.on_event(event_); });
      this->StartRead(&event_);
    }
    void OnDone(const grpc::Status&) override {
      watch_->Ended();
      delete this;
    }
    void Go() {
      this->StartRead(&event_);
      this->StartCall();
    }

   private:
    std::shared_ptr<ResumingWatch> watch_;
    Event event_;
    OpenStreams::Entry open_;
  };

  ResumingWatch(StartFn start, Callbacks callbacks, std::chrono::milliseconds retry_after)
      : start_(std::move(start)), callbacks_(std::move(callbacks)), retry_after_(retry_after) {}

  // Runs `callback` unless stopped, counted so that Stop can wait for it.
  template <typename Callback>
  void CallBack(const Callback& callback) ABSL_LOCKS_EXCLUDED(mutex_) {
    {
      absl::MutexLock lock(&mutex_);
      if (stopped_) return;
      ++callbacks_running_;
    }
    const void* const outer = CallingBackFor();
    CallingBackFor() = this;
    callback();
    CallingBackFor() = outer;
    absl::MutexLock lock(&mutex_);
    --callbacks_running_;
  }
  // The watch whose callback this thread is running, if any.
  static const void*& CallingBackFor() {
    static thread_local const void* watch = nullptr;
    return watch;
  }
  bool NoCallbackElsewhere() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return callbacks_running_ == (CallingBackFor() == this ? 1 : 0);
  }
  void CancelLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    stopped_ = true;
    if (context_) context_->TryCancel();
    if (retry_) retry_->Cancel();
  }

  void Begin() ABSL_LOCKS_EXCLUDED(mutex_) {
    absl::MutexLock lock(&mutex_);
    if (stopped_) return;
    context_ = std::make_unique<grpc::ClientContext>();
    auto* reactor = new Reactor(this->shared_from_this());
    start_(context_.get(), reactor);
    reactor->Go();
  }

  void Ended() ABSL_LOCKS_EXCLUDED(mutex_) {
    if (callbacks_.on_ended) CallBack(callbacks_.on_ended);
    absl::MutexLock lock(&mutex_);
    if (stopped_) return;
    retry_ = std::make_unique<grpc::Alarm>();
    // Weak: the alarm keeps its callback as long as this watch keeps the alarm.
    retry_->Set(std::chrono::system_clock::now() + retry_after_,
                [weak = this->weak_from_this()](bool ok) {
                  auto self = weak.lock();
                  if (ok && self) self->Begin();
                });
  }

  const StartFn start_;
  const Callbacks callbacks_;
  const std::chrono::milliseconds retry_after_;
  absl::Mutex mutex_;
  bool stopped_ ABSL_GUARDED_BY(mutex_) = false;
  int callbacks_running_ ABSL_GUARDED_BY(mutex_) = 0;
  std::unique_ptr<grpc::ClientContext> context_ ABSL_GUARDED_BY(mutex_);  // the current stream
  std::unique_ptr<grpc::Alarm> retry_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace labgate::gateway
