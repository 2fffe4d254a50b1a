#include "serial-service/sim/replayed_instrument.h"

#include <cmath>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace labgate::serial {
namespace {

constexpr char kScheme[] = "replay://";
constexpr double kMaxSpeed = 1000;

}  // namespace

const char* ReplayModeName(ReplayMode mode) {
  return mode == ReplayMode::kLenient ? "lenient" : "strict";
}

absl::StatusOr<ReplayTarget> ParseReplayName(const std::string& port_name) {
  if (!absl::StartsWith(port_name, kScheme)) {
    return absl::InvalidArgumentError(absl::StrCat(port_name, " is not a replay:// name"));
  }
  const std::string rest = port_name.substr(sizeof(kScheme) - 1);
  const std::vector<std::string> parts = absl::StrSplit(rest, absl::MaxSplits('?', 1));
  ReplayTarget target;
  target.session_id = parts[0];
  if (target.session_id.empty()) {
    return absl::InvalidArgumentError(
        "replay:// needs the recorded session's id: replay://SESSION_ID[?mode=strict|lenient&"
        "speed=N]");
  }
  if (parts.size() < 2) return target;
  for (absl::string_view option : absl::StrSplit(parts[1], '&')) {
    const std::pair<std::string, std::string> kv = absl::StrSplit(option, absl::MaxSplits('=', 1));
    if (kv.first == "mode" && (kv.second == "strict" || kv.second == "lenient")) {
      target.mode = kv.second == "strict" ? ReplayMode::kStrict : ReplayMode::kLenient;
    } else if (kv.first == "speed") {
      double speed = 0;
      if (!absl::SimpleAtod(kv.second, &speed) || !std::isfinite(speed) || speed < 0 ||
          speed > kMaxSpeed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "replay speed \"", kv.second, "\" is not a number from 0 (at once) to ", kMaxSpeed));
      }
      target.speed = speed;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "replay option \"", option, "\" is not one of mode=strict, mode=lenient or speed=N"));
    }
  }
  return target;
}

std::string ReplayProgress::Summary() const {
  std::string summary = absl::StrCat("matched ", matched, " of ", total_tx);
  if (divergence_count > 0) {
    absl::StrAppend(&summary, ", ", divergence_count,
                    divergence_count == 1 ? " divergence" : " divergences");
  }
  if (finished) absl::StrAppend(&summary, ", finished");
  return summary;
}

ReplayedInstrument::ReplayedInstrument(ReplayTarget target, Loader loader)
    : target_(std::move(target)), loader_(std::move(loader)) {}

ReplayedInstrument::ReplayedInstrument(ReplayTarget target, ReplayRecording recording)
    : target_(std::move(target)) {
  absl::MutexLock lock(&mu_);
  recording_ = std::move(recording);
  loaded_ = true;
  Index();
}

void ReplayedInstrument::Index() {
  const std::vector<RecordedIo>& records = recording_.records;
  for (size_t i = 0; i < records.size(); ++i) {
    if (!records[i].tx || records[i].bytes.empty()) continue;
    tx_by_bytes_[records[i].bytes].push_back(tx_.size());
    tx_.push_back(i);
  }
  tx_used_.assign(tx_.size(), false);
}

absl::Status ReplayedInstrument::Open(Clock::time_point now) {
  bool loaded;
  {
    absl::MutexLock lock(&mu_);
    loaded = loaded_;
  }
  if (!loaded) {
    // Outside the lock: replay_status may ask while a long session loads.
    absl::StatusOr<ReplayRecording> recording = loader_(target_.session_id);
    if (!recording.ok()) return recording.status();
    absl::MutexLock lock(&mu_);
    recording_ = *std::move(recording);
    loaded_ = true;
    Index();
  }
  absl::MutexLock lock(&mu_);
  // What the device said before anything was sent plays from the open.
  for (const RecordedIo& io : recording_.records) {
    if (io.tx) break;
    output_.emplace(now + Scaled(io.at), io.bytes);
  }
  return absl::OkStatus();
}

ReplayedInstrument::Clock::duration ReplayedInstrument::Scaled(
    std::chrono::milliseconds recorded) const {
  if (target_.speed == 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(
      static_cast<double>(recorded.count()) / target_.speed));
}

void ReplayedInstrument::Receive(absl::string_view bytes, Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  if (!loaded_) return;
  partial_.append(bytes.data(), bytes.size());
  while (!partial_.empty()) {
    if (std::optional<size_t> match = FindMatch()) {
      partial_.erase(0, recording_.records[tx_[*match]].bytes.size());
      Play(*match, now);
    } else if (CouldStillMatch()) {
      return;
    } else {
      Diverge();
    }
  }
}

