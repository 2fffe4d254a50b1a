// The serial service without gRPC: the open ports and who owns them, the safety policy,
// recording into sessions, listing and shutdown. Callers name themselves by an owner
// string; requests arrive already decoded, and answers are PortSettings, ReadResult and
// the like, or an absl::Status. The gRPC adapter (grpc/serial_grpc_service.cc) turns
// messages into these calls and back.
//
// Nothing here blocks a caller on a device: device work runs on each port's worker, and
// listing (sysfs can be slow) on a worker of its own. `done` runs once, on one of those
// or on the calling thread before the call returns.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/call_context.h"
#include "serial-service/backends/serial_port.h"
#include "serial-service/instruments/instrument_catalog.h"
#include "serial-service/instruments/instrument_registry.h"
#include "serial-service/limits/quantity_limits.h"
#include "serial-service/policy/policy_engine.h"
#include "serial-service/ports/clock.h"
#include "serial-service/ports/event_hub.h"
#include "serial-service/ports/managed_port.h"
#include "serial-service/ports/port_registry.h"
#include "serial-service/ports/port_worker.h"
#include "serial-service/recording/session_reader.h"
#include "serial-service/recording/session_recorder.h"
#include "serial-service/reservations/grant_table.h"
#include "serial-service/sim/replay_recording.h"

namespace labgate::serial {

// The serial ports the host has (libserialport's sp_list_ports, or recorded answers).
using PortLister = std::function<absl::StatusOr<std::vector<PortDetails>>()>;

struct PortServiceOptions {
  // Time for idle auto-close and the metrics' durations; null means SystemClock().
  Clock* clock = nullptr;
  // Backend per port name; empty means DefaultPortFactory (loop:// or a tty).
  PortFactory port_factory;
  // How often a port whose backend has no descriptor polls it while it has subscribers.
  int poll_period_ms = 10;
  // The capture buffer and how received bytes are recorded (see CaptureOptions).
  CaptureOptions capture;
  // How long a query polls for the device's reply before it sleeps (see PortEnvironment).
  std::chrono::microseconds query_reply_spin{0};
  // Records waiting for the session service; beyond this they are lost (and counted).
  size_t record_queue_limit = 10000;
  // The safety policy (JSON); empty: no policy, everything is allowed.
  std::string policy_file;
  // Instrument profiles (a directory of JSON files) and named instruments (a JSON file);
  // empty: none. SIGHUP reloads them with the policy.
  std::string profiles_dir;
  std::string instruments_file;
  // What the host lists (libserialport's enumeration when empty). Tests give recorded answers:
  // no USB device exists on the machines they run on.
  PortLister port_lister;
  // How often a lost instrument's port looks for its device to come back.
  std::chrono::milliseconds instrument_watch_period{100};
};

// A port as list_ports shows it: its path, and the named instrument there.
struct ListedPort {
  std::string port_name;
  std::optional<std::string> instrument;
};

// A named instrument as list_instruments shows it.
struct InstrumentListing {
  NamedInstrument named;
  std::shared_ptr<const InstrumentProfile> profile;
  bool present = false;
  std::optional<std::string> path;  // where it is now
  std::string absent_reason;
  bool open = false;
  std::string owner;  // who has it open
};

// What open_port {instrument} did.
struct OpenedInstrument {
  PortSettings settings;
  std::string device_path;
  std::string identity;  // the probe's reply; empty without a probe
};

// A person's answer to a confirmation request, as a confirming gateway relays it.
using Confirmation = ConfirmationAnswer;

// A port as DescribePort reports it.
struct PortDescription {
  PortDetails details;
  std::string backend;               // "loopback", "libserialport" or "termios"
  std::optional<PortSnapshot> open;  // set while the port is open (or lost)
  bool owned_by_caller = false;
};

// What a write or query asks for, beyond its bytes. Unset values take the port's.
struct TransferOptions {
  bool text_mode = true;  // text: the terminator is appended to writes, and ends reads
  std::optional<int64_t> max_bytes;
  std::optional<int64_t> timeout_ms;
  // A query's binary reply stops at the terminator and keeps it.
  bool keep_terminator = false;
  // True once the caller has gone (see ReadParams::abandoned).
  std::function<bool()> abandoned;
  // The person's answer to an earlier confirmation request, if the caller relays one.
  std::optional<Confirmation> confirmation;
};

class PortService {
 public:
  // INVALID_ARGUMENT for a poll period that is not positive; the policy file's error when
  // it does not load.
  static absl::StatusOr<std::unique_ptr<PortService>> Create(const PortServiceOptions& options);
  ~PortService();
  PortService(const PortService&) = delete;
  PortService& operator=(const PortService&) = delete;

