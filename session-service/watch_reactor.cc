#include "session-service/watch_reactor.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_status.h"
#include "session-service/proto_convert.h"

namespace labgate::session {

void WatchHandle::Deliver(const SessionEventRecord& event) {
  absl::MutexLock lock(&mu_);
  if (reactor_ == nullptr) return;
  reactor_->handle_->mu_.AssertHeld();  // this very mutex
  reactor_->DeliverLocked(event);
}

void WatchHandle::Close(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  if (reactor_ == nullptr) return;
  reactor_->handle_->mu_.AssertHeld();  // this very mutex
  reactor_->FinishLocked(status);
}

void WatchHandle::Ready() {
  absl::MutexLock lock(&mu_);
  if (reactor_ == nullptr) return;
  reactor_->handle_->mu_.AssertHeld();  // this very mutex
  reactor_->SendHeadersLocked();
}

bool WatchRegistry::Add(std::shared_ptr<WatchHandle> handle) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  handles_.insert(std::move(handle));
  return true;
}

void WatchRegistry::Remove(const std::shared_ptr<WatchHandle>& handle) {
  absl::MutexLock lock(&mu_);
  handles_.erase(handle);
}

void WatchRegistry::CloseAll(const grpc::Status& status) {
  std::set<std::shared_ptr<WatchHandle>> open;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    open = handles_;
  }
  for (const auto& handle : open) handle->Close(status);
}

WatchReactor::WatchReactor(SessionStore* store, WatchRegistry* registry, std::string session_id)
    : store_(store), registry_(registry), handle_(std::make_shared<WatchHandle>()) {
  {
    absl::MutexLock lock(&handle_->mu_);
    handle_->reactor_ = this;
  }
  if (!registry_->Add(handle_)) {
    handle_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "session service is shutting down"));
    return;
  }
  std::shared_ptr<WatchHandle> handle = handle_;
  // Subscribe before checking the session so no event slips between the two.
  subscription_ = store_->Subscribe(
      session_id, [handle](const SessionEventRecord& event) { handle->Deliver(event); });
  if (session_id.empty()) {
    handle->Ready();
    return;
  }
  store_->GetSession(std::move(session_id), [handle](absl::StatusOr<SessionRecord> session) {
    if (session.ok()) {
      handle->Ready();
    } else {
      handle->Close(ToGrpcStatus(session.status()));
    }
  });
}

void WatchReactor::DeliverLocked(const SessionEventRecord& event) {
  if (finish_requested_) return;
  if (queue_.size() >= kMaxQueuedEvents) {
    FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              absl::StrCat("watcher fell behind: more than ", kMaxQueuedEvents,
                                           " events waiting to be sent")));
    return;
  }
  ToProto(event, &queue_.emplace_back());
  if (!writing_) StartNextWriteLocked();
}

void WatchReactor::StartNextWriteLocked() {
  writing_ = true;
  headers_sent_ = true;  // the first write carries them
  StartWrite(&queue_.front());
}

void WatchReactor::SendHeadersLocked() {
  if (headers_sent_ || finish_requested_) return;
  headers_sent_ = true;
  StartSendInitialMetadata();
}

void WatchReactor::FinishLocked(const grpc::Status& status) {
  if (finish_requested_) return;
  finish_requested_ = true;
  if (writing_) {
    finish_after_write_ = status;  // Finish must wait for the write in flight
    return;
  }
  Finish(status);
}

void WatchReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&handle_->mu_);
  writing_ = false;
  queue_.pop_front();
  if (finish_after_write_.has_value()) {
    Finish(*finish_after_write_);
    finish_after_write_.reset();
    return;
  }
  if (finish_requested_) return;
  if (!ok) {
    // The stream broke (client gone); end it and stop queueing.
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "watch stream broken"));
    return;
  }
  if (!queue_.empty()) StartNextWriteLocked();
}

void WatchReactor::OnCancel() {
  absl::MutexLock lock(&handle_->mu_);
  FinishLocked(grpc::Status::CANCELLED);
}

void WatchReactor::OnDone() {
  {
    absl::MutexLock lock(&handle_->mu_);
    handle_->reactor_ = nullptr;
  }
  if (subscription_ != 0) store_->Unsubscribe(subscription_);
  registry_->Remove(handle_);
  delete this;
}

}  // namespace labgate::session
