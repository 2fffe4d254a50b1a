#include "serial-service/ports/managed_port.h"

#include <algorithm>
#include <chrono>
#include <optional>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "serial-service/ports/idle_close.h"
#include "serial-service/serial_metrics.h"
#include "serial-service/sim/replayed_instrument.h"

namespace labgate::serial {

std::shared_ptr<ManagedPort> ManagedPort::Create(std::string name, std::string owner,
                                                 std::unique_ptr<SerialPort> backend,
                                                 PortSettings settings, PortEnvironment env,
                                                 PortIdentity identity) {
  return std::shared_ptr<ManagedPort>(new ManagedPort(std::move(name), std::move(owner),
                                                      std::move(backend), std::move(settings),
                                                      std::move(env), std::move(identity)));
}

ManagedPort::ManagedPort(std::string name, std::string owner, std::unique_ptr<SerialPort> backend,
                         PortSettings settings, PortEnvironment env, PortIdentity identity)
    : name_(std::move(name)),
      owner_(std::move(owner)),
      instrument_(std::move(identity.instrument)),
      replay_(backend->replay()),
      env_(std::move(env)),
      backend_(std::move(backend)),
      settings_(std::move(settings)),
      device_path_(identity.device_path.empty() ? name_ : identity.device_path),
      // The idle hook may use `this`: worker_ is destroyed (and joined) before any other
      // member.
      worker_("serial-port", [this] {
        worker_.AssertInPlace();
        return Capture();
      }) {}

ManagedPort::~ManagedPort() {
  // A port is normally closed before it goes; if not, it is no longer open either way.
  absl::MutexLock lock(&mu_);
  if (state_ == PortState::kOpen) SerialMetrics::Get().open_ports.Get().Decrement();
}

PortState ManagedPort::state() const {
  absl::MutexLock lock(&mu_);
  return state_;
}

PortSnapshot ManagedPort::Snapshot() const {
  const int64_t now = env_.clock->NowMs();
  absl::MutexLock lock(&mu_);
  PortSnapshot snapshot;
  snapshot.state = state_;
  snapshot.settings = settings_;
  snapshot.bytes_read_total = bytes_read_total_;
  snapshot.bytes_written_total = bytes_written_total_;
  if (state_ == PortState::kOpen || state_ == PortState::kError) {
    snapshot.open_duration_ms = std::max<int64_t>(0, now - opened_at_ms_);
    snapshot.last_activity_ms = std::max<int64_t>(0, now - last_activity_at_ms_);
  }
  snapshot.timeout_streak = timeout_streak_;
  snapshot.capture_buffered_bytes = buffered_bytes_;
  snapshot.capture_dropped_bytes = dropped_bytes_;
  snapshot.backend = backend_name_;
  return snapshot;
}

void ManagedPort::Open(std::function<void(absl::Status)> done) {
  worker_.Post([self = shared_from_this(), done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoOpen());
  });
}

std::string ManagedPort::device_path() const {
  absl::MutexLock lock(&mu_);
  return device_path_;
}

void ManagedPort::Reattach(std::unique_ptr<SerialPort> backend, std::string device_path,
                           std::function<std::string()> before_open,
                           std::function<void(absl::Status)> done) {
  // The worker owns the backend; a shared pointer carries the new one there.
  auto carried = std::make_shared<std::unique_ptr<SerialPort>>(std::move(backend));
  worker_.Post([self = shared_from_this(), carried, device_path = std::move(device_path),
                before_open = std::move(before_open), done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoReattach(std::move(*carried), device_path, before_open));
  });
}

absl::Status ManagedPort::DoReattach(std::unique_ptr<SerialPort> backend,
                                     const std::string& device_path,
                                     const std::function<std::string()>& before_open) {
  PortSettings settings;
  {
    absl::MutexLock lock(&mu_);
    if (state_ != PortState::kError) {
      backend->Close();
      return absl::FailedPreconditionError(absl::StrCat("port ", name_, " is not lost"));
    }
    settings = settings_;
  }
  if (absl::Status configured = backend->Configure(settings); !configured.ok()) {
    backend->Close();
    return configured;
  }
  backend_ = std::move(backend);
  // While the port is still lost, no write can reach the device: what must hold before one
  // does is done now, and recorded before a write's own lines.
  const std::string note = before_open ? before_open() : std::string();
  const std::string back = "device back at " + device_path;
  Record("event", back);
  if (!note.empty()) Record("event", note);
  {
    absl::MutexLock lock(&mu_);
    state_ = PortState::kOpen;
    SerialMetrics::Get().open_ports.Get().Increment();
    backend_name_ = backend_->backend_name();
    device_path_ = device_path;
    last_activity_at_ms_ = env_.clock->NowMs();
  }
  opened_at_ = std::chrono::steady_clock::now();
  LG_LOG(kInfo) << "port " << name_ << ": " << back;
  Announce(PortEventRecord::Type::kOpened, "", back);
  return absl::OkStatus();
}

