// ManagedPort's wait_for: searches the capture buffer as bytes arrive, on the port's worker
// (or, for a match already there, on the caller's thread in its place), so nothing else
// reads in between.
#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "serial-service/ports/managed_port.h"
#include "serial-service/ports/pattern_search.h"

namespace labgate::serial {
namespace {

// The transcript's line for a finished wait.
std::string WaitEvent(const WaitParams& params, const WaitResult& result) {
  if (result.matched) {
    return absl::StrCat("wait_for matched \"",
                        params.pattern_texts[static_cast<size_t>(result.pattern_index)],
                        "\" after ", result.latency_ms, " ms");
  }
  return absl::StrCat("wait_for timed out after ", result.latency_ms, " ms waiting for \"",
                      absl::StrJoin(params.pattern_texts, "\" or \""), "\"");
}

}  // namespace

void ManagedPort::WaitFor(WaitParams params, std::function<void(absl::StatusOr<WaitResult>)> done) {
  const auto started = std::chrono::steady_clock::now();
  bool finished = false;
  int64_t start_at = -1;  // where the search starts, in received_total_ terms
  worker_.TryRunInline([&] {
    worker_.AssertInPlace();
    start_at = params.from_new ? received_total_ : 0;
    std::optional<absl::StatusOr<WaitResult>> result =
        DoWaitFor(params, start_at, /*may_wait=*/false, started);
    if (!result.has_value()) return;
    finished = true;
    done(*std::move(result));
    WakeWorkerIfNeeded(/*wrote=*/false);
  });
  if (finished) return;
  worker_.Post([self = shared_from_this(), params = std::move(params), start_at, started,
                done = std::move(done)] {
    self->worker_.AssertInPlace();
    // Not tried inline (the worker was busy): "new" starts from what has arrived by now.
    const int64_t from = start_at >= 0 ? start_at : (params.from_new ? self->received_total_ : 0);
    done(*self->DoWaitFor(params, from, /*may_wait=*/true, started));
  });
}

std::optional<absl::StatusOr<WaitResult>> ManagedPort::DoWaitFor(
    const WaitParams& params, int64_t start_at, bool may_wait,
    std::chrono::steady_clock::time_point started) {
  const auto deadline = started + std::chrono::milliseconds(params.timeout_ms);
  for (bool first = true;; first = false) {
    if (absl::Status usable = CheckUsable(); !usable.ok()) return usable;
    // Bytes dropped from a full buffer are gone from the search too.
    const int64_t pending_begin = received_total_ - static_cast<int64_t>(pending_.size());
    const size_t from = static_cast<size_t>(std::max<int64_t>(0, start_at - pending_begin));
    const absl::string_view searched = absl::string_view(pending_).substr(from);
    std::optional<PatternMatch> found = FindEarliest(params.patterns, searched);
    const bool out_of_time = std::chrono::steady_clock::now() >= deadline;
    if (found.has_value() || (out_of_time && !first) || (out_of_time && params.timeout_ms == 0)) {
      WaitResult result;
      result.latency_ms = MsSince(started);
      size_t before_end = searched.size();
      if (found.has_value()) {
        result.matched = true;
        result.pattern_index = found->pattern_index;
        result.match = std::string(searched.substr(found->begin, found->end - found->begin));
        result.groups = std::move(found->groups);
        before_end = found->begin;
      } else {
        result.timed_out = true;
      }
      const size_t before_begin =
          before_end > params.max_before_bytes ? before_end - params.max_before_bytes : 0;
      result.before = std::string(searched.substr(before_begin, before_end - before_begin));
      result.before_truncated = before_begin > 0;
      const size_t consumed = found.has_value() ? from + found->end : 0;
      result.bytes_consumed = static_cast<int64_t>(consumed);
      Take(0, consumed, result.timed_out);
      // What arrived is recorded before the wait's own line, with the wait's latency.
      FlushHeld(result.latency_ms);
      Record("event", WaitEvent(params, result));
      return result;
    }
    if (!may_wait) {
      if (!first) return std::nullopt;
      absl::StatusOr<size_t> got = Receive(0);  // what the device already has
      if (!got.ok()) return got.status();
      if (*got == 0) return std::nullopt;
      continue;
    }
    if (close_requested_) {
      return absl::AbortedError(absl::StrCat("port ", name_, " was closed during wait_for"));
    }
    if (params.abandoned && params.abandoned()) {
      return absl::CancelledError(absl::StrCat("wait_for on ", name_, " was cancelled"));
    }
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now())
                             .count();
    // Rounded up so the last slice reaches the deadline instead of spinning short of it.
    absl::StatusOr<size_t> got = Receive(std::clamp<int64_t>(left + 1, 0, kReadSliceMs));
    if (!got.ok()) return got.status();
  }
}

}  // namespace labgate::serial
