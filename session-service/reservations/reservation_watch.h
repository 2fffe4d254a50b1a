// The reservations Watch stream: a snapshot of the queue and the grants, then every stored
// change, to one client, with at most one write in flight and at most kMaxQueuedUpdates behind.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/reservations/v1/reservations.pb.h"
#include "session-service/reservations/reservation_desk.h"

namespace labgate::session {

class ReservationWatchReactor;

// Outlives its reactor: the desk's listener and the registry hold it, and it turns their calls
// into no-ops once the stream is done.
class ReservationWatchHandle {
 public:
  void Deliver(const std::vector<Reservation>& reservations, bool snapshot,
               const std::string& reason) ABSL_LOCKS_EXCLUDED(mu_);
  void Close(const grpc::Status& status) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  friend class ReservationWatchReactor;
  absl::Mutex mu_;
  ReservationWatchReactor* reactor_ ABSL_GUARDED_BY(mu_) = nullptr;
};

// Every open Watch stream, so that shutdown can end them all.
class ReservationWatchRegistry {
 public:
  // False once closed; the stream is then refused.
  bool Add(std::shared_ptr<ReservationWatchHandle> handle) ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const std::shared_ptr<ReservationWatchHandle>& handle) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends every open stream with `status` and refuses new ones.
  void CloseAll(const grpc::Status& status) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::set<std::shared_ptr<ReservationWatchHandle>> handles_ ABSL_GUARDED_BY(mu_);
};

class ReservationWatchReactor
    : public grpc::ServerWriteReactor<::labgate::reservations::v1::ReservationUpdate> {
 public:
  static constexpr size_t kMaxQueuedUpdates = 1024;

  // Starts watching `desk` at once, or ends the stream with `refusal` when it is not OK;
  // deletes itself when the stream is done.
  ReservationWatchReactor(ReservationDesk* desk, ReservationWatchRegistry* registry,
                          const grpc::Status& refusal = grpc::Status::OK);

  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  friend class ReservationWatchHandle;
  using Update = ::labgate::reservations::v1::ReservationUpdate;

  void DeliverLocked(const std::vector<Reservation>& reservations, bool snapshot,
                     const std::string& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);
  void FinishLocked(const grpc::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(handle_->mu_);

  ReservationDesk* const desk_;
  ReservationWatchRegistry* const registry_;
  const std::shared_ptr<ReservationWatchHandle> handle_;
  uint64_t watch_ = 0;  // set by the constructor, read by OnDone

  // front() is the write in flight while writing_.
  std::deque<Update> queue_ ABSL_GUARDED_BY(handle_->mu_);
  bool writing_ ABSL_GUARDED_BY(handle_->mu_) = false;
  bool finish_requested_ ABSL_GUARDED_BY(handle_->mu_) = false;
  std::optional<grpc::Status> finish_after_write_ ABSL_GUARDED_BY(handle_->mu_);
};

}  // namespace labgate::session