void ManagedPort::Reconfigure(PortSettings settings,
                              std::function<void(absl::StatusOr<PortSettings>)> done) {
  worker_.Post([self = shared_from_this(), settings = std::move(settings), done = std::move(done)] {
    self->worker_.AssertInPlace();
    done(self->DoReconfigure(settings));
  });
}

void ManagedPort::Write(std::string bytes, bool text_mode, int64_t timeout_ms,
                        std::function<void(absl::StatusOr<WriteResult>)> done) {
  // The device usually takes a short write at once: then it is done here, and only what
  // did not fit waits on the worker.
  int64_t written_inline = 0;
  bool inline_not_recorded = false;
  bool finished = false;
  const bool ran_inline = worker_.TryRunInline([&] {
    worker_.AssertInPlace();
    if (text_mode) AppendTerminator(&bytes);
    absl::StatusOr<WriteResult> wrote = DoWrite(bytes, /*timeout_ms=*/0);
    WakeWorkerIfNeeded(/*wrote=*/wrote.ok() && wrote->bytes_written > 0);
    if (!wrote.ok() || wrote->bytes_written == static_cast<int64_t>(bytes.size())) {
      finished = true;
      done(std::move(wrote));
      return;
    }
    written_inline = wrote->bytes_written;
    inline_not_recorded = wrote->not_recorded;
  });
  if (finished) return;
  bytes.erase(0, static_cast<size_t>(written_inline));
  // The terminator is added where the write starts, under the settings of that moment.
  const bool append_terminator = text_mode && !ran_inline;
  worker_.Post([self = shared_from_this(), bytes = std::move(bytes), append_terminator, timeout_ms,
                written_inline, inline_not_recorded, done = std::move(done)]() mutable {
    self->worker_.AssertInPlace();
    if (append_terminator) self->AppendTerminator(&bytes);
    absl::StatusOr<WriteResult> wrote =
        self->DoWrite(bytes, timeout_ms, /*starts_write=*/written_inline == 0);
    if (wrote.ok()) {
      wrote->bytes_written += written_inline;
      wrote->not_recorded = wrote->not_recorded || inline_not_recorded;
    }
    done(std::move(wrote));
  });
}

void ManagedPort::Read(ReadParams params, std::function<void(absl::StatusOr<ReadResult>)> done) {
  // A reply that has already arrived is returned here; only a read that must wait for
  // the device goes to the worker.
  const auto started = std::chrono::steady_clock::now();
  auto elapsed_ms = [started] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 started)
        .count();
  };
  bool finished = false;
  worker_.TryRunInline([&] {
    worker_.AssertInPlace();
    std::optional<absl::StatusOr<ReadResult>> result = DoRead(params, /*may_wait=*/false);
    if (!result.has_value()) return;  // the worker takes over, and captures after it
    finished = true;
    RecordReply(&*result, elapsed_ms(), nullptr);
    done(*std::move(result));
    WakeWorkerIfNeeded(/*wrote=*/false);
  });
  if (finished) return;
  worker_.Post([self = shared_from_this(), params, elapsed_ms, done = std::move(done)] {
    self->worker_.AssertInPlace();
    absl::StatusOr<ReadResult> result = *self->DoRead(params, /*may_wait=*/true);
    self->RecordReply(&result, elapsed_ms(), nullptr);
    done(std::move(result));
  });
}

