// The WatchSession stream: forwards committed session events to one client with at
// most one write in flight, queueing the rest up to a bound.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/session/v1/session.pb.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

class WatchReactor;

// Outlives its reactor: the store subscription, pending lookups and the registry hold
// it, and it turns their calls into no-ops once the stream is done.
class WatchHandle {
 public:
  void Deliver(const SessionEventRecord& event);
  void Close(const grpc::Status& status);
  // The watched session exists: send headers so the client knows it is subscribed.
  void Ready();

 private:
  friend class WatchReactor;
  absl::Mutex mu_;
  WatchReactor* reactor_ ABSL_GUARDED_BY(mu_) = nullptr;
};

// Every open stream, so that shutdown can finish them all.
class WatchRegistry {
 public:
  // False once closed; the caller then refuses the stream.
  bool Add(std::shared_ptr<WatchHandle> handle);
  void Remove(const std::shared_ptr<WatchHandle>& handle);
  // Finishes every open stream with `status` and refuses new ones.
  void CloseAll(const grpc::Status& status);

 private:
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::shared_ptr<WatchHandle>> handles_ ABSL_GUARDED_BY(mu_);
};

class WatchReactor : public grpc::ServerWriteReactor<::labgate::session::v1::SessionEvent> {
 public:
  static constexpr size_t kMaxQueuedEvents = 1024;

  // Subscribes to `store` at once; deletes itself when the stream is done.
  WatchReactor(SessionStore* store, WatchRegistry* registry, std::string session_id);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  friend class WatchHandle;
  using Event = ::labgate::session::v1::SessionEvent;

  void DeliverLocked(const SessionEventRecord& event) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);
  void SendHeadersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);
  void StartNextWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);

  SessionStore* const store_;
  WatchRegistry* const registry_;
  const std::shared_ptr<WatchHandle> handle_;
  uint64_t subscription_ = 0;  // set by the constructor, read by OnDone

  // front() is the write in flight while writing_.
  std::deque<Event> queue_ ABSL_GUARDED_BY(handle_->mu_);
  bool writing_ ABSL_GUARDED_BY(handle_->mu_) = false;
  bool headers_sent_ ABSL_GUARDED_BY(handle_->mu_) = false;
  bool finish_requested_ ABSL_GUARDED_BY(handle_->mu_) = false;
  std::optional<grpc::Status> finish_after_write_ ABSL_GUARDED_BY(handle_->mu_);
};

}  // namespace labgate::session
