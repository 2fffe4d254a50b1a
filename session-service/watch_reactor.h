// The WatchSession stream: forwards committed session events to one client with at
// most one write in flight, queueing the rest up to a bound.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
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
  std::mutex mu_;
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
  std::mutex mu_;
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

  // All of these run with handle_->mu_ held.
  void DeliverLocked(const SessionEventRecord& event);
  void FinishLocked(const grpc::Status& status);
  void SendHeadersLocked();
  void StartNextWriteLocked();

  SessionStore* const store_;
  WatchRegistry* const registry_;
  const std::shared_ptr<WatchHandle> handle_;
  uint64_t subscription_ = 0;

  std::deque<Event> queue_;  // front() is the write in flight while writing_
  bool writing_ = false;
  bool headers_sent_ = false;
  bool finish_requested_ = false;
  std::optional<grpc::Status> finish_after_write_;
};

}  // namespace labgate::session