void ManagedPort::Query(std::string bytes, bool text_mode, ReadParams params,
                        std::function<void(absl::StatusOr<QueryResult>)> done) {
  // With the worker idle the query starts on the caller's thread: a command the device
  // takes at once and a reply within kQueryInlineWaitMs need no thread hand-off. What is
  // left continues on the worker, posted before the attempt ends, so that no other call on
  // the port comes between the write and the read.
  const auto started = std::chrono::steady_clock::now();
  const bool ran_inline = worker_.TryRunInline([&] {
    worker_.AssertInPlace();
    if (text_mode) AppendTerminator(&bytes);
    absl::StatusOr<WriteResult> wrote = DoWrite(bytes, /*timeout_ms=*/0);
    if (!wrote.ok()) return done(wrote.status());
    QueryResult result;
    result.wrote = *wrote;
    const auto written = static_cast<size_t>(wrote->bytes_written);
    if (written == bytes.size()) {
      std::optional<absl::StatusOr<ReadResult>> reply =
          DoRead(params, /*may_wait=*/false, kQueryInlineWaitMs);
      if (reply.has_value()) {
        AnswerQuery(std::move(result), *std::move(reply), started, done);
        return WakeWorkerIfNeeded(/*wrote=*/false);
      }
    }
    worker_.Post([self = shared_from_this(), rest = bytes.substr(written),
                  starts_write = written == 0, result = std::move(result), params, started,
                  done = std::move(done)]() mutable {
      self->worker_.AssertInPlace();
      self->FinishQuery(rest, starts_write, std::move(result), params, started, done);
    });
  });
  if (ran_inline) return;
  worker_.Post([self = shared_from_this(), bytes = std::move(bytes), text_mode,
                params = std::move(params), started, done = std::move(done)]() mutable {
    self->worker_.AssertInPlace();
    if (text_mode) self->AppendTerminator(&bytes);
    self->FinishQuery(bytes, /*starts_write=*/true, QueryResult(), params, started, done);
  });
}

void ManagedPort::FinishQuery(const std::string& rest, bool starts_write, QueryResult so_far,
                              const ReadParams& params,
                              std::chrono::steady_clock::time_point started,
                              const std::function<void(absl::StatusOr<QueryResult>)>& done) {
  if (!rest.empty()) {
    absl::StatusOr<WriteResult> wrote = DoWrite(rest, params.timeout_ms, starts_write);
    if (!wrote.ok()) return done(wrote.status());
    so_far.wrote.bytes_written += wrote->bytes_written;
    so_far.wrote.not_recorded = so_far.wrote.not_recorded || wrote->not_recorded;
    if (wrote->bytes_written < static_cast<int64_t>(rest.size())) {
      ReadResult nothing;
      nothing.timed_out = true;  // the command did not go out in time: no reply to wait for
      return AnswerQuery(std::move(so_far), std::move(nothing), started, done);
    }
  }
  std::optional<absl::StatusOr<ReadResult>> reply = DoRead(params, /*may_wait=*/true);
  if (!reply.has_value())
    reply = absl::InternalError("a read that may wait came back without a result");
  AnswerQuery(std::move(so_far), *std::move(reply), started, done);
}

void ManagedPort::AnswerQuery(QueryResult result, absl::StatusOr<ReadResult> reply,
                              std::chrono::steady_clock::time_point started,
                              const std::function<void(absl::StatusOr<QueryResult>)>& done) {
  if (!reply.ok()) return done(reply.status());
  result.reply = *reply;
  result.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  RecordReply(&reply, result.latency_ms, "query timed out with no reply");
  result.not_recorded = result.wrote.not_recorded || reply->not_recorded;
  done(std::move(result));
}

void ManagedPort::Close(std::string reason, std::function<void(std::string)> done) {
  close_requested_ = true;  // a read in progress gives up within kReadSliceMs
  worker_.Post([self = shared_from_this(), reason = std::move(reason), done = std::move(done)] {
    self->worker_.AssertInPlace();
    std::string result = self->DoClose(reason);
    if (done) done(std::move(result));
  });
}

absl::Status ManagedPort::DoOpen() {
  PortSettings settings;
  {
    absl::MutexLock lock(&mu_);
    settings = settings_;
  }
  absl::Status status = backend_->Open();
  if (status.ok()) {
    status = backend_->Configure(settings);
    if (!status.ok()) backend_->Close();
  }
  if (!status.ok()) {
    {
      absl::MutexLock lock(&mu_);
      state_ = PortState::kClosed;
    }
    env_.on_closed(name_, this);
    return status;
  }
  {
    const int64_t now = env_.clock->NowMs();
    absl::MutexLock lock(&mu_);
    state_ = PortState::kOpen;
    SerialMetrics::Get().open_ports.Get().Increment();
    backend_name_ = backend_->backend_name();
    opened_at_ms_ = now;
    last_activity_at_ms_ = now;
  }
  opened_at_ = std::chrono::steady_clock::now();
  LG_LOG(kInfo) << "opened " << name_ << " for " << owner_ << " (" << backend_->backend_name()
                << ")";
  Publish(PortEventRecord::Type::kOpened);
  return absl::OkStatus();
}