std::optional<size_t> ReplayedInstrument::FindMatch() const {
  if (target_.mode == ReplayMode::kStrict) {
    if (cursor_ < tx_.size() && PartialBeginsWith(cursor_)) return cursor_;
    return std::nullopt;
  }
  // Lenient: the next tx of this content after the cursor, else the first. A write that is
  // exactly one recorded tx (the usual case) is found without a scan.
  if (auto it = tx_by_bytes_.find(partial_); it != tx_by_bytes_.end()) {
    for (size_t index : it->second) {
      if (index >= cursor_) return index;
    }
    return it->second.front();
  }
  for (size_t offset = 0; offset < tx_.size(); ++offset) {
    const size_t index = (cursor_ + offset) % tx_.size();
    if (PartialBeginsWith(index)) return index;
  }
  return std::nullopt;
}

bool ReplayedInstrument::PartialBeginsWith(size_t index) const {
  return absl::StartsWith(partial_, recording_.records[tx_[index]].bytes);
}

bool ReplayedInstrument::PartialIsPrefixOf(size_t index) const {
  return absl::StartsWith(recording_.records[tx_[index]].bytes, partial_);
}

bool ReplayedInstrument::CouldStillMatch() const {
  if (target_.mode == ReplayMode::kStrict)
    return cursor_ < tx_.size() && PartialIsPrefixOf(cursor_);
  for (size_t index = 0; index < tx_.size(); ++index) {
    if (PartialIsPrefixOf(index)) return true;
  }
  return false;
}

void ReplayedInstrument::Play(size_t index, Clock::time_point now) {
  ++matched_;
  if (!tx_used_[index]) {
    tx_used_[index] = true;
    ++used_;
  }
  cursor_ = index + 1;
  const std::vector<RecordedIo>& records = recording_.records;
  const RecordedIo& tx = records[tx_[index]];
  for (size_t i = tx_[index] + 1; i < records.size() && !records[i].tx; ++i) {
    output_.emplace(now + Scaled(records[i].at - tx.at), records[i].bytes);
  }
}

void ReplayedInstrument::Diverge() {
  ReplayDivergence divergence;
  const size_t expected =
      target_.mode == ReplayMode::kLenient && cursor_ >= tx_.size() && !tx_.empty() ? 0 : cursor_;
  if (expected < tx_.size()) {
    const RecordedIo& tx = recording_.records[tx_[expected]];
    divergence.message_id = tx.message_id;
    divergence.expected = tx.bytes;
  }
  divergence.sent = std::move(partial_);
  partial_.clear();
  divergence.at = std::chrono::system_clock::now();
  ++divergence_count_;
  if (divergences_.size() < kKeptDivergences) divergences_.push_back(divergence);
  unreported_.push_back(std::move(divergence));
}

std::string ReplayedInstrument::TakeDue(Clock::time_point now) {
  absl::MutexLock lock(&mu_);
  std::string due;
  auto end = output_.upper_bound(now);
  for (auto it = output_.begin(); it != end; ++it) {
    due += it->second;
    ++rx_played_;
  }
  output_.erase(output_.begin(), end);
  return due;
}

std::optional<ReplayedInstrument::Clock::time_point> ReplayedInstrument::NextDue() const {
  absl::MutexLock lock(&mu_);
  if (output_.empty()) return std::nullopt;
  return output_.begin()->first;
}

ReplayProgress ReplayedInstrument::Progress() const {
  absl::MutexLock lock(&mu_);
  ReplayProgress progress;
  progress.target = target_;
  progress.loaded = loaded_;
  if (!progress.loaded) return progress;
  progress.matched = matched_;
  progress.total_tx = static_cast<int64_t>(tx_.size());
  progress.total_rx = recording_.rx_count;
  progress.rx_played = rx_played_;
  progress.divergences = divergences_;
  progress.divergence_count = divergence_count_;
  const bool all_tx = target_.mode == ReplayMode::kStrict
                          ? cursor_ >= tx_.size()
                          : used_ == static_cast<int64_t>(tx_.size());
  progress.finished = all_tx && output_.empty() && partial_.empty();
  return progress;
}

std::vector<ReplayDivergence> ReplayedInstrument::TakeUnreported() {
  absl::MutexLock lock(&mu_);
  return std::exchange(unreported_, {});
}

}  // namespace labgate::serial