  // Reads the policy file again. A file that does not load leaves the current policy in
  // force, and the error is returned.
  absl::Status ReloadPolicy();
  // Where bound ports are recorded (its channel may be set later).
  SessionRecorder& recorder() { return *recorder_; }
  // Where bound ports record to and replay:// ports read recordings from.
  void SetSessionChannel(std::shared_ptr<grpc::Channel> channel);
  // Bench reservations to enforce (issue 32): a port another principal holds a grant on is
  // refused to open, write, read, query, wait on and drive the lines of. Set before serving.
  void SetGrants(std::shared_ptr<GrantTable> grants) { grants_ = std::move(grants); }
  EventHub& hub() { return hub_; }

  // Closes every port (waiting up to 5 s for the closes); calls made after it should be
  // refused with ShuttingDownError(). False, doing nothing, when it has already run.
  bool StopPorts();
  // Waits up to `grace` for the records still queued to reach the session service.
  void DrainRecords(std::chrono::milliseconds grace);
  bool stopped() const { return stopped_.load(); }
  static absl::Status ShuttingDownError();

  // Every port the host has, sim://MODEL for each profile with a simulation, and the open ones,
  // sorted, as far as the policy lists them; an instrument's port under its device path, with
  // its name.
  void ListPorts(std::function<void(absl::StatusOr<std::vector<ListedPort>>)> done);
  // The same with what is known of each.
  void ListPortsExtended(std::function<void(absl::StatusOr<std::vector<PortDetails>>)> done);
  // One port, open or not; NOT_FOUND-like errors for a name that is no port at all.
  void DescribePort(const std::string& owner, const std::string& name,
                    std::function<void(absl::StatusOr<PortDescription>)> done);

  // Opens `name` for `owner` (see PortRegistry::Open), unless the policy refuses, or the
  // settings bind a session and there is no session service to record to.
  void OpenPort(const std::string& owner, const std::string& name, const PortSettings& settings,
                std::function<void(absl::StatusOr<PortSettings>)> done);

  // Named instruments (port_service_instruments.cc). Reloads the profiles and the instruments
  // file; files that do not load leave the previous ones in force, and the error is returned.
  absl::Status ReloadInstruments();
  std::shared_ptr<const InstrumentCatalog> instruments() const { return instruments_.catalog(); }
  // Every named instrument, where it is, and who has it. Nothing is written to find one: an
  // idn_serial instrument shows where a probe last found it.
  void ListInstruments(std::function<void(absl::StatusOr<std::vector<InstrumentListing>>)> done);
  // Opens the instrument wherever it is now, as a port called by its name, with `settings`
  // (the caller merged its profile's). When the profile has a probe, it is sent and the reply
  // checked before anything else is written: another instrument there is FAILED_PRECONDITION
  // naming what was expected and what answered, and the port is closed again.
  void OpenInstrument(const std::string& owner, const std::string& instrument,
                      const PortSettings& settings,
                      std::function<void(absl::StatusOr<OpenedInstrument>)> done);

  // The port a reconfigure, write, read or query addresses: named, or the caller's only
  // open one. FAILED_PRECONDITION when it is not open or another owner holds it.
  absl::StatusOr<std::shared_ptr<ManagedPort>> CallersPort(
      const std::string& owner, const std::optional<std::string>& name) const;
  // The port a status or metrics call looks at: named (null when not open), or the
  // caller's only one (null when it has none). Anyone may look.
  absl::StatusOr<std::shared_ptr<ManagedPort>> ObservedPort(
      const std::string& owner, const std::optional<std::string>& name) const;
  std::shared_ptr<ManagedPort> FindPort(const std::string& name) const;