absl::Status ManagedPort::CheckUsable() const {
  absl::MutexLock lock(&mu_);
  switch (state_) {
    case PortState::kOpen:
      return absl::OkStatus();
    case PortState::kError:
      return absl::UnavailableError(absl::StrCat("device disconnected: ", name_));
    case PortState::kOpening:
    case PortState::kClosed:
      break;
  }
  return absl::FailedPreconditionError(absl::StrCat("port ", name_, " is not open"));
}

absl::StatusOr<PortSettings> ManagedPort::DoReconfigure(const PortSettings& settings) {
  if (absl::Status usable = CheckUsable(); !usable.ok()) return usable;
  PortSettings previous;
  {
    absl::MutexLock lock(&mu_);
    previous = settings_;
  }
  if (absl::Status status = backend_->Configure(settings); !status.ok()) {
    if (absl::IsUnavailable(status)) {
      EnterError(status);
    } else {
      backend_->Configure(previous).IgnoreError();
    }
    return status;
  }
  FlushHeld();  // what arrived so far belongs to the session it arrived under
  if (previous.session_id != settings.session_id && !previous.session_id.empty()) {
    RecordTo(previous.session_id, "event",
             settings.session_id.empty()
                 ? std::string("recording stopped")
                 : absl::StrCat("recording moved to session ", settings.session_id),
             std::nullopt, std::chrono::system_clock::now());
  }
  {
    const int64_t now = env_.clock->NowMs();
    absl::MutexLock lock(&mu_);
    settings_ = settings;
    bytes_read_total_ = 0;
    bytes_written_total_ = 0;
    timeout_streak_ = 0;
    opened_at_ms_ = now;
    last_activity_at_ms_ = now;
  }
  Publish(PortEventRecord::Type::kReconfigured);
  return settings;
}

std::string ManagedPort::terminator() const {
  absl::MutexLock lock(&mu_);
  return settings_.terminator;
}

void ManagedPort::AppendTerminator(std::string* bytes) const {
  const std::string terminator = this->terminator();
  if (!terminator.empty() && !absl::EndsWith(*bytes, terminator)) *bytes += terminator;
}

bool ManagedPort::HasUnfinishedLine() const {
  if (env_.written_line == nullptr) return false;
  absl::MutexLock lock(&env_.written_line->mu);
  return !env_.written_line->line.empty();
}

absl::StatusOr<WriteResult> ManagedPort::DoWrite(const std::string& bytes, int64_t timeout_ms,
                                                 bool starts_write) {
  if (absl::Status usable = CheckUsable(); !usable.ok()) return usable;
  SharedWrittenLine* const line = env_.written_line.get();
  std::function<void()> once_sent;
  if (starts_write && line != nullptr && env_.write_gate) {
    absl::MutexLock lock(&line->mu);
    if (absl::Status allowed = env_.write_gate(*this, line->line, bytes, &once_sent);
        !allowed.ok()) {
      return allowed;
    }
  }
  absl::StatusOr<size_t> wrote = backend_->Write(bytes, timeout_ms);
  if (line != nullptr && wrote.ok() && *wrote > 0) {
    absl::MutexLock lock(&line->mu);
    line->line.Append(absl::string_view(bytes).substr(0, *wrote), starts_write);
  }
  if (once_sent && wrote.ok() && *wrote > 0) once_sent();
  if (!wrote.ok()) {
    if (absl::IsUnavailable(wrote.status())) EnterError(wrote.status());
    return wrote.status();
  }
  const int64_t now = env_.clock->NowMs();
  if (*wrote > 0) SerialMetrics::Get().bytes.With({"tx"}).Increment(*wrote);
  WriteResult result;
  {
    absl::MutexLock lock(&mu_);
    bytes_written_total_ += static_cast<int64_t>(*wrote);
    if (*wrote > 0) last_activity_at_ms_ = now;
    result.bytes_written = static_cast<int64_t>(*wrote);
    result.bytes_written_total = bytes_written_total_;
  }
  if (*wrote > 0) {
    result.not_recorded = !Record("tx", bytes.substr(0, *wrote));
    // Only subscribers that asked see writes; without any, the copy is not worth making.
    if (env_.hub->WantsTraffic(name_)) {
      Publish(PortEventRecord::Type::kWritten, bytes.substr(0, *wrote));
    }
  }
  if (replay_ != nullptr) {
    if (absl::Status diverged = ReportDivergences(); !diverged.ok()) return diverged;
  }
  return result;
}

