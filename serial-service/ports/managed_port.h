// One open port: its backend, settings, metrics and worker thread. Device calls that
// may block run on the worker. Between calls the worker captures: it sleeps on the
// device and takes bytes as they arrive into the capture buffer that reads consume, and a
// bound port records them then, with their arrival time. A write the device takes at once, or a
// read whose data has already arrived, runs on the caller's thread in the idle worker's place (see
// PortWorker::TryRunInline); so `done` runs either there, before the call returns, or on
// the worker. Status and metrics are answered from a snapshot without waiting behind a
// blocked read.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/byte_pattern.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/ports/capture_options.h"
#include "serial-service/ports/clock.h"
#include "serial-service/ports/event_hub.h"
#include "serial-service/ports/idle_close.h"
#include "serial-service/ports/port_worker.h"
#include "serial-service/ports/written_line.h"
#include "serial-service/recording/session_recorder.h"

namespace labgate::serial {

enum class PortState { kOpening, kOpen, kError, kClosed };

// Largest write and read per call.
inline constexpr int64_t kMaxTransferBytes = 64 * 1024;

struct ReadParams {
  int64_t max_bytes = 1024;
  int64_t timeout_ms = 1000;
  // Text reads stop at the terminator and strip it; binary reads return raw bytes.
  bool text_mode = true;
  // A binary read that stops at the terminator and keeps it (query's hex/base64 replies).
  bool keep_terminator = false;
  // True once the caller has gone (e.g. its gRPC call was cancelled): a blocked read
  // then gives up within kReadSliceMs, so the port's worker is free again.
  std::function<bool()> abandoned;
};

struct ReadResult {
  std::string data;
  int64_t bytes_read_total = 0;
  bool timed_out = false;
  // The read found the port idle past idle_disconnect_ms and closed it instead.
  bool auto_closed = false;
  int64_t idle_ms = 0;
  int64_t idle_close_count = 0;
  // The port is bound to a session and this I/O could not be queued for the record.
  bool not_recorded = false;
};

struct WriteResult {
  int64_t bytes_written = 0;
  int64_t bytes_written_total = 0;
  bool not_recorded = false;  // as in ReadResult
};

// A number an instrument's profile finds in a reply ("voltage", 4.9, "V").
struct ReplyReading {
  std::string name;
  double value = 0;
  std::string unit;
};

struct QueryResult {
  WriteResult wrote;
  // Empty and timed out when the write did not complete within the timeout.
  ReadResult reply;
  int64_t latency_ms = 0;
  bool not_recorded = false;           // the write's or the reply's record was lost
  std::vector<ReplyReading> readings;  // an instrument's: what its profile reads in the reply
};

struct WaitParams {
  std::vector<CompiledPattern> patterns;   // 1 to kMaxWaitPatterns
  std::vector<std::string> pattern_texts;  // as given, for the transcript
  int64_t timeout_ms = 1000;
  // Search only bytes that arrive after the call starts (those before it are still consumed
  // when a later match is found).
  bool from_new = false;
  // Most bytes of `before` returned: the last ones.
  size_t max_before_bytes = 4096;
  std::function<bool()> abandoned;  // as in ReadParams
};

struct WaitResult {
  bool matched = false;
  int pattern_index = -1;
  std::string match;
  std::vector<std::string> groups;
  std::string before;  // what came between the start and the match (on time-out: all of it)
  bool before_truncated = false;
  int64_t bytes_consumed = 0;
  bool timed_out = false;
  int64_t latency_ms = 0;
};

// One step of a send_expect script: exactly one of send, expect, delay and signal.
struct ScriptStep {
  enum class Kind { kSend, kExpect, kDelay, kSignal };
  Kind kind = Kind::kSend;
  std::string bytes;      // kSend: as write takes them
  bool text_mode = true;  // kSend: the port's terminator is appended
  WaitParams expect;      // kExpect (its `abandoned` is the script's)
  int64_t ms = 0;         // kDelay: the pause; kSignal: the pulse (0: the line is set and stays)
  bool dtr = true;        // kSignal: DTR, else RTS
  bool level = false;     // kSignal
};

struct ScriptParams {
  std::vector<ScriptStep> steps;
  bool stop_on_timeout = true;
  int64_t write_timeout_ms = 1000;
  std::function<bool()> abandoned;
};

struct StepOutcome {
  ScriptStep::Kind kind = ScriptStep::Kind::kSend;
  int64_t bytes_written = 0;  // kSend
  WaitResult wait;            // kExpect
  ModemSignals lines;         // kSignal: the lines afterwards
  int64_t latency_ms = 0;
};

struct ScriptResult {
  std::vector<StepOutcome> steps;  // those that ran, in order
  bool completed = false;          // every step ran
  int failed_step = -1;            // the first expect that timed out (or send that stalled)
  int64_t latency_ms = 0;
};

struct PortSnapshot {
  PortState state = PortState::kClosed;
  PortSettings settings;
  int64_t bytes_read_total = 0;
  int64_t bytes_written_total = 0;
  int64_t open_duration_ms = 0;
  int64_t last_activity_ms = 0;
  int64_t timeout_streak = 0;
  int64_t capture_buffered_bytes = 0;  // received, not yet read
  int64_t capture_dropped_bytes = 0;   // dropped unread since opening: the buffer was full
  std::string backend;                 // the backend's name once the port has opened
};

class ManagedPort;

// What a port needs from the service around it.
struct PortEnvironment {
  Clock* clock = nullptr;
  EventHub* hub = nullptr;
  // Called on the worker once the port has closed (or failed to open), so the
  // registry can drop it.
  std::function<void(const std::string& name, const void* port)> on_closed;
  // Counts an idle auto-close of `name` and returns its new total.
  std::function<int64_t(const std::string& name)> count_idle_close;
  // How often the worker polls a backend without a descriptor (see SerialPort::ReadableFd)
  // while the port has subscribers.
  int poll_period_ms = 10;
  CaptureOptions capture;
  // Where I/O of a port bound to a session is recorded; null: nowhere.
  SessionRecorder* recorder = nullptr;
  // How long a query's inline wait polls the device for the reply before it sleeps in
  // poll(): a reply within this time costs no wake-up. Bounded by kQueryInlineWaitMs.
  std::chrono::microseconds query_reply_spin{0};
  // What the device was sent since its last line terminator; null: not followed.
  std::shared_ptr<SharedWrittenLine> written_line;
  // Asked in the worker's place before each write starts, so writes are judged in the order
  // the device gets them: whether `bytes` may go, after what `line` holds. A refusal fails the
  // write with nothing sent. What it leaves in `once_sent` runs once the write's first bytes
  // went out (the instrument's values are then the ones it set). Null: any write may go.
  std::function<absl::Status(ManagedPort& port, const WrittenLine& line, absl::string_view bytes,
                             std::function<void()>* once_sent)>
      write_gate;
};

// Which device a port is: its path, and the named instrument it is opened as (empty: none).
// An instrument's port is called by the instrument's name, and its path may change when the
// device comes back under another name (Reattach).
struct PortIdentity {
  std::string device_path;  // empty: the port's name is its path
  std::string instrument;
};

class ManagedPort : public std::enable_shared_from_this<ManagedPort> {
 public:
  // A blocked read checks this often whether the port is being closed.
  static constexpr int64_t kReadSliceMs = 100;
  // How long a query started on the caller's thread waits there for the reply before the
  // worker takes over. Short: the caller is one of gRPC's callback threads.
  static constexpr int64_t kQueryInlineWaitMs = 1;

