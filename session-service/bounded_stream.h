// A server stream that sends what its service hands it, with at most one write in flight and at
// most a bound of messages queued behind it: a client that falls further behind is ended with
// RESOURCE_EXHAUSTED (it watches again from scratch). The service hands messages over through the
// stream's Handle, which outlives the stream and turns calls into no-ops once it is done; a
// Registry of open streams lets shutdown end them all. WatchSession and the reservations' Watch
// are such streams: each derives, subscribes in its constructor and unsubscribes in OnStreamDone.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/tsan_handoff.h"

namespace labgate::session {

template <typename Message>
class BoundedStream : public grpc::ServerWriteReactor<Message> {
 public:
  class Handle {
   public:
    // Queues `message` on the stream (see Enqueue), unless the stream is done.
    void Send(Message message) ABSL_LOCKS_EXCLUDED(mu_) {
      absl::MutexLock lock(&mu_);
      if (stream_ == nullptr) return;
      stream_->handle_->mu_.AssertHeld();  // this very mutex
      stream_->EnqueueLocked(std::move(message));
    }
    // Ends the stream with `status` once the write in flight is done.
    void Close(const grpc::Status& status) ABSL_LOCKS_EXCLUDED(mu_) {
      absl::MutexLock lock(&mu_);
      if (stream_ == nullptr) return;
      stream_->handle_->mu_.AssertHeld();  // this very mutex
      stream_->FinishLocked(status);
    }
    // Sends the initial metadata now, if no message has carried it yet: the client then knows
    // its subscription is in place before anything is sent.
    void Ready() ABSL_LOCKS_EXCLUDED(mu_) {
      absl::MutexLock lock(&mu_);
      if (stream_ == nullptr) return;
      stream_->handle_->mu_.AssertHeld();  // this very mutex
      stream_->SendHeadersLocked();
    }

   private:
    friend class BoundedStream;
    absl::Mutex mu_;
    BoundedStream* stream_ ABSL_GUARDED_BY(mu_) = nullptr;
  };

  class Registry {
   public:
    Registry() = default;
    Registry(const Registry&) = delete;
    Registry& operator=(const Registry&) = delete;
    // Under the lock: the last stream's Remove (on a gRPC thread) is ordered before this.
    ~Registry() {
      absl::MutexLock lock(&mu_);
      handles_.clear();
    }
    // False once closed; the stream is then refused.
    bool Add(std::shared_ptr<Handle> handle) ABSL_LOCKS_EXCLUDED(mu_) {
      absl::MutexLock lock(&mu_);
      if (closed_) return false;
      handles_.insert(std::move(handle));
      return true;
    }
    void Remove(const std::shared_ptr<Handle>& handle) ABSL_LOCKS_EXCLUDED(mu_) {
      absl::MutexLock lock(&mu_);
      handles_.erase(handle);
    }
    // Ends every open stream with `status` and refuses new ones.
    void CloseAll(const grpc::Status& status) ABSL_LOCKS_EXCLUDED(mu_) {
      std::set<std::shared_ptr<Handle>> open;
      {
        absl::MutexLock lock(&mu_);
        closed_ = true;
        open = handles_;
      }
      for (const auto& handle : open) handle->Close(status);
    }

   private:
    absl::Mutex mu_;
    bool closed_ ABSL_GUARDED_BY(mu_) = false;
    std::set<std::shared_ptr<Handle>> handles_ ABSL_GUARDED_BY(mu_);
  };

  void OnWriteDone(bool ok) final {
    TakeOver(this);  // a completion gRPC runs, maybe on another thread
    absl::MutexLock lock(&handle_->mu_);
    writing_ = false;
    queue_.pop_front();
    if (finish_after_write_.has_value()) {
      HandOff(this);
      this->Finish(*finish_after_write_);
      finish_after_write_.reset();
      return;
    }
    if (finish_requested_) return;
    if (!ok) {
      // The stream broke (client gone); end it and stop queueing.
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "watch stream broken"));
      return;
    }
    if (!queue_.empty()) StartWriteLocked();
  }
  void OnCancel() final {
    TakeOver(this);  // a completion gRPC runs, maybe on another thread
    absl::MutexLock lock(&handle_->mu_);
    FinishLocked(grpc::Status::CANCELLED);
  }
  void OnDone() final {
    TakeOver(this);  // a completion gRPC runs, maybe on another thread
    {
      absl::MutexLock lock(&handle_->mu_);
      handle_->stream_ = nullptr;
    }
    OnStreamDone();
    registry_->Remove(handle_);
    delete this;
  }

 protected:
  // `what` names the messages in the RESOURCE_EXHAUSTED text ("events", "updates").
  BoundedStream(Registry* registry, size_t max_queued, std::string what)
      : registry_(registry),
        max_queued_(max_queued),
        what_(std::move(what)),
        handle_(std::make_shared<Handle>()) {
    absl::MutexLock lock(&handle_->mu_);
    handle_->stream_ = this;
  }
  ~BoundedStream() override = default;

  // Registers the stream for shutdown; false (and the stream ended) once shutdown has begun.
  bool Register(const std::string& shutting_down) {
    if (registry_->Add(handle_)) return true;
    handle_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, shutting_down));
    return false;
  }
  // Unsubscribes from whatever fed the stream; runs once, when the stream is done.
  virtual void OnStreamDone() = 0;

  const std::shared_ptr<Handle>& handle() const { return handle_; }

 private:
  void EnqueueLocked(Message message) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_) {
    if (finish_requested_) return;
    if (queue_.size() >= max_queued_) {
      FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                absl::StrCat("watcher fell behind: more than ", max_queued_, " ",
                                             what_, " waiting to be sent")));
      return;
    }
    queue_.push_back(std::move(message));
    if (!writing_) StartWriteLocked();
  }
  void StartWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_) {
    writing_ = true;
    headers_sent_ = true;  // the first write carries them
    HandOff(this);
    this->StartWrite(&queue_.front());
  }
  void SendHeadersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_) {
    if (headers_sent_ || finish_requested_) return;
    headers_sent_ = true;
    HandOff(this);
    this->StartSendInitialMetadata();
  }
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_) {
    if (finish_requested_) return;
    finish_requested_ = true;
    if (writing_) {
      finish_after_write_ = status;  // Finish must wait for the write in flight
      return;
    }
    HandOff(this);
    this->Finish(status);
  }

  Registry* const registry_;
  const size_t max_queued_;
  const std::string what_;
  const std::shared_ptr<Handle> handle_;
  // front() is the write in flight while writing_.
  std::deque<Message> queue_ ABSL_GUARDED_BY(handle_->mu_);
  bool writing_ ABSL_GUARDED_BY(handle_->mu_) = false;
  bool headers_sent_ ABSL_GUARDED_BY(handle_->mu_) = false;
  bool finish_requested_ ABSL_GUARDED_BY(handle_->mu_) = false;
  std::optional<grpc::Status> finish_after_write_ ABSL_GUARDED_BY(handle_->mu_);
};

}  // namespace labgate::session