absl::Status ManagedPort::ReportDivergences() {
  std::vector<ReplayDivergence> diverged = replay_->TakeUnreported();
  if (diverged.empty()) return absl::OkStatus();
  const std::string& session_id = replay_->target().session_id;
  std::string first;
  for (const ReplayDivergence& divergence : diverged) {
    std::string text =
        divergence.message_id == 0
            ? absl::StrCat("sent \"", absl::CHexEscape(divergence.sent),
                           "\" after every tx of session ", session_id, " was matched")
            : absl::StrCat("sent \"", absl::CHexEscape(divergence.sent), "\" where session ",
                           session_id, " has \"", absl::CHexEscape(divergence.expected),
                           "\" (message ", divergence.message_id, ")");
    Record("event", "replay divergence: " + text);
    if (first.empty()) first = std::move(text);
  }
  SerialMetrics::Get().replay_divergences.Get().Increment(static_cast<double>(diverged.size()));
  return absl::FailedPreconditionError(
      absl::StrCat("replay diverged: ", first,
                   diverged.size() > 1 ? absl::StrCat(" (and ", diverged.size() - 1, " more)") : "",
                   "; nothing answers it, and replay_status lists every divergence"));
}

absl::StatusOr<size_t> ManagedPort::Receive(int64_t timeout_ms, bool arrived_only) {
  char buffer[4096];
  absl::StatusOr<size_t> got = arrived_only ? backend_->ReadArrived(buffer, sizeof(buffer))
                                            : backend_->Read(buffer, sizeof(buffer), timeout_ms);
  if (!got.ok()) {
    EnterError(got.status());
    return got.status();
  }
  if (*got == 0) return got;
  SerialMetrics::Get().bytes.With({"rx"}).Increment(*got);
  pending_.append(buffer, *got);
  received_total_ += static_cast<int64_t>(*got);
  size_t dropped = 0;
  if (pending_.size() > env_.capture.buffer_bytes) {
    dropped = pending_.size() - env_.capture.buffer_bytes;
    pending_.erase(0, dropped);
    SerialMetrics::Get().capture_dropped.Get().Increment(static_cast<double>(dropped));
  }
  std::string session_id;
  {
    const int64_t now = env_.clock->NowMs();
    absl::MutexLock lock(&mu_);
    last_activity_at_ms_ = now;
    buffered_bytes_ = static_cast<int64_t>(pending_.size());
    dropped_bytes_ += static_cast<int64_t>(dropped);
    session_id = settings_.session_id;
  }
  // A bound port records the bytes as they arrive, held briefly so a stream makes few records.
  const bool was_holding = !held_rx_.empty() || dropped_unreported_ > 0;
  if (!session_id.empty()) {
    if (held_rx_.empty()) {
      held_session_ = session_id;
      held_since_ = std::chrono::system_clock::now();
    }
    held_rx_.append(buffer, *got);
  }
  dropped_unreported_ += static_cast<int64_t>(dropped);
  if (!was_holding && (!held_rx_.empty() || dropped_unreported_ > 0)) {
    flush_due_ = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(env_.capture.record_coalesce_ms);
  }
  if (held_rx_.size() >= kMaxHeldRxBytes) FlushHeld();
  Publish(PortEventRecord::Type::kData, std::string(buffer, *got));
  return got;
}