  // Applies `settings` to the caller's port, with the same checks as OpenPort.
  void Reconfigure(ManagedPort& port, const PortSettings& settings,
                   std::function<void(absl::StatusOr<PortSettings>)> done);
  // Writes `bytes` (decoded) after the size limit and the policy allow it. A policy that
  // wants a person's confirmation fails it with FAILED_PRECONDITION carrying the
  // kConfirmRulePayload and kConfirmIdPayload payloads.
  void Write(const std::string& owner, ManagedPort& port, std::string bytes,
             const TransferOptions& options, std::function<void(absl::StatusOr<WriteResult>)> done);
  // A read's parameters, from the caller's options and the port's settings.
  absl::StatusOr<ReadParams> ReadParamsFor(const ManagedPort& port,
                                           const TransferOptions& options) const;
  void Read(ManagedPort& port, ReadParams params,
            std::function<void(absl::StatusOr<ReadResult>)> done);
  // A write and then a read, checked as Write checks a write.
  void Query(const std::string& owner, ManagedPort& port, std::string bytes,
             const TransferOptions& options, std::function<void(absl::StatusOr<QueryResult>)> done);

  // wait_for: what the caller asks for; the patterns are compiled (RE2) and checked here.
  struct WaitRequest {
    std::vector<std::string> patterns;
    bool regex = true;      // false: each pattern is literal text
    bool binary = false;    // hex/base64: patterns match bytes (Latin-1), not UTF-8 text
    bool from_new = false;  // see WaitParams
    std::optional<int64_t> timeout_ms;
    std::optional<int64_t> max_bytes;  // most bytes of `before`
    std::function<bool()> abandoned;
  };
  static constexpr int kMaxWaitPatterns = 16;
  static constexpr int64_t kDefaultWaitBeforeBytes = 4096;
  void WaitFor(ManagedPort& port, const WaitRequest& request,
               std::function<void(absl::StatusOr<WaitResult>)> done);

  // send_expect: steps of exactly one of send (bytes, decoded), expect (wait_for patterns),
  // delay_ms and signal (a line, its level, and ms: a pulse, or 0 to set it).
  struct ScriptRequest {
    using Step = ScriptStepSpec;
    std::vector<Step> steps;
    bool stop_on_timeout = true;
    bool regex = true;
    bool text_mode = true;             // sends get the terminator; patterns match UTF-8 text
    std::optional<int64_t> max_bytes;  // of each expect's `before`
    std::function<bool()> abandoned;
    std::optional<Confirmation> confirmation;
  };
  static constexpr int kMaxScriptSteps = 32;
  // Checks the whole script first (steps, patterns, and every send and line change against the
  // policy), then runs it on the port. At most one send may need a person's approval: the
  // script is refused before anything runs until it has it.
  void SendExpect(const std::string& owner, ManagedPort& port, const ScriptRequest& request,
                  std::function<void(absl::StatusOr<ScriptResult>)> done);
  // run_sequence: the policy's sequence `name` for the port, run as a send_expect script (text,
  // RE2, stopping at a time-out). Its own "signals" rule, when it has one, replaces the port's.
  void RunSequence(const std::string& owner, ManagedPort& port, const std::string& name,
                   std::optional<Confirmation> confirmation, std::function<bool()> abandoned,
                   std::function<void(absl::StatusOr<ScriptResult>)> done);

  // The control lines of the caller's port. Reading them needs no leave; DTR, RTS and break need
  // the policy's (PolicyEngine::CheckSignals: allow, deny, or a person's approval), and
  // refusals, requests, approvals and declines are recorded. A pulse or break lasts 1 to
  // kMaxSignalMs milliseconds.
  static constexpr int64_t kMaxSignalMs = 10000;
  void GetSignals(ManagedPort& port, std::function<void(absl::StatusOr<ModemSignals>)> done);
  void SetSignals(const std::string& owner, ManagedPort& port, std::optional<bool> dtr,
                  std::optional<bool> rts, const std::optional<Confirmation>& confirmation,
                  std::function<void(absl::StatusOr<ModemSignals>)> done);
  void PulseSignal(const std::string& owner, ManagedPort& port, bool dtr, bool level, int64_t ms,
                   const std::optional<Confirmation>& confirmation,
                   std::function<void(absl::StatusOr<ModemSignals>)> done);
  void SendBreak(const std::string& owner, ManagedPort& port, int64_t ms,
                 const std::optional<Confirmation>& confirmation,
                 std::function<void(absl::StatusOr<ModemSignals>)> done);