  static std::shared_ptr<ManagedPort> Create(std::string name, std::string owner,
                                             std::unique_ptr<SerialPort> backend,
                                             PortSettings settings, PortEnvironment env,
                                             PortIdentity identity = {});
  ~ManagedPort();

  const std::string& name() const { return name_; }
  const std::string& owner() const { return owner_; }
  const std::string& instrument() const { return instrument_; }
  std::string device_path() const ABSL_LOCKS_EXCLUDED(mu_);
  // The recording a replay:// port plays (null for others): replay_status reads it, and a
  // write it did not expect fails with the divergence.
  const std::shared_ptr<ReplayedInstrument>& replay() const { return replay_; }
  PortSnapshot Snapshot() const;
  // The terminator of the moment (a reconfigure may change it).
  std::string terminator() const;
  PortState state() const;

  void Open(std::function<void(absl::Status)> done);
  void Reconfigure(PortSettings settings, std::function<void(absl::StatusOr<PortSettings>)> done);
  // Text writes get the terminator appended when missing.
  void Write(std::string bytes, bool text_mode, int64_t timeout_ms,
             std::function<void(absl::StatusOr<WriteResult>)> done);
  void Read(ReadParams params, std::function<void(absl::StatusOr<ReadResult>)> done);
  // A write and then a read, with nothing else on the port in between.
  void Query(std::string bytes, bool text_mode, ReadParams params,
             std::function<void(absl::StatusOr<QueryResult>)> done);
  // Waits until one of `params.patterns` matches the captured bytes (managed_port_wait.cc),
  // then consumes them through the match; a time-out consumes nothing. Runs as a read does,
  // with nothing else on the port meanwhile, and is recorded as an event.
  void WaitFor(WaitParams params, std::function<void(absl::StatusOr<WaitResult>)> done);
  // Runs a send_expect script (managed_port_script.cc) on the worker, with nothing else on the
  // port in between. Each step is recorded as its own kind is (tx, wait_for events, line
  // changes), and the end of the script as an event.
  void RunScript(ScriptParams params, std::function<void(absl::StatusOr<ScriptResult>)> done);
  // Records a policy decision about this port in its bound session, if any. Any thread: a
  // decision has no place in the I/O order, so held rx is not recorded before it.
  void RecordEvent(std::string text) ABSL_LOCKS_EXCLUDED(mu_);

