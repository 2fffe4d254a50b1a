// The reservation service's state (issue 32): the book of reservations, what each bench can
// reserve now, and the session store that keeps the book through restarts. Thread-safe: the
// RPCs, the benches' inventory reports and the deadline timer all come through here.
//
// Every change is stored before it is answered: a caller hears of its reservation only once the
// row has committed, and listeners hear of changes in the order they were made. A bench's
// inventory is not stored; each labgate-serial reports it again when it connects.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "session-service/reservations/reservation_book.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

struct ReservationDeskOptions {
  ReservationLimits limits;
  // Now; the system clock when null (tests pass their own).
  std::function<ReservationTime()> clock;
  // Ends leases and waits on time. Tests turn it off and call Advance.
  bool run_timer = true;
  // A bench not heard from for this long (labgate-serial reports every 2 s) is unreachable: its
  // reservables count as absent, so nothing of it is granted until it reports again.
  std::chrono::seconds inventory_stale_after{10};
};

// What a bench can reserve, as it reported it, with its holder if any.
struct BenchReservable {
  std::string bench;
  Reservable reservable;  // its name qualified by the bench ("lab-a:psu-2") when the bench has one
  std::string holder;
};

class ReservationDesk {
 public:
  // Restores the waiting and granted reservations `store` kept.
  static absl::StatusOr<std::unique_ptr<ReservationDesk>> Open(SessionStore* store,
                                                               ReservationDeskOptions options);
  ~ReservationDesk();
  ReservationDesk(const ReservationDesk&) = delete;
  ReservationDesk& operator=(const ReservationDesk&) = delete;

  using Done = std::function<void(absl::StatusOr<Reservation>)>;
  // The request's holder is the caller's principal.
  void Reserve(ReservationRequest request, Done done) ABSL_LOCKS_EXCLUDED(mu_);
  void Renew(const std::string& id, const std::string& holder, Done done) ABSL_LOCKS_EXCLUDED(mu_);
  // Releases a grant, or takes a waiting reservation out of the queue.
  void Release(const std::string& id, const std::string& holder, Done done)
      ABSL_LOCKS_EXCLUDED(mu_);
  // An operator ends anyone's reservation; `reason` is kept as its end_reason.
  void EndByOperator(const std::string& id, const std::string& reason, Done done)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Replaces what `bench` can reserve; grants what that frees or brings back.
  void PublishInventory(const std::string& bench, std::vector<Reservable> reservables,
                        std::function<void(absl::Status)> done) ABSL_LOCKS_EXCLUDED(mu_);
  // Ends what has run out and grants what can be granted, at the clock's now.
  void Advance() ABSL_LOCKS_EXCLUDED(mu_);

  struct Listing {
    std::vector<Reservation> reservations;  // granted first, then the queue in order
    std::vector<BenchReservable> reservables;
  };
  Listing List() const ABSL_LOCKS_EXCLUDED(mu_);

  // Uses of reserved targets (a labgate-serial saw them): each renews its holder's grant on
  // that target. `done` gets how many grants were renewed.
  struct Use {
    std::string holder;
    std::string target;
  };
  void Touch(const std::vector<Use>& uses, std::function<void(absl::StatusOr<int>)> done)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Takes the holder's waiting reservation out of the queue; FAILED_PRECONDITION for a granted
  // one (Release ends grants).
  void Cancel(const std::string& id, const std::string& holder, Done done) ABSL_LOCKS_EXCLUDED(mu_);

  // A watcher first gets `snapshot` (every waiting and granted reservation as stored), then
  // `listener` gets each stored change in order, from nothing earlier than the snapshot. Both
  // are called under the desk's watch lock: they must be quick and not call the desk.
  using Snapshot = std::function<void(const std::vector<Reservation>&)>;
  using Listener =
      std::function<void(const std::vector<Reservation>& changed, const std::string& reason)>;
  uint64_t Watch(const Snapshot& snapshot, Listener listener) ABSL_LOCKS_EXCLUDED(watch_mu_);
  void Unwatch(uint64_t id) ABSL_LOCKS_EXCLUDED(watch_mu_);

 private:
  ReservationDesk(SessionStore* store, ReservationDeskOptions options);
  // Every bench's reservables, qualified by the bench; a bench not heard from lately is absent.
  std::vector<Reservable> InventoryLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool StaleLocked(const std::string& bench) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Counts the grants and expiries among `changed` (made at `now`), and the queue's length.
  void CountLocked(const std::vector<Reservation>& changed, ReservationTime now) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  struct SaveJob {
    std::vector<ReservationRow> rows;
    std::vector<Reservation> changed;
    std::string reason;
    std::function<void(absl::Status)> then;
  };
  // Queues `changed` to be stored (in the order of the changes, by the worker), after which
  // the watchers hear of it and `then` gets the outcome.
  void StoreLocked(std::vector<Reservation> changed, const std::string& reason,
                   std::function<void(absl::Status)> then) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Save(SaveJob job) ABSL_LOCKS_EXCLUDED(mu_);
  // Tells the watchers of changes that are stored.
  void Publish(const std::vector<Reservation>& changed, const std::string& reason)
      ABSL_LOCKS_EXCLUDED(watch_mu_);
  // Stores a reservation `ended` (or answers why not), and grants what it freed.
  void EndLocked(absl::StatusOr<Reservation> ended, const std::string& why, ReservationTime now,
                 Done done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Ends what has run out and grants what can be granted at `now`, counted and stored.
  void AdvanceLocked(ReservationTime now, const std::string& reason,
                     std::function<void(absl::Status)> then) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The worker: hands the saves to the store in order, and ends leases and waits on time.
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  SessionStore* const store_;
  const ReservationDeskOptions options_;
  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  ReservationBook book_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::vector<Reservable>> inventory_ ABSL_GUARDED_BY(mu_);  // by bench
  std::map<std::string, ReservationTime> reported_at_ ABSL_GUARDED_BY(mu_);        // by bench
  // What the watchers have been told: the stored reservations that are waiting or granted.
  // Changes reach it in the order they are stored, after mu_ is let go.
  absl::Mutex watch_mu_ ABSL_ACQUIRED_AFTER(mu_);
  std::map<std::string, Reservation> stored_active_ ABSL_GUARDED_BY(watch_mu_);
  std::map<uint64_t, Listener> listeners_ ABSL_GUARDED_BY(watch_mu_);
  uint64_t next_listener_ ABSL_GUARDED_BY(watch_mu_) = 1;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t saving_ ABSL_GUARDED_BY(mu_) = 0;  // saves the store has not answered yet
  std::deque<SaveJob> to_save_ ABSL_GUARDED_BY(mu_);
  std::thread worker_;
};

}  // namespace labgate::session
