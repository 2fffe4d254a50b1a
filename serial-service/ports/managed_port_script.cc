// ManagedPort's send_expect scripts: sends, waits, pauses and line changes run one after
// another on the port's worker, so no other call's I/O comes between them.
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "serial-service/ports/managed_port.h"

namespace labgate::serial {
void ManagedPort::RunScript(ScriptParams params,
                            std::function<void(absl::StatusOr<ScriptResult>)> done) {
  worker_.Post([self = shared_from_this(), params = std::move(params), done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoRunScript(params));
  });
}

absl::StatusOr<ScriptResult> ManagedPort::DoRunScript(const ScriptParams& params) {
  const auto started = std::chrono::steady_clock::now();
  ScriptResult result;
  auto stopped = [&]() -> absl::Status {
    if (close_requested_) {
      return absl::AbortedError(absl::StrCat("port ", name_, " was closed during send_expect"));
    }
    if (params.abandoned && params.abandoned()) {
      return absl::CancelledError(absl::StrCat("send_expect on ", name_, " was cancelled"));
    }
    return absl::OkStatus();
  };
  for (size_t i = 0; i < params.steps.size(); ++i) {
    if (absl::Status status = stopped(); !status.ok()) return status;
    const ScriptStep& step = params.steps[i];
    const auto step_started = std::chrono::steady_clock::now();
    StepOutcome outcome;
    outcome.kind = step.kind;
    bool failed = false;
    switch (step.kind) {
      case ScriptStep::Kind::kSend: {
        std::string bytes = step.bytes;
        if (step.text_mode) AppendTerminator(&bytes);
        absl::StatusOr<WriteResult> wrote = DoWrite(bytes, params.write_timeout_ms);
        if (!wrote.ok()) return wrote.status();
        outcome.bytes_written = wrote->bytes_written;
        failed = wrote->bytes_written < static_cast<int64_t>(bytes.size());
        break;
      }
      case ScriptStep::Kind::kExpect: {
        WaitParams wait = step.expect;
        wait.abandoned = params.abandoned;
        std::optional<absl::StatusOr<WaitResult>> waited =
            DoWaitFor(wait, /*start_at=*/0, /*may_wait=*/true, step_started);
        if (!waited->ok()) return waited->status();
        outcome.wait = **std::move(waited);
        failed = outcome.wait.timed_out;
        break;
      }
      case ScriptStep::Kind::kDelay: {
        // In slices, so a cancelled script or a closing port does not wait it out.
        const auto until = step_started + std::chrono::milliseconds(step.ms);
        while (std::chrono::steady_clock::now() < until) {
          if (absl::Status status = stopped(); !status.ok()) return status;
          std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
              until - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
        }
        break;
      }
      case ScriptStep::Kind::kSignal: {
        absl::StatusOr<ModemSignals> lines =
            step.ms > 0 ? DoPulse(step.dtr, step.level, step.ms)
                        : DoSetLines(step.dtr ? std::optional<bool>(step.level) : std::nullopt,
                                     step.dtr ? std::nullopt : std::optional<bool>(step.level));
        if (!lines.ok()) return lines.status();
        outcome.lines = *lines;
        break;
      }
    }
    outcome.latency_ms = MsSince(step_started);
    result.steps.push_back(std::move(outcome));
    if (failed && result.failed_step < 0) result.failed_step = static_cast<int>(i);
    if (failed && params.stop_on_timeout) break;
  }
  result.completed = result.steps.size() == params.steps.size();
  result.latency_ms = MsSince(started);
  Record("event", result.failed_step < 0 ? absl::StrCat("send_expect: ", result.steps.size(),
                                                        " steps done in ", result.latency_ms, " ms")
                                         : absl::StrCat("send_expect: step ", result.failed_step,
                                                        " timed out; ", result.steps.size(), " of ",
                                                        params.steps.size(), " steps ran"));
  return result;
}

}  // namespace labgate::serial