  struct CloseOutcome {
    std::string status;  // "closed" or "already closed"
    std::string port_name;
  };
  // Closes the named port, or the caller's only one; a port that is not open is "already
  // closed". Another owner's port is refused.
  void ClosePort(const std::string& owner, const std::optional<std::string>& name,
                 std::function<void(absl::StatusOr<CloseOutcome>)> done);
  // Closes all of the owner's ports; `done` gets their names.
  void ReleaseOwner(const std::string& owner, std::function<void(std::vector<std::string>)> done);
  // Closes `port_name` whoever owns it (the console's operator `by`, for `reason`), recorded in
  // its session; NOT_FOUND when it is not open.
  void ForceClose(const std::string& port_name, const std::string& by, const std::string& reason,
                  std::function<void(absl::StatusOr<CloseOutcome>)> done);

  // An owner keeps its ports while it holds a lease; releasing the last closes them.
  void AcquireLease(const std::string& owner) { registry_.AcquireLease(owner); }
  void ReleaseLease(const std::string& owner) { registry_.ReleaseLease(owner); }

  // Facts the status and metrics calls report.
  std::vector<std::string> OpenPortNames() const { return registry_.OpenPortNames(); }
  // The state of every port that is open or lost (a port still opening is left out).
  std::vector<std::pair<std::string, PortState>> CurrentPortStates() const;
  std::shared_ptr<const Policy> policy() const { return policy_.current(); }
  SessionRecorder::PortCounts RecordCounts(const std::string& name) const {
    return recorder_->CountsFor(name);
  }
  int64_t IdleCloseCount(const std::string& name) const { return registry_.IdleCloseCount(name); }

 private:
  explicit PortService(const PortServiceOptions& options);