  // The control lines (managed_port_lines.cc), run on the worker between other I/O. Each
  // change is recorded as an event ("DTR high", "RTS low for 100 ms", "break for 250 ms"),
  // and `done` gets the lines as they are afterwards.
  void GetSignals(std::function<void(absl::StatusOr<ModemSignals>)> done);
  void SetSignals(std::optional<bool> dtr, std::optional<bool> rts,
                  std::function<void(absl::StatusOr<ModemSignals>)> done);
  // Takes DTR (`dtr`) or RTS to `level` for `ms`, then back to the level it had.
  void PulseSignal(bool dtr, bool level, int64_t ms,
                   std::function<void(absl::StatusOr<ModemSignals>)> done);
  void SendBreak(int64_t ms, std::function<void(absl::StatusOr<ModemSignals>)> done);
  // Whether the device was sent part of a line and not yet its terminator (see WrittenLine).
  bool HasUnfinishedLine() const;
  const std::shared_ptr<SharedWrittenLine>& written_line() const { return env_.written_line; }
  // A subscriber arrived: a backend without a descriptor is polled for it from now on.
  void WakeForSubscribers() { worker_.Wake(); }
  // `done` gets "closed" or "already closed". A read in progress on the port ends
  // with ABORTED within kReadSliceMs instead of running out its timeout.
  void Close(std::string reason, std::function<void(std::string)> done);
  // A lost port (kError) takes `backend`, already open on the device that came back at
  // `device_path`, configures it with the port's settings, and is open again with its owner,
  // session binding and capture buffer as they were; "device back at PATH" is recorded.
  // `before_open` runs once the device is configured and before any write can reach it; a
  // line it returns is recorded after "device back at PATH".
  // FAILED_PRECONDITION when the port is not lost (e.g. it was closed meanwhile).
  void Reattach(std::unique_ptr<SerialPort> backend, std::string device_path,
                std::function<std::string()> before_open, std::function<void(absl::Status)> done);

 private:
  ManagedPort(std::string name, std::string owner, std::unique_ptr<SerialPort> backend,
              PortSettings settings, PortEnvironment env, PortIdentity identity);
  absl::Status DoReattach(std::unique_ptr<SerialPort> backend, const std::string& device_path,
                          const std::function<std::string()>& before_open)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);

