#include "session-service/reservations/reservation_watch.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "session-service/reservations/reservation_grpc_service.h"

namespace labgate::session {

void ReservationWatchHandle::Deliver(const std::vector<Reservation>& reservations, bool snapshot,
                                     const std::string& reason) {
  absl::MutexLock lock(&mu_);
  if (reactor_ == nullptr) return;
  reactor_->handle_->mu_.AssertHeld();  // this very mutex
  reactor_->DeliverLocked(reservations, snapshot, reason);
}

void ReservationWatchHandle::Close(const grpc::Status& status) {
  absl::MutexLock lock(&mu_);
  if (reactor_ == nullptr) return;
  reactor_->handle_->mu_.AssertHeld();  // this very mutex
  reactor_->FinishLocked(status);
}

bool ReservationWatchRegistry::Add(std::shared_ptr<ReservationWatchHandle> handle) {
  absl::MutexLock lock(&mu_);
  if (closed_) return false;
  handles_.insert(std::move(handle));
  return true;
}

void ReservationWatchRegistry::Remove(const std::shared_ptr<ReservationWatchHandle>& handle) {
  absl::MutexLock lock(&mu_);
  handles_.erase(handle);
}

void ReservationWatchRegistry::CloseAll(const grpc::Status& status) {
  std::set<std::shared_ptr<ReservationWatchHandle>> open;
  {
    absl::MutexLock lock(&mu_);
    closed_ = true;
    open = handles_;
  }
  for (const auto& handle : open) handle->Close(status);
}

ReservationWatchReactor::ReservationWatchReactor(ReservationDesk* desk,
                                                 ReservationWatchRegistry* registry,
                                                 const grpc::Status& refusal)
    : desk_(desk), registry_(registry), handle_(std::make_shared<ReservationWatchHandle>()) {
  {
    absl::MutexLock lock(&handle_->mu_);
    handle_->reactor_ = this;
  }
  if (!refusal.ok()) {
    handle_->Close(refusal);
    return;
  }
  if (!registry_->Add(handle_)) {
    handle_->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "reservations are shutting down"));
    return;
  }
  std::shared_ptr<ReservationWatchHandle> handle = handle_;
  watch_ = desk_->Watch(
      [&handle](const std::vector<Reservation>& active) {
        handle->Deliver(active, /*snapshot=*/true, "snapshot");
      },
      [handle](const std::vector<Reservation>& changed, const std::string& reason) {
        handle->Deliver(changed, /*snapshot=*/false, reason);
      });
}

void ReservationWatchReactor::DeliverLocked(const std::vector<Reservation>& reservations,
                                            bool snapshot, const std::string& reason) {
  if (finish_requested_) return;
  if (queue_.size() >= kMaxQueuedUpdates) {
    FinishLocked(grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                              absl::StrCat("watcher fell behind: more than ", kMaxQueuedUpdates,
                                           " updates waiting to be sent; watch again")));
    return;
  }
  Update& update = queue_.emplace_back();
  update.set_snapshot(snapshot);
  update.set_reason(reason);
  for (const Reservation& reservation : reservations) {
    ReservationToProto(reservation, update.add_reservations());
  }
  if (!writing_) {
    writing_ = true;
    StartWrite(&queue_.front());
  }
}

void ReservationWatchReactor::FinishLocked(const grpc::Status& status) {
  if (finish_requested_) return;
  finish_requested_ = true;
  if (writing_) {
    finish_after_write_ = status;  // Finish must wait for the write in flight
    return;
  }
  Finish(status);
}

void ReservationWatchReactor::OnWriteDone(bool ok) {
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
    FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "watch stream broken"));
    return;
  }
  if (!queue_.empty()) {
    writing_ = true;
    StartWrite(&queue_.front());
  }
}

void ReservationWatchReactor::OnCancel() {
  absl::MutexLock lock(&handle_->mu_);
  FinishLocked(grpc::Status::CANCELLED);
}

void ReservationWatchReactor::OnDone() {
  {
    absl::MutexLock lock(&handle_->mu_);
    handle_->reactor_ = nullptr;
  }
  if (watch_ != 0) desk_->Unwatch(watch_);
  registry_->Remove(handle_);
  delete this;
}

}  // namespace labgate::session