  // The one ownership check: FAILED_PRECONDITION naming the holder.
  static absl::Status CheckOwner(const ManagedPort& port, const std::string& owner);
  // The reservation check (GrantTable::Check) on a port known by `names`; OK without grants.
  absl::Status CheckReserved(const std::string& owner,
                             const std::vector<std::string>& names) const {
    return grants_ == nullptr ? absl::OkStatus() : grants_->Check(owner, names);
  }
  absl::Status CheckReserved(const std::string& owner, const ManagedPort& port) const {
    // Most I/O happens with nothing reserved: no names built, no port lock taken.
    if (grants_ == nullptr || !grants_->MayHoldGrants()) return absl::OkStatus();
    return grants_->Check(owner, {port.name(), port.instrument(), port.device_path()});
  }
  // CheckReserved for an open. A refusal of the principal first in the queue is asked again
  // as the grant table changes, for up to kHandOverWait: its grant may be on its way here
  // (the holder and this table hear of it separately). `then` gets the last answer, at once
  // or on the hand-over worker.
  void CheckReservedForOpen(const std::string& owner, std::vector<std::string> names,
                            std::function<void(absl::Status)> then);
  static constexpr absl::Duration kHandOverWait = absl::Seconds(1);
  // OpenInstrument once the reservation check has passed; on the misc worker.
  void OpenReservedInstrument(const std::string& owner, const std::string& instrument,
                              const PortSettings& settings,
                              std::function<void(absl::StatusOr<OpenedInstrument>)> done);
  // A grant outranks an open port: before `owner`, holding the grant on `name`, opens it,
  // another principal's port open there is closed, which its session records. Then `next`.
  // The other's port is found by `name`, else by `device` (opened under another name for it).
  void YieldToHolder(const std::string& owner, const std::string& name, const std::string& device,
                     std::function<void()> next);
  // An open that finishes after its owner's last Lease ended (the owner went while the port was
  // found, probed or waited for) would leave a port that nobody holds and nothing closes: the
  // owner's ports are closed again and the open fails.
  template <typename Result>
  std::function<void(absl::StatusOr<Result>)> UnlessOwnerGone(
      const std::string& owner, std::function<void(absl::StatusOr<Result>)> done) {
    PortRegistry::LeaseMark mark = registry_.MarkLease(owner);
    if (mark == nullptr) return done;  // no Lease to outlive
    return [this, owner, mark, done = std::move(done)](absl::StatusOr<Result> result) {
      if (!result.ok() || !registry_.GoneSince(owner, mark)) return done(std::move(result));
      registry_.CloseAllOf(owner, "owner disconnected", [done](const std::vector<std::string>&) {
        done(absl::AbortedError(
            "the caller's Lease ended while the port was opening, so it was closed again"));
      });
    };
  }
  // A port may be bound to a session only when there is a session service to record to.
  absl::Status CheckCanRecord(const std::string& session_id) const;
  // The size limit, the instrument's limits and the policy's verdict on a write or query of
  // `bytes`, recorded in the port's session. `limits` is the limits' verdict when the caller
  // has it (a script's sends are judged in order); otherwise it is found here. The port's
  // worker judges the write again as it goes out, and commits what it sets (CheckAtWrite).
  absl::Status CheckWrite(const std::string& owner, ManagedPort& port, const std::string& bytes,
                          const std::optional<Confirmation>& confirmation, const char* what,
                          const LimitVerdict* limits = nullptr);
  // The write gate (port_service_write_gate.cc), on the port's worker as each write starts:
  // the reservations again (a grant may have gone to another since the call began), the
  // instrument's limits again, against the values the writes before it set (two calls
  // judged at once cannot both step from one value), with what it sets committed in
  // `once_sent`; and, after an unfinished `line`, the line it completes (CheckJoinedLine).
  absl::Status CheckAtWrite(ManagedPort& port, const WrittenLine& line, absl::string_view bytes,
                            std::function<void()>* once_sent);
  // May `bytes` join the device's unfinished `line`? Refused when the joined line sets a limited
  // quantity otherwise than the parts do alone, or matches a policy rule neither part matches.
  absl::Status CheckJoinedLine(ManagedPort& port, const WrittenLine& line, absl::string_view bytes);
  absl::Status CheckJoinedLimits(const ManagedPort& port, const WrittenLine& line,
                                 absl::string_view bytes);
  // On an instrument with limits: whether every CR and LF of `bytes` is part of its line end
  // (limits/line_ends.h), read at the moment it is asked (a reconfigure may change it).
  absl::Status CheckLineEnds(const ManagedPort& port, absl::string_view bytes);
  // The port's terminator; without one, the profile's; empty when neither has one.
  std::string LineEndOf(const ManagedPort& port) const;
  // The instrument's limits on `bytes` (OK, setting nothing, for a port without limits).
  // With `scratch`, judged against it, and what passes is committed there.
  LimitVerdict CheckLimits(const ManagedPort& port, const std::string& bytes,
                           LimitState* scratch = nullptr);
  // What `settings` set on the port's instrument, for the person asked about them.
  std::string DescribeSettings(const ManagedPort& port,
                               const std::vector<QuantitySetting>& settings);
  // The profile of the instrument a port is, as the catalog in force has it; null for none.
  std::shared_ptr<const InstrumentProfile> ProfileOf(const ManagedPort& port) const;
  // A copy of the instrument's accepted values (empty for a port that is no instrument).
  LimitState LimitStateOf(const ManagedPort& port);
  // The name the policy knows the port by: its device path. Only an instrument's may change,
  // so other ports (every write goes through here) take no lock for it.
  static std::string PolicyName(const ManagedPort& port) {
    return port.instrument().empty() ? port.name() : port.device_path();
  }
  // The reply of `candidate` (not open) to the profile's probe; nullopt when it cannot be opened.
  std::optional<absl::StatusOr<std::string>> Probe(const NamedInstrument& named,
                                                   const InstrumentProfile& profile,
                                                   const std::string& candidate,
                                                   const PortSettings& settings);
  // Where a named instrument is now; idn_serial ones are probed (ports not open only).
  absl::StatusOr<std::string> LocateForOpen(const NamedInstrument& named,
                                            const InstrumentProfile& profile,
                                            const PortSettings& settings);
  // The named instrument that is at `path` now (under any name of its device), as its match
  // finds it (an idn_serial one: where a probe last found it; one never found yet is probed at
  // `path` when `path` is among its candidates); "" when none is. UNAVAILABLE when the ports
  // cannot be listed, or a candidate cannot be probed, to tell.
  absl::StatusOr<std::string> InstrumentAt(const std::string& path);
  // OpenPort once `name` is resolved to `device` (its path with links resolved; the name itself
  // when it is no path).
  void OpenDevice(const std::string& owner, const std::string& name, const std::string& device,
                  const PortSettings& settings, bool on_misc_worker,
                  std::function<void(absl::StatusOr<PortSettings>)> done);
  // PERMISSION_DENIED when the policy refuses to open `name`, or `device` (its path with links
  // resolved) when the policy has a rule of its own for it.
  absl::Status CheckOpenPolicy(const std::string& name, const std::string& device,
                               int64_t baud_rate) const;
  // open_port {instrument}'s identity check in progress: the lines its probe brought back.
  struct Identification {
    std::shared_ptr<ManagedPort> port;
    NamedInstrument expected;
    std::shared_ptr<const InstrumentCatalog> catalog;
    std::string path;
    OpenedInstrument result;
    std::chrono::steady_clock::time_point deadline;
    std::vector<std::string> answered;
    std::function<void(absl::StatusOr<OpenedInstrument>)> done;
  };
  static constexpr size_t kLinesBeforeIdentity = 8;
  // Takes `line` (a reply to the probe, or a line after it) and finishes, or reads on.
  void Identify(const std::shared_ptr<Identification>& id, const std::string& line);
  // The re-enumeration watcher: reopens lost instrument ports whose device is back.
  void WatchInstruments();
  void ReattachLost(const std::shared_ptr<ManagedPort>& port);
  // The policy's verdict on `tool` driving `port`'s control lines as `action` says, recorded
  // (refusals, requests, approvals and declines).
  absl::Status CheckSignals(const std::string& owner, ManagedPort& port, const char* tool,
                            const std::string& action,
                            const std::optional<Confirmation>& confirmation,
                            const LineSequence* sequence = nullptr);
  // Step `index` of a script, checked (ValidateStep) and its patterns compiled.
  absl::StatusOr<ScriptStep> ScriptStepFor(const ManagedPort& port, const ScriptRequest& request,
                                           int index) const;
  // A script's steps checked and built into `params`, each send judged by the instrument's
  // limits in order (`limits`, by step) and those a person must approve listed. A send the
  // limits refuse is the answer, recorded.
  absl::Status BuildScript(const std::string& owner, ManagedPort& port,
                           const ScriptRequest& request, const char* tool, ScriptParams* params,
                           std::vector<LimitVerdict>* limits, std::vector<int>* needs_approval);
  // Whether a person must approve `bytes`: the limits ask, or a confirm rule of the policy.
  bool NeedsPerson(const std::string& owner, const ManagedPort& port, const std::string& bytes,
                   const LimitVerdict& verdict) const;
  // send_expect and run_sequence: checks the script, then runs it (`sequence`: whose it is).
  void StartScript(const std::string& owner, ManagedPort& port, const ScriptRequest& request,
                   const LineSequence* sequence,
                   std::function<void(absl::StatusOr<ScriptResult>)> done);
  // wait_for's parameters (and a send_expect step's), the patterns compiled; `what` names them.
  absl::StatusOr<WaitParams> WaitParamsFor(const ManagedPort& port, const WaitRequest& request,
                                           const std::string& what) const;
  // Runs `work` on the misc worker.
  void OnMiscWorker(std::function<void()> work) { misc_worker_->Post(std::move(work)); }