  // The Do* methods, and everything that touches the device or pending_, run in the
  // worker's place (a task, the idle hook, or an inline attempt).
  absl::Status DoOpen() ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<PortSettings> DoReconfigure(const PortSettings& settings)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  void AppendTerminator(std::string* bytes) const ABSL_LOCKS_EXCLUDED(mu_);
  // A timeout of 0 writes only what the device takes at once. `starts_write`: `bytes` begin a
  // write (the write gate is asked), rather than being what is left of one begun earlier.
  absl::StatusOr<WriteResult> DoWrite(const std::string& bytes, int64_t timeout_ms,
                                      bool starts_write = true)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Without `may_wait`, nullopt when the read would have to wait for the device longer
  // than `brief_wait_ms` (0: what has already arrived); what did arrive stays pending.
  std::optional<absl::StatusOr<ReadResult>> DoRead(const ReadParams& params, bool may_wait,
                                                   int64_t brief_wait_ms = 0)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // The part of a query that may block: writes `rest` (what an inline attempt left of the
  // command, or all of it: `starts_write`), then waits for the reply, and answers with `so_far`
  // completed.
  void FinishQuery(const std::string& rest, bool starts_write, QueryResult so_far,
                   const ReadParams& params, std::chrono::steady_clock::time_point started,
                   const std::function<void(absl::StatusOr<QueryResult>)>& done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Answers a query whose write and read are done.
  void AnswerQuery(QueryResult result, absl::StatusOr<ReadResult> reply,
                   std::chrono::steady_clock::time_point started,
                   const std::function<void(absl::StatusOr<QueryResult>)>& done)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  std::string DoClose(const std::string& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Closes the port that a read found idle (see IdleClose) and answers the read.
  ReadResult AutoClose(const IdleClose& idle_close) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_)
      ABSL_LOCKS_EXCLUDED(mu_);
  // The worker's idle hook: takes what has arrived, records what is due, and says what to
  // sleep on next.
  IdleWait Capture() ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Records the held rx bytes (with `latency_ms`, for a reply) and reports dropped bytes.
  // True when recorded or when nothing needed recording.
  bool FlushHeld(std::optional<int64_t> latency_ms = std::nullopt)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Flushes when the coalescing period is over; otherwise the ms until it is (-1: nothing held).
  int64_t FlushHeldIfDue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // At the end of an inline attempt: wakes the worker if something held would otherwise wait
  // past its due time, or a backend without a descriptor may have bytes to capture.
  void WakeWorkerIfNeeded(bool wrote) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_);