ReadResult ManagedPort::Take(size_t count, size_t consumed, bool timed_out) {
  ReadResult result;
  result.data = pending_.substr(0, count);
  pending_.erase(0, consumed);
  result.timed_out = timed_out;
  if (timed_out) SerialMetrics::Get().read_timeouts.Get().Increment();
  const int64_t now = env_.clock->NowMs();
  absl::MutexLock lock(&mu_);
  buffered_bytes_ = static_cast<int64_t>(pending_.size());
  bytes_read_total_ += static_cast<int64_t>(consumed);
  if (consumed > 0) last_activity_at_ms_ = now;
  if (timed_out) {
    ++timeout_streak_;
  } else {
    timeout_streak_ = 0;
  }
  result.bytes_read_total = bytes_read_total_;
  return result;
}

std::optional<absl::StatusOr<ReadResult>> ManagedPort::DoRead(const ReadParams& params,
                                                              bool may_wait,
                                                              int64_t brief_wait_ms) {
  if (absl::Status usable = CheckUsable(); !usable.ok()) return usable;
  std::optional<IdleClose> idle_close;
  std::string terminator;
  {
    const int64_t now = env_.clock->NowMs();
    absl::MutexLock lock(&mu_);
    idle_close = IdleClose::Due(settings_.idle_disconnect_ms, last_activity_at_ms_, now);
    terminator = settings_.terminator;
  }
  if (idle_close.has_value()) {
    // Closing a real device may wait for its output to drain: the worker's job.
    if (!may_wait) return std::nullopt;
    return AutoClose(*idle_close);
  }

  const size_t max = static_cast<size_t>(params.max_bytes);
  const bool until_terminator = (params.text_mode || params.keep_terminator) && !terminator.empty();
  const auto now = std::chrono::steady_clock::now();
  const auto deadline = now + std::chrono::milliseconds(params.timeout_ms);
  const auto brief_deadline =
      now + std::chrono::milliseconds(std::min(brief_wait_ms, params.timeout_ms));
  // Polled without sleeping: a reply this soon costs the caller no wake-up.
  const auto spin_deadline = std::min(brief_deadline, now + env_.query_reply_spin);
  for (bool first = true;; first = false) {
    if (until_terminator) {
      const size_t at = pending_.find(terminator);
      if (at != std::string::npos) {
        const size_t end = at + terminator.size();
        if (params.text_mode && at <= max) return Take(at, end, false);
        if (!params.text_mode && end <= max) return Take(end, end, false);
      }
      if (pending_.size() >= max) return Take(max, max, false);
    } else if (!pending_.empty()) {
      // Collect what else has already arrived; a failure shows on the next call.
      if (pending_.size() < max) Receive(0).IgnoreError();
      const size_t count = std::min(max, pending_.size());
      return Take(count, count, false);
    }
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(
                             deadline - std::chrono::steady_clock::now())
                             .count();
    if (left <= 0 && !first) break;
    if (!may_wait) {
      // What the device already has, or sends within the brief wait; anything more is the
      // worker's job.
      const int64_t brief_left_us = std::chrono::duration_cast<std::chrono::microseconds>(
                                        brief_deadline - std::chrono::steady_clock::now())
                                        .count();
      if (!first && brief_left_us <= 0) return std::nullopt;
      const bool spinning = std::chrono::steady_clock::now() < spin_deadline;
      absl::StatusOr<size_t> got =
          Receive(spinning ? 0 : (std::max<int64_t>(brief_left_us, 0) + 999) / 1000,
                  /*arrived_only=*/spinning);
      if (!got.ok()) return got.status();
      continue;
    }
    if (close_requested_) {
      return absl::AbortedError(absl::StrCat("port ", name_, " was closed during the read"));
    }
    if (params.abandoned && params.abandoned()) {
      return absl::CancelledError(absl::StrCat("the read on ", name_, " was cancelled"));
    }
    absl::StatusOr<size_t> got = Receive(std::clamp<int64_t>(left, 0, kReadSliceMs));
    if (!got.ok()) return got.status();
  }
  // Timed out. A text read keeps nothing back: an unterminated line is returned as is.
  const size_t count = until_terminator ? std::min(max, pending_.size()) : 0;
  return Take(count, count, true);
}