  // The backends: sim://MODEL from a profile's simulation, replay://SESSION_ID from a recorded
  // session, anything else from `base`.
  PortFactory WithScriptedDevices(PortFactory base);
  // Why `name` (sim:// or replay://) cannot be opened here, before anything is made for it.
  absl::Status CheckScriptedName(const std::string& name) const;
  // A replay's recording, read from the session service (on the port's worker, at open).
  absl::StatusOr<ReplayRecording> LoadRecording(const std::string& session_id) const;
  // The profile that simulates sim://MODEL; null for another name or none.
  std::shared_ptr<const InstrumentProfile> SimulatedProfile(const std::string& name) const;
  std::vector<std::string> SimulatedPortNames() const;

  Clock* const clock_;
  const std::string policy_file_;
  const bool custom_factory_;  // a test's factory may serve sim:// names itself
  // Declared before the registry: ports record into it until they are gone.
  std::unique_ptr<SessionRecorder> recorder_;
  SessionReader session_reader_;
  std::atomic<bool> stopped_{false};
  EventHub hub_;
  PortRegistry registry_;
  PolicyEngine policy_;
  InstrumentRegistry instruments_;
  const PortLister port_lister_;
  std::shared_ptr<GrantTable> grants_;  // null: no reservations enforced
  const std::chrono::milliseconds instrument_watch_period_;
  absl::Mutex watch_mu_;
  bool watch_stop_ ABSL_GUARDED_BY(watch_mu_) = false;
  std::thread watcher_;  // started when instruments are configured
  // Last: destroyed first, so the listings still queued run while the rest is there.
  std::unique_ptr<PortWorker> misc_worker_;
  // Where an open refused to the first in a queue waits for its grant (CheckReservedForOpen);
  // destroyed before the misc worker, so a wait still under way ends while all is there.
  std::unique_ptr<PortWorker> handover_worker_;
};

}  // namespace labgate::serial