  absl::Status CheckUsable() const ABSL_LOCKS_EXCLUDED(mu_);
  // wait_for's search: a result once a pattern matches or the time is up (or the caller
  // went, or the port closed); without `may_wait`, nullopt when it would have to wait.
  std::optional<absl::StatusOr<WaitResult>> DoWaitFor(const WaitParams& params, int64_t start_at,
                                                      bool may_wait,
                                                      std::chrono::steady_clock::time_point started)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Runs `change` on the backend (on the worker), notes a lost device, records `event`
  // when it succeeded, and reads the lines back.
  absl::StatusOr<ModemSignals> ChangeLines(const std::function<absl::Status()>& change,
                                           const std::string& event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<ScriptResult> DoRunScript(const ScriptParams& params)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // The line changes of SetSignals and PulseSignal, in the worker's place.
  absl::StatusOr<ModemSignals> DoSetLines(std::optional<bool> dtr, std::optional<bool> rts)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<ModemSignals> DoPulse(bool dtr, bool level, int64_t ms)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Reads once from the device into pending_; false with `status` on failure. With
  // `arrived_only`, takes what has arrived without waiting at all (SerialPort::ReadArrived).
  absl::StatusOr<size_t> Receive(int64_t timeout_ms, bool arrived_only = false)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  void EnterError(const absl::Status& cause) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_)
      ABSL_LOCKS_EXCLUDED(mu_);
  void CloseBackend(PortState new_state) ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_)
      ABSL_LOCKS_EXCLUDED(mu_);
  void Publish(PortEventRecord::Type type, std::string data = "", const std::string& reason = "")
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // To the port's subscribers only; Publish also records the event in the transcript.
  void Announce(PortEventRecord::Type type, std::string data, std::string reason)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_);
  ReadResult Take(size_t count, size_t consumed, bool timed_out)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // Records a write or an event of a bound port, after the rx held so far, so the record
  // keeps I/O order. True when recorded or when the port is not bound.
  bool Record(const std::string& direction, std::string bytes)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  // After a write to a replay:// port: the divergences it caused, recorded as events, as the
  // write's error; OK when there were none.
  absl::Status ReportDivergences() ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_) ABSL_LOCKS_EXCLUDED(mu_);
  bool RecordTo(const std::string& session_id, const std::string& direction, std::string bytes,
                std::optional<int64_t> latency_ms,
                std::chrono::system_clock::time_point occurred_at);
  // Records what a read or query returned: the held bytes, now, with the latency.
  void RecordReply(absl::StatusOr<ReadResult>* result, int64_t latency_ms, const char* silent_event)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(worker_);

  const std::string name_;
  const std::string owner_;
  const std::string instrument_;
  const std::shared_ptr<ReplayedInstrument> replay_;
  const PortEnvironment env_;
  std::unique_ptr<SerialPort> backend_ ABSL_GUARDED_BY(worker_);
  std::string pending_ ABSL_GUARDED_BY(worker_);  // the capture buffer: received, not yet read
  // Every byte ever received; pending_ holds the last pending_.size() of them.
  int64_t received_total_ ABSL_GUARDED_BY(worker_) = 0;
  // Received bytes of a bound port not yet recorded, for the session they arrived under.
  std::string held_rx_ ABSL_GUARDED_BY(worker_);
  std::string held_session_ ABSL_GUARDED_BY(worker_);
  std::chrono::system_clock::time_point held_since_ ABSL_GUARDED_BY(worker_);
  int64_t dropped_unreported_ ABSL_GUARDED_BY(worker_) = 0;
  // Held rx is recorded at once when it reaches this size: a stream at a pty's full rate
  // (tens of MB/s) would otherwise make 20 ms records larger than the session service takes
  // (1 MiB of content, and base64 adds a third).
  static constexpr size_t kMaxHeldRxBytes = 256 * 1024;
  // When what is held must be recorded, and when the worker will next look (max: never).
  std::chrono::steady_clock::time_point flush_due_ ABSL_GUARDED_BY(worker_);
  std::chrono::steady_clock::time_point worker_looks_at_ ABSL_GUARDED_BY(worker_);
  // Capture starts this long after the port opens: a tty that was just closed and opened again
  // (as TtyPort does when libserialport refuses it) can report a passing hang-up meanwhile.
  // Calls read the device themselves in the meantime; what arrives waits in the kernel.
  static constexpr std::chrono::milliseconds kOpenSettle{50};
  std::chrono::steady_clock::time_point opened_at_ ABSL_GUARDED_BY(worker_);
  static constexpr std::chrono::seconds kDropLogPeriod{10};
  std::chrono::steady_clock::time_point last_drop_log_ ABSL_GUARDED_BY(worker_);
  int64_t dropped_since_log_ ABSL_GUARDED_BY(worker_) = 0;
  std::atomic<bool> close_requested_{false};

  mutable absl::Mutex mu_;
  PortState state_ ABSL_GUARDED_BY(mu_) = PortState::kOpening;
  PortSettings settings_ ABSL_GUARDED_BY(mu_);
  int64_t bytes_read_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t bytes_written_total_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t opened_at_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t last_activity_at_ms_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t timeout_streak_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t buffered_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // pending_.size(), for snapshots
  int64_t dropped_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  std::string backend_name_ ABSL_GUARDED_BY(mu_);
  std::string device_path_ ABSL_GUARDED_BY(mu_);

  // Last member: destroyed first, so its thread has stopped before the rest goes; and
  // constructed last, so its thread (whose idle hook uses the members) starts after them.
  PortWorker worker_;
};

}  // namespace labgate::serial