ReadResult ManagedPort::AutoClose(const IdleClose& idle_close) {
  CloseBackend(PortState::kClosed);
  SerialMetrics::Get().auto_closes.Get().Increment();
  ReadResult result;
  result.auto_closed = true;
  result.idle_ms = idle_close.idle_disconnect_ms;
  result.idle_close_count = env_.count_idle_close(name_);
  {
    absl::MutexLock lock(&mu_);
    result.bytes_read_total = bytes_read_total_;
  }
  LG_LOG(kInfo) << "auto-closed idle port " << name_ << " after " << idle_close.idle_for_ms
                << " ms";
  env_.hub->Publish(idle_close.Event(name_, result.idle_close_count));
  Record("event", idle_close.TranscriptLine());
  env_.on_closed(name_, this);
  return result;
}

std::string ManagedPort::DoClose(const std::string& reason) {
  {
    absl::MutexLock lock(&mu_);
    if (state_ == PortState::kClosed) return "already closed";
  }
  CloseBackend(PortState::kClosed);
  LG_LOG(kInfo) << "closed " << name_ << " (" << reason << ")";
  Publish(PortEventRecord::Type::kClosed, "", reason);
  env_.on_closed(name_, this);
  return "closed";
}

void ManagedPort::EnterError(const absl::Status& cause) {
  LG_LOG(kWarning) << "port " << name_ << " lost its device: " << std::string(cause.message());
  SerialMetrics::Get().devices_lost.Get().Increment();
  CloseBackend(PortState::kError);
  Publish(PortEventRecord::Type::kError, "", "device disconnected");
}

void ManagedPort::CloseBackend(PortState new_state) {
  backend_->Close();
  // A read that is returning data when the device goes keeps what it has.
  if (new_state == PortState::kClosed) pending_.clear();
  absl::MutexLock lock(&mu_);
  buffered_bytes_ = static_cast<int64_t>(pending_.size());
  if (state_ == PortState::kOpen) SerialMetrics::Get().open_ports.Get().Decrement();
  state_ = new_state;
}

IdleWait ManagedPort::Capture() {
  IdleWait wait;
  bool open;
  {
    absl::MutexLock lock(&mu_);
    open = state_ == PortState::kOpen;
  }
  const auto settled = opened_at_ + kOpenSettle;
  if (open && std::chrono::steady_clock::now() < settled) {
    wait.timeout_ms =
        std::chrono::ceil<std::chrono::milliseconds>(settled - std::chrono::steady_clock::now())
            .count();
    open = false;  // not yet: look again once the port has settled
  }
  if (open) {
    // Take what has arrived, but leave room for queued calls: a port that is still
    // talking brings the hook straight back.
    bool more = false;
    for (int round = 0; round < 16 && open; ++round) {
      absl::StatusOr<size_t> got = Receive(0);
      open = got.ok();
      if (open && *got == 0) break;
      more = open && round == 15;
    }
    if (open) {
      wait.fd = backend_->ReadableFd();
      if (more) {
        wait.timeout_ms = 0;
      } else if (wait.fd < 0 && env_.hub->HasSubscribers(name_)) {
        wait.timeout_ms = env_.poll_period_ms;
      }
    }
  }
  const int64_t flush_in = FlushHeldIfDue();
  if (flush_in >= 0 && (wait.timeout_ms < 0 || flush_in < wait.timeout_ms)) {
    wait.timeout_ms = flush_in;
  }
  worker_looks_at_ = wait.timeout_ms < 0 ? std::chrono::steady_clock::time_point::max()
                                         : std::chrono::steady_clock::now() +
                                               std::chrono::milliseconds(wait.timeout_ms);
  return wait;
}

void ManagedPort::WakeWorkerIfNeeded(bool wrote) {
  const bool holding = !held_rx_.empty() || dropped_unreported_ > 0;
  // A backend without a descriptor may hold the reply to what was just written.
  const bool undrained = wrote && backend_->ReadableFd() < 0;
  if ((holding && worker_looks_at_ > flush_due_) || undrained) {
    worker_looks_at_ = std::chrono::steady_clock::now();
    worker_.Wake();
  }
}

int64_t ManagedPort::FlushHeldIfDue() {
  if (held_rx_.empty() && dropped_unreported_ == 0) return -1;
  const auto now = std::chrono::steady_clock::now();
  if (now >= flush_due_) {
    FlushHeld();
    return -1;
  }
  return (std::chrono::duration_cast<std::chrono::microseconds>(flush_due_ - now).count() + 999) /
         1000;
}

