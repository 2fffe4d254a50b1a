// replay://SESSION_ID (issue 33): an instrument that answers as a recorded session did.
//
// The recording is split at its tx records. What the device said before the first tx (a
// banner, readings) plays at its recorded time after the port opens; what it said after a tx,
// up to the next one, plays after the write that matched that tx, each part at its recorded
// delay from the tx, divided by `speed` (0: at once).
//
// Matching a write:
//   - strict (default): the bytes written must begin with the next recorded tx; a write that
//     is still a prefix of it waits for the rest;
//   - lenient: any recorded tx of the same content answers (the next such after the last one
//     matched, else the first).
// A write that can match nothing is a divergence: it is kept (what was expected next, what was
// sent, the record's message id), nothing answers it, and in strict mode the recording still
// expects the same tx. Control lines change nothing: a recording cannot be reset.
//
// Thread-safe: the port's worker drives it while replay_status reads its progress.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "serial-service/sim/replay_recording.h"
#include "serial-service/sim/scripted_device.h"

namespace labgate::serial {

enum class ReplayMode { kStrict, kLenient };

struct ReplayTarget {
  std::string session_id;
  ReplayMode mode = ReplayMode::kStrict;
  double speed = 1.0;
};

// replay://SESSION_ID[?mode=strict|lenient][&speed=N] with 0 <= N <= 1000; INVALID_ARGUMENT
// naming what is wrong.
absl::StatusOr<ReplayTarget> ParseReplayName(const std::string& port_name);
const char* ReplayModeName(ReplayMode mode);

struct ReplayDivergence {
  int64_t message_id = 0;  // the recorded tx expected next; 0 when none was left
  std::string expected;    // its bytes
  std::string sent;
  std::chrono::system_clock::time_point at;
};

struct ReplayProgress {
  ReplayTarget target;
  bool loaded = false;
  int64_t matched = 0;
  int64_t total_tx = 0;
  int64_t total_rx = 0;
  int64_t rx_played = 0;
  std::vector<ReplayDivergence> divergences;  // the first kKeptDivergences
  int64_t divergence_count = 0;
  bool finished = false;
  std::string Summary() const;  // "matched 12 of 14, 1 divergence"
};

class ReplayedInstrument : public ScriptedDevice {
 public:
  using Loader = std::function<absl::StatusOr<ReplayRecording>(const std::string& session_id)>;
  static constexpr size_t kKeptDivergences = 100;

  // `loader` fetches the recording when the port opens (on the port's worker).
  ReplayedInstrument(ReplayTarget target, Loader loader);
  // For tests: a recording already loaded.
  ReplayedInstrument(ReplayTarget target, ReplayRecording recording);

  absl::Status Open(Clock::time_point now) override;
  void Receive(absl::string_view bytes, Clock::time_point now) override;
  void SetDtr(bool /*asserted*/, Clock::time_point /*now*/) override {}
  std::string TakeDue(Clock::time_point now) override;
  std::optional<Clock::time_point> NextDue() const override;

  const ReplayTarget& target() const { return target_; }
  ReplayProgress Progress() const;
  // Divergences not yet reported to the write that caused them, oldest first.
  std::vector<ReplayDivergence> TakeUnreported();

 private:
  void Index() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The tx (index into tx_) that `partial_` begins with, as the mode allows.
  std::optional<size_t> FindMatch() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether `partial_` begins with tx `index`'s bytes, or they with it.
  bool PartialBeginsWith(size_t index) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool PartialIsPrefixOf(size_t index) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Whether more bytes could still make `partial_` match.
  bool CouldStillMatch() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Schedules what the device said after tx `index`, from `now`.
  void Play(size_t index, Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Diverge() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Clock::duration Scaled(std::chrono::milliseconds recorded) const;

  const ReplayTarget target_;
  const Loader loader_;
  mutable absl::Mutex mu_;
  bool loaded_ ABSL_GUARDED_BY(mu_) = false;
  ReplayRecording recording_ ABSL_GUARDED_BY(mu_);
  std::vector<size_t> tx_ ABSL_GUARDED_BY(mu_);  // positions of the tx records
  // A tx's bytes -> its indexes in tx_, for a write that is exactly one recorded tx.
  std::unordered_map<std::string, std::vector<size_t>> tx_by_bytes_ ABSL_GUARDED_BY(mu_);
  std::vector<bool> tx_used_ ABSL_GUARDED_BY(mu_);
  size_t cursor_ ABSL_GUARDED_BY(mu_) = 0;  // the next tx expected (strict), or searched from
  int64_t matched_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t used_ ABSL_GUARDED_BY(mu_) = 0;  // distinct tx matched
  int64_t rx_played_ ABSL_GUARDED_BY(mu_) = 0;
  std::string partial_ ABSL_GUARDED_BY(mu_);  // written, not yet matched
  std::multimap<Clock::time_point, std::string> output_ ABSL_GUARDED_BY(mu_);
  std::vector<ReplayDivergence> divergences_ ABSL_GUARDED_BY(mu_);
  int64_t divergence_count_ ABSL_GUARDED_BY(mu_) = 0;
  std::vector<ReplayDivergence> unreported_ ABSL_GUARDED_BY(mu_);
};

}  // namespace labgate::serial
