// What labgate-serial knows of the bench reservations (issue 32), as the reservation service's
// Watch stream tells it, and the one check every open, I/O and line change makes against it: a
// port reserved by another principal is refused, naming the holder, the expiry and how to queue.
// The check needs no call to the service, and records the holder's own uses so the watcher can
// report them (each renews the grant's lease).
//
// A grant is enforced until its lease ends (plus a short skew for a renewal in flight while the
// service is reachable), even when its end was never streamed. While the service is unreachable
// the grants last known stay enforced until their leases end; nothing newer is known, so nothing
// new is enforced. A table that has heard nothing yet holds each check (for a bounded time) until
// the first snapshot or the watcher's word that the service is unreachable, so a restarted
// labgate-serial does not let anyone onto a reserved port in its first moments. Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "labgate/reservations/v1/reservations.pb.h"

namespace labgate::serial {

class GrantTable {
 public:
  using Clock = std::chrono::system_clock;

  // `bench`: the name the reservation service knows this labgate-serial by (its reservables are
  // "BENCH:NAME"); empty for the only one. `first_word_hold`: how long after construction a check
  // may wait for the first snapshot (or unreachable); zero for a table filled by hand.
  explicit GrantTable(std::string bench, absl::Duration first_word_hold = absl::ZeroDuration());

  // A Watch stream's snapshot: replaces everything known, and the service is reachable.
  void Replace(const std::vector<reservations::v1::Reservation>& active) ABSL_LOCKS_EXCLUDED(mu_);
  // Changes as the stream brings them (ended reservations leave).
  void Apply(const std::vector<reservations::v1::Reservation>& changed) ABSL_LOCKS_EXCLUDED(mu_);
  // The stream broke: what is known stays until its leases end.
  void SetUnreachable(const std::string& why) ABSL_LOCKS_EXCLUDED(mu_);

  // OK when `principal` may use the port known by `names` (its name, its instrument's, its
  // device path): none is reserved, or the principal holds the grant, whose use is then
  // recorded. Otherwise FAILED_PRECONDITION, e.g. "psu-2 is reserved by ci:nightly until
  // 14:05:07 UTC (reservation R); you are 2nd in the queue" or "...; to wait your turn, call
  // reserve with targets [\"psu-2\"] and wait_s".
  absl::Status Check(const std::string& principal, const std::vector<std::string>& names)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Whether a check may find a grant: one is known, or the first word is still awaited. While
  // not, a port needs no check (the per-I/O fast path).
  bool MayHoldGrants() const {
    return grants_known_.load(std::memory_order_relaxed) > 0 ||
           !heard_.load(std::memory_order_acquire);
  }
  // The holder of the grant on any of `names`, "" when none holds one.
  std::string HolderOf(const std::vector<std::string>& names) ABSL_LOCKS_EXCLUDED(mu_);

  // Whether `principal` waits first in the queue for the port known by `names`. Refused now,
  // it may be granted already: the grant's news reaches its holder and this table separately.
  // A reservation by tags counts for every name, as its queue place does in Check's refusal
  // (the table does not know the reservables' tags).
  bool WaitsFirstFor(const std::string& principal, const std::vector<std::string>& names)
      ABSL_LOCKS_EXCLUDED(mu_);
  // How many times the table has changed (snapshots, changes, the watch breaking).
  uint64_t changes() const ABSL_LOCKS_EXCLUDED(mu_);
  // Waits until the table has changed more than `seen` times, or `within` has passed;
  // true when it changed.
  bool AwaitChangeAfter(uint64_t seen, absl::Duration within) ABSL_LOCKS_EXCLUDED(mu_);

  // The holders' uses since the last call: (holder, reservable as the service names it).
  std::vector<std::pair<std::string, std::string>> TakeUses() ABSL_LOCKS_EXCLUDED(mu_);

  struct State {
    bool reachable = false;
    std::string unreachable_why;  // why the stream is down (empty until it first broke)
    Clock::time_point since;      // when it became reachable or unreachable
    int grants = 0;               // grants in force on this bench
    int waiting = 0;
  };
  State state() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Known {
    std::string id;
    std::string holder;
    bool granted = false;
    int position = 0;
    std::vector<std::string> targets;  // asked for by name (the service's names)
    bool by_tags = false;
    std::vector<std::string> held;  // granted, the service's names
    Clock::time_point expires_at;   // of a grant; max() when unknown
  };
  void CountGrantsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The first snapshot or unreachable arrived, or the hold ran out: checks stop waiting.
  void HeardLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Waits, up to the hold's end, for the first word.
  void AwaitFirstWordLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  static Known FromProto(const reservations::v1::Reservation& reservation);
  // The service's name for a local one on this bench.
  std::string Qualified(const std::string& name) const {
    return bench_.empty() ? name : bench_ + ":" + name;
  }
  // Whether `grant` is still enforced at `now`: until its expires_at (plus a skew while the
  // service is reachable).
  bool InForceLocked(const Known& grant, Clock::time_point now) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  // The grant in force on `target` (a service name), or null.
  const Known* GrantOnLocked(const std::string& target, Clock::time_point now) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  const std::string bench_;
  mutable absl::Mutex mu_;
  std::map<std::string, Known> known_ ABSL_GUARDED_BY(mu_);  // by id
  bool reachable_ ABSL_GUARDED_BY(mu_) = false;
  std::string unreachable_why_ ABSL_GUARDED_BY(mu_);
  Clock::time_point since_ ABSL_GUARDED_BY(mu_) = Clock::now();
  std::set<std::pair<std::string, std::string>> uses_ ABSL_GUARDED_BY(mu_);
  const absl::Time hold_until_;
  bool heard_locked_ ABSL_GUARDED_BY(mu_) = false;
  std::atomic<bool> heard_{false};    // heard_locked_, for the fast path
  std::atomic<int> grants_known_{0};  // granted entries of known_, kept by CountGrantsLocked
  uint64_t changes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace labgate::serial