bool ManagedPort::FlushHeld(std::optional<int64_t> latency_ms) {
  bool recorded = true;
  if (!held_rx_.empty()) {
    recorded = RecordTo(held_session_, "rx", std::move(held_rx_), latency_ms, held_since_);
    held_rx_.clear();
  }
  if (dropped_unreported_ > 0) {
    const int64_t dropped = dropped_unreported_;
    dropped_unreported_ = 0;
    // Logged at most every kDropLogPeriod: a port nobody reads overflows all the time.
    dropped_since_log_ += dropped;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_drop_log_ >= kDropLogPeriod) {
      LG_LOG(kWarning) << "port " << name_ << ": capture buffer full, " << dropped_since_log_
                       << " unread bytes dropped (status shows the total)";
      last_drop_log_ = now;
      dropped_since_log_ = 0;
    }
    std::string session_id;
    {
      absl::MutexLock lock(&mu_);
      session_id = settings_.session_id;
    }
    if (!session_id.empty()) {
      RecordTo(session_id, "event",
               absl::StrCat("capture buffer full: ", dropped,
                            " unread bytes dropped (recorded above as they arrived)"),
               std::nullopt, std::chrono::system_clock::now());
    }
  }
  return recorded;
}

void ManagedPort::Announce(PortEventRecord::Type type, std::string data, std::string reason) {
  PortEventRecord event;
  event.type = type;
  event.port_name = name_;
  event.data = std::move(data);
  event.reason = std::move(reason);
  env_.hub->Publish(event);
}

void ManagedPort::Publish(PortEventRecord::Type type, std::string data, const std::string& reason) {
  Announce(type, std::move(data), reason);
  switch (type) {
    case PortEventRecord::Type::kOpened: {
      PortSettings settings;
      {
        absl::MutexLock lock(&mu_);
        settings = settings_;
      }
      // A device that came back says where; a first open, how it was opened.
      Record("event", !reason.empty()
                          ? reason
                          : absl::StrCat("opened at ", settings.baud_rate, " baud for ", owner_));
      break;
    }
    case PortEventRecord::Type::kClosed:
      Record("event", absl::StrCat("closed: ", reason));
      break;
    case PortEventRecord::Type::kError:
      Record("event", "device lost: " + reason);
      break;
    case PortEventRecord::Type::kReconfigured: {
      PortSettings settings;
      {
        absl::MutexLock lock(&mu_);
        settings = settings_;
      }
      Record("event", absl::StrCat("reconfigured: ", settings.baud_rate, " baud"));
      break;
    }
    default:
      break;
  }
}

bool ManagedPort::Record(const std::string& direction, std::string bytes) {
  const auto now = std::chrono::system_clock::now();
  const bool held_recorded = FlushHeld();
  std::string session_id;
  {
    absl::MutexLock lock(&mu_);
    session_id = settings_.session_id;
  }
  if (session_id.empty()) return held_recorded;
  return RecordTo(session_id, direction, std::move(bytes), std::nullopt, now) && held_recorded;
}

void ManagedPort::RecordEvent(std::string text) {
  std::string session_id;
  {
    absl::MutexLock lock(&mu_);
    session_id = settings_.session_id;
  }
  if (session_id.empty()) return;
  RecordTo(session_id, "event", std::move(text), std::nullopt, std::chrono::system_clock::now());
}

bool ManagedPort::RecordTo(const std::string& session_id, const std::string& direction,
                           std::string bytes, std::optional<int64_t> latency_ms,
                           std::chrono::system_clock::time_point occurred_at) {
  if (env_.recorder == nullptr) return false;
  return env_.recorder->Enqueue(
      {session_id, name_, direction, std::move(bytes), latency_ms, occurred_at});
}

void ManagedPort::RecordReply(absl::StatusOr<ReadResult>* result, int64_t latency_ms,
                              const char* silent_event) {
  if (!result->ok() || (*result)->auto_closed) return;
  if (!(*result)->data.empty()) {
    // The bytes were held as they arrived; a reply records them now, with its latency.
    (*result)->not_recorded = !FlushHeld(latency_ms);
  } else if (silent_event != nullptr) {
    FlushHeld();
    std::string session_id;
    {
      absl::MutexLock lock(&mu_);
      session_id = settings_.session_id;
    }
    if (!session_id.empty()) {
      (*result)->not_recorded = !RecordTo(session_id, "event", silent_event, latency_ms,
                                          std::chrono::system_clock::now());
    }
  }
}

}  // namespace labgate::serial
