#include "serial-service/port_service.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/byte_pattern.h"
#include "common/log.h"
#include "serial-service/backends/libserialport_backend.h"
#include "serial-service/backends/replay_port.h"
#include "serial-service/backends/scripted_port.h"
#include "serial-service/backends/termios_port.h"
#include "serial-service/instruments/instrument_locator.h"
#include "serial-service/instruments/reply_readings.h"
#include "serial-service/limits/scpi_quantity.h"
#include "serial-service/ports/data_encoding.h"
#include "serial-service/ports/port_settings.h"
#include "serial-service/serial_metrics.h"
#include "serial-service/sim/replayed_instrument.h"
#include "serial-service/sim/simulated_instrument.h"

namespace labgate::serial {
namespace {

// Who approved, for the port's record.
std::string ApprovedBy(const Confirmation& confirmation) {
  return confirmation.approver.empty() ? "a person" : confirmation.approver;
}

// "decline", or "decline by alice in the labgate console".
std::string WhyNotApproved(const Confirmation& confirmation) {
  return confirmation.approver.empty()
             ? confirmation.decision
             : absl::StrCat(confirmation.decision, " by ", confirmation.approver);
}

PortDetails LoopbackDetails(const std::string& name) {
  PortDetails details;
  details.port_name = name;
  details.transport = Transport::kLoopback;
  details.description = "built-in loopback: reads back what is written";
  return details;
}

RecorderOptions RecorderOptionsFor(const PortServiceOptions& options) {
  RecorderOptions recorder;
  recorder.queue_limit = options.record_queue_limit;
  return recorder;
}

// A port is a device path or one of labgate's own schemes. A relative path would be opened
// from labgate-serial's working directory, and would escape every check that knows a device
// by its path: an instrument's binding and limits, reservations, the same-device check.
absl::Status CheckNameForm(const std::string& name) {
  if (name.empty() || name.front() == '/' || IsLoopbackName(name) || IsSimName(name) ||
      IsReplayName(name)) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "port_name \"", name,
      "\" is neither a device path (such as /dev/ttyUSB0) nor loop://NAME, sim://MODEL or "
      "replay://SESSION_ID; relative paths are not opened"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<PortService>> PortService::Create(
    const PortServiceOptions& options) {
  if (options.poll_period_ms <= 0) {
    return absl::InvalidArgumentError("poll_period_ms must be positive");
  }
  if (absl::Status capture = ValidateCaptureOptions(options.capture); !capture.ok()) return capture;
  if (options.query_reply_spin.count() < 0) {
    return absl::InvalidArgumentError("query_reply_spin must not be negative");
  }
  SerialMetrics::Get();  // listed from the first scrape on
  std::unique_ptr<PortService> service(new PortService(options));
  if (absl::Status loaded = service->ReloadPolicy(); !loaded.ok()) return loaded;
  if (absl::Status loaded = service->ReloadInstruments(); !loaded.ok()) return loaded;
  if (!options.profiles_dir.empty() || !options.instruments_file.empty()) {
    service->watcher_ = std::thread([watching = service.get()] { watching->WatchInstruments(); });
  }
  return service;
}

PortService::PortService(const PortServiceOptions& options)
    : clock_(options.clock != nullptr ? options.clock : SystemClock()),
      policy_file_(options.policy_file),
      custom_factory_(static_cast<bool>(options.port_factory)),
      recorder_(std::make_unique<SessionRecorder>(RecorderOptionsFor(options))),
      registry_(WithScriptedDevices(options.port_factory ? options.port_factory
                                                         : PortFactory(DefaultPortFactory)),
                clock_, &hub_, options.poll_period_ms, recorder_.get(), options.query_reply_spin,
                options.capture),
      instruments_(options.profiles_dir, options.instruments_file),
      port_lister_(options.port_lister ? options.port_lister
                                       : PortLister(&LibSerialPortBackend::ListPorts)),
      instrument_watch_period_(options.instrument_watch_period),
      misc_worker_(std::make_unique<PortWorker>("serial-misc", nullptr)),
      handover_worker_(std::make_unique<PortWorker>("serial-handover", nullptr)) {
  registry_.SetWriteGate([this](ManagedPort& port, const WrittenLine& line, absl::string_view bytes,
                                std::function<void()>* once_sent) {
    return CheckAtWrite(port, line, bytes, once_sent);
  });
}

PortService::~PortService() { StopPorts(); }

PortFactory PortService::WithScriptedDevices(PortFactory base) {
  // Called only once the service is built: instruments_ is there by then.
  return [this, base = std::move(base)](const std::string& name) -> std::unique_ptr<SerialPort> {
    if (std::shared_ptr<const InstrumentProfile> profile = SimulatedProfile(name)) {
      return std::make_unique<ScriptedPort>(
          std::make_shared<SimulatedInstrument>(*profile->simulation), "sim");
    }
    if (IsReplayName(name) && !custom_factory_) {
      absl::StatusOr<ReplayTarget> target = ParseReplayName(name);
      if (!target.ok()) return nullptr;  // CheckScriptedName refused it before
      return std::make_unique<ReplayPort>(std::make_shared<ReplayedInstrument>(
          *std::move(target),
          [this](const std::string& session_id) { return LoadRecording(session_id); }));
    }
    return base(name);
  };
}

absl::Status PortService::CheckScriptedName(const std::string& name) const {
  if (custom_factory_) return absl::OkStatus();  // a test's factory serves what it serves
  if (IsSimName(name) && SimulatedProfile(name) == nullptr) {
    const std::vector<std::string> simulated = SimulatedPortNames();
    return absl::NotFoundError(absl::StrCat(
        "no profile simulates ", name.substr(6), "; ",
        simulated.empty() ? "none has a simulation section (labgate-serial --profiles DIR)"
                          : "simulated: " + absl::StrJoin(simulated, ", ")));
  }
  if (IsReplayName(name)) {
    if (absl::StatusOr<ReplayTarget> target = ParseReplayName(name); !target.ok()) {
      return target.status();
    }
    if (!session_reader_.enabled()) {
      return absl::FailedPreconditionError(
          "replay:// reads recorded sessions, but this labgate-serial has no session service "
          "(start it with --session-addr)");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ReplayRecording> PortService::LoadRecording(const std::string& session_id) const {
  absl::StatusOr<std::vector<session::v1::Message>> messages =
      session_reader_.ReadAll(session_id, std::chrono::seconds(30), kMaxReplayMessages);
  if (!messages.ok()) return messages.status();
  return RecordingFromMessages(session_id, *messages);
}

void PortService::SetSessionChannel(std::shared_ptr<grpc::Channel> channel) {
  session_reader_.SetChannel(channel);
  recorder_->SetChannel(std::move(channel));
}

std::shared_ptr<const InstrumentProfile> PortService::SimulatedProfile(
    const std::string& name) const {
  if (!IsSimName(name)) return nullptr;
  const std::string model = name.substr(std::string("sim://").size());
  for (const auto& profile : instruments_.catalog()->profiles) {
    if (profile->model == model && profile->simulation.has_value()) return profile;
  }
  return nullptr;
}

std::vector<std::string> PortService::SimulatedPortNames() const {
  std::vector<std::string> names;
  for (const auto& profile : instruments_.catalog()->profiles) {
    if (profile->simulation.has_value()) names.push_back("sim://" + profile->model);
  }
  return names;
}

absl::Status PortService::ShuttingDownError() {
  return absl::UnavailableError("labgate-serial is shutting down");
}

absl::Status PortService::ReloadPolicy() {
  if (policy_file_.empty()) return absl::OkStatus();
  absl::StatusOr<std::shared_ptr<const Policy>> loaded = LoadPolicyFile(policy_file_);
  if (!loaded.ok()) {
    LG_LOG(kError) << "policy not (re)loaded, the previous one stays in force: "
                   << loaded.status().message();
    return loaded.status();
  }
  policy_.Replace(*std::move(loaded));
  LG_LOG(kInfo) << "policy loaded from " << policy_file_;
  return absl::OkStatus();
}

bool PortService::StopPorts() {
  if (stopped_.exchange(true)) return false;
  {
    absl::MutexLock lock(&watch_mu_);
    watch_stop_ = true;
  }
  if (watcher_.joinable()) watcher_.join();
  registry_.CloseAll("service stopping", absl::Seconds(5));
  return true;
}

void PortService::DrainRecords(std::chrono::milliseconds grace) { recorder_->Drain(grace); }

void PortService::ListPorts(std::function<void(absl::StatusOr<std::vector<ListedPort>>)> done) {
  OnMiscWorker([this, done = std::move(done)] {
    absl::StatusOr<std::vector<PortDetails>> ports = port_lister_();
    if (!ports.ok()) return done(ports.status());
    std::map<std::string, std::optional<std::string>> names;  // path -> instrument
    for (const PortDetails& port : *ports) names[port.port_name];
    for (const std::string& simulated : SimulatedPortNames()) names[simulated];
    for (const std::string& name : registry_.OpenPortNames()) {
      std::shared_ptr<ManagedPort> port = registry_.Find(name);
      if (port == nullptr || port->instrument().empty()) {
        names[name];
      } else {
        names[port->device_path()] = port->instrument();
      }
    }
    std::vector<ListedPort> listed;
    for (const auto& [name, instrument] : names) {
      if (policy_.Listed(name)) listed.push_back({name, instrument});
    }
    done(std::move(listed));
  });
}

void PortService::ListPortsExtended(
    std::function<void(absl::StatusOr<std::vector<PortDetails>>)> done) {
  OnMiscWorker([this, done = std::move(done)] {
    absl::StatusOr<std::vector<PortDetails>> ports = port_lister_();
    if (!ports.ok()) return done(ports.status());
    std::vector<PortDetails> listed;
    std::set<std::string> found;
    for (const std::string& simulated : SimulatedPortNames()) {
      PortDetails details;
      details.port_name = simulated;
      details.description = "simulated from its instrument profile";
      found.insert(simulated);
      if (policy_.Listed(simulated)) listed.push_back(details);
    }
    for (const PortDetails& port : *ports) {
      found.insert(port.port_name);
      if (policy_.Listed(port.port_name)) listed.push_back(port);
    }
    for (const std::string& open_name : registry_.OpenPortNames()) {
      std::shared_ptr<ManagedPort> port = registry_.Find(open_name);
      const std::string name = port != nullptr ? port->device_path() : open_name;
      if (found.contains(name) || !policy_.Listed(name)) continue;
      if (IsLoopbackName(name)) {
        listed.push_back(LoopbackDetails(name));
      } else {
        absl::StatusOr<PortDetails> details = LibSerialPortBackend::Describe(name);
        PortDetails fallback;
        fallback.port_name = name;
        listed.push_back(details.ok() ? *details : fallback);
      }
    }
    done(std::move(listed));
  });
}

void PortService::DescribePort(const std::string& owner, const std::string& name,
                               std::function<void(absl::StatusOr<PortDescription>)> done) {
  if (name.empty()) {
    return done(absl::InvalidArgumentError(
        "port_name is required: a device path such as /dev/ttyUSB0, or loop://"));
  }
  OnMiscWorker([this, owner, name, done = std::move(done)] {
    std::shared_ptr<ManagedPort> port = registry_.Find(name);
    absl::StatusOr<PortDetails> details =
        IsLoopbackName(name) ? LoopbackDetails(name) : LibSerialPortBackend::Describe(name);
    PortDescription description;
    description.backend = IsLoopbackName(name) ? "loopback" : "libserialport";
    if (!details.ok()) {
      const bool tty = port != nullptr || TermiosPort::IsTty(name);
      if (!tty) return done(details.status());
      PortDetails fallback;
      fallback.port_name = name;
      fallback.description = "tty without a serial-port entry in sysfs";
      details = fallback;
      description.backend = "termios";
    }
    description.details = *std::move(details);
    if (port != nullptr) {
      description.open = port->Snapshot();
      if (!description.open->backend.empty()) description.backend = description.open->backend;
      description.owned_by_caller = port->owner() == owner;
    }
    done(std::move(description));
  });
}

absl::Status PortService::CheckCanRecord(const std::string& session_id) const {
  if (session_id.empty() || recorder_->enabled()) return absl::OkStatus();
  return absl::FailedPreconditionError(
      "session_id given, but this labgate-serial has no session service to record to "
      "(start it with --session-addr)");
}

void PortService::OpenPort(const std::string& owner, const std::string& name,
                           const PortSettings& settings,
                           std::function<void(absl::StatusOr<PortSettings>)> done) {
  if (absl::Status form = CheckNameForm(name); !form.ok()) return done(form);
  if (absl::Status can = CheckCanRecord(settings.session_id); !can.ok()) return done(can);
  if (absl::Status scripted = CheckScriptedName(name); !scripted.ok()) return done(scripted);
  done = UnlessOwnerGone(owner, std::move(done));
  if (name.empty() || name.front() != '/') {
    return OpenDevice(owner, name, name, settings, /*on_misc_worker=*/false, std::move(done));
  }
  // Resolving a path reads the file system, so it is not done on the caller's thread.
  OnMiscWorker([this, owner, name, settings, done = std::move(done)]() mutable {
    OpenDevice(owner, name, DevicePathOf(name), settings, /*on_misc_worker=*/true, std::move(done));
  });
}

void PortService::OpenDevice(const std::string& owner, const std::string& name,
                             const std::string& device, const PortSettings& settings,
                             bool on_misc_worker,
                             std::function<void(absl::StatusOr<PortSettings>)> done) {
  if (absl::Status allowed = CheckOpenPolicy(name, device, settings.baud_rate); !allowed.ok()) {
    SerialMetrics::Get().policy_refusals.With({"open"}).Increment();
    if (!settings.session_id.empty()) {
      recorder_->Enqueue({settings.session_id, name, "event",
                          absl::StrCat("open refused by policy: ", allowed.message()), std::nullopt,
                          std::chrono::system_clock::now()});
    }
    return done(allowed);
  }
  auto open = [this, owner, name, device, settings,
               done = std::move(done)](const absl::StatusOr<std::string>& found) {
    if (!found.ok()) return done(found.status());
    const std::string& instrument = *found;
    auto opened = [this, owner, name, device, settings, done,
                   instrument](const absl::Status& reserved) {
      if (!reserved.ok()) return done(reserved);
      YieldToHolder(owner, name, device, [this, owner, name, device, settings, done, instrument] {
        registry_.Open(
            owner, name, settings,
            [done, settings](const absl::Status& status) {
              if (!status.ok()) return done(status);
              done(settings);
            },
            PortIdentity{device, instrument});
      });
    };
    CheckReservedForOpen(owner, {name, instrument, device}, std::move(opened));
  };
  if (instruments_.catalog()->instruments.empty()) return open(std::string());
  // A named instrument's path opened directly, under any name, is still that instrument: its
  // limits bind it. Finding out may read sysfs, so it is not done on the caller's thread.
  if (on_misc_worker) return open(InstrumentAt(device));
  OnMiscWorker([this, device, open = std::move(open)] { open(InstrumentAt(device)); });
}

absl::Status PortService::CheckOpenPolicy(const std::string& name, const std::string& device,
                                          int64_t baud_rate) const {
  if (absl::Status allowed = policy_.CheckOpen(name, baud_rate); !allowed.ok()) return allowed;
  if (device == name) return absl::OkStatus();
  std::shared_ptr<const Policy> policy = policy_.current();
  if (policy == nullptr) return absl::OkStatus();
  const PortRule* own = policy->RuleFor(device);
  // A link's rule must not loosen the device's: a device with a rule of its own is opened
  // under its own name, where that rule applies.
  if (own == nullptr || own == policy->RuleFor(name)) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(name, " is ", device, ", which the policy (",
                                                  policy->source, ") gives a rule of its own ('",
                                                  own->match, "'): open it as ", device));
}

absl::Status PortService::CheckOwner(const ManagedPort& port, const std::string& owner) {
  if (port.owner() == owner) return absl::OkStatus();
  return PortInUseError(port.name(), port.owner());
}

absl::StatusOr<std::shared_ptr<ManagedPort>> PortService::CallersPort(
    const std::string& owner, const std::optional<std::string>& name) const {
  absl::StatusOr<std::shared_ptr<ManagedPort>> port = registry_.Select(owner, name);
  if (!port.ok()) return port;
  if (absl::Status owned = CheckOwner(**port, owner); !owned.ok()) return owned;
  if (absl::Status reserved = CheckReserved(owner, **port); !reserved.ok()) return reserved;
  return port;
}

void PortService::CheckReservedForOpen(const std::string& owner, std::vector<std::string> names,
                                       std::function<void(absl::Status)> then) {
  // Read before the check, so that a change between the two is not waited for.
  const uint64_t seen = grants_ == nullptr ? 0 : grants_->changes();
  absl::Status reserved = CheckReserved(owner, names);
  if (reserved.ok() || !grants_->WaitsFirstFor(owner, names)) return then(reserved);
  // The first in the queue may be granted already, with the news still on its way here.
  handover_worker_->Post(
      [this, owner, names = std::move(names), seen, reserved, then = std::move(then)]() mutable {
        const absl::Time until = absl::Now() + kHandOverWait;
        uint64_t last = seen;
        while (!reserved.ok() && grants_->AwaitChangeAfter(last, until - absl::Now())) {
          last = grants_->changes();
          reserved = CheckReserved(owner, names);
          if (!reserved.ok() && !grants_->WaitsFirstFor(owner, names)) break;
        }
        then(reserved);
      });
}

void PortService::YieldToHolder(const std::string& owner, const std::string& name,
                                const std::string& device, std::function<void()> next) {
  std::shared_ptr<ManagedPort> open = registry_.Find(name);
  if (open == nullptr && !device.empty() && device.front() == '/') {
    open = registry_.FindByDevice(device);
  }
  if (grants_ == nullptr || open == nullptr || open->owner() == owner ||
      grants_->HolderOf({name, open->instrument(), open->device_path()}) != owner) {
    return next();
  }
  const std::string reason = absl::StrCat("closed for ", open->owner(), ": reserved by ", owner);
  LG_LOG(kInfo) << name << ": " << reason;
  open->RecordEvent(reason);
  open->Close(reason, [next = std::move(next)](const std::string&) { next(); });
}

absl::StatusOr<std::shared_ptr<ManagedPort>> PortService::ObservedPort(
    const std::string& owner, const std::optional<std::string>& name) const {
  if (name.has_value()) return registry_.Find(*name);
  if (registry_.OpenPortNamesOf(owner).empty()) return std::shared_ptr<ManagedPort>();
  return registry_.Select(owner, name);
}

std::shared_ptr<ManagedPort> PortService::FindPort(const std::string& name) const {
  return registry_.Find(name);
}

void PortService::Reconfigure(ManagedPort& port, const PortSettings& settings,
                              std::function<void(absl::StatusOr<PortSettings>)> done) {
  if (absl::Status can = CheckCanRecord(settings.session_id); !can.ok()) return done(can);
  if (absl::Status allowed = policy_.CheckOpen(PolicyName(port), settings.baud_rate);
      !allowed.ok()) {
    SerialMetrics::Get().policy_refusals.With({"reconfigure"}).Increment();
    port.RecordEvent(absl::StrCat("reconfigure refused by policy: ", allowed.message()));
    return done(allowed);
  }
  port.Reconfigure(settings, std::move(done));
}

absl::Status PortService::CheckSignals(const std::string& owner, ManagedPort& port,
                                       const char* tool, const std::string& action,
                                       const std::optional<Confirmation>& confirmation,
                                       const LineSequence* sequence) {
  std::string approval;
  if (confirmation.has_value()) {
    if (confirmation->decision != "accept") {
      SerialMetrics::Get().policy_confirmations.With({"declined"}).Increment();
      policy_.Withdraw(confirmation->id);
      port.RecordEvent(
          absl::StrCat(tool, " not approved (", WhyNotApproved(*confirmation), "): ", action));
      return absl::FailedPreconditionError(
          absl::StrCat(tool, " on ", port.name(), " was not approved (", confirmation->decision,
                       "), so ", action, " did not happen"));
    }
    approval = confirmation->id;
  }
  absl::Status allowed = policy_.CheckSignals(owner, PolicyName(port), action, approval, sequence);
  if (allowed.ok()) {
    if (!approval.empty() && confirmation.has_value()) {
      SerialMetrics::Get().policy_confirmations.With({"approved"}).Increment();
      port.RecordEvent(
          absl::StrCat(tool, " approved by ", ApprovedBy(*confirmation), ": ", action));
    }
    return allowed;
  }
  if (const absl::optional<absl::Cord> rule = allowed.GetPayload(kConfirmRulePayload);
      rule.has_value()) {
    SerialMetrics::Get().policy_confirmations.With({"requested"}).Increment();
    port.RecordEvent(
        absl::StrCat("confirmation required (", std::string(*rule), "): ", tool, " ", action));
    return allowed;
  }
  SerialMetrics::Get().policy_refusals.With({"signals"}).Increment();
  port.RecordEvent(absl::StrCat(tool, " refused by policy: ", allowed.message()));
  return allowed;
}

namespace {

const char* Level(bool high) { return high ? "high" : "low"; }

absl::Status CheckSignalMs(const char* what, int64_t ms) {
  if (ms >= 1 && ms <= PortService::kMaxSignalMs) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " ms is ", ms, "; it must be 1 to ", PortService::kMaxSignalMs));
}

}  // namespace

absl::StatusOr<WaitParams> PortService::WaitParamsFor(const ManagedPort& port,
                                                      const WaitRequest& request,
                                                      const std::string& what) const {
  const int count = static_cast<int>(request.patterns.size());
  if (count < 1 || count > kMaxWaitPatterns) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": 1 to ", kMaxWaitPatterns, " patterns are allowed, not ", count));
  }
  WaitParams params;
  for (int i = 0; i < count; ++i) {
    const std::string& given = request.patterns[static_cast<size_t>(i)];
    if (given.size() > kMaxPatternBytes) {
      return absl::InvalidArgumentError(absl::StrCat(what, "[", i, "] is ", given.size(),
                                                     " bytes; the limit is ", kMaxPatternBytes));
    }
    const std::string pattern = request.regex ? given : re2::RE2::QuoteMeta(given);
    absl::StatusOr<CompiledPattern> compiled =
        CompilePattern(pattern, request.binary ? PatternInput::kBytes : PatternInput::kUtf8,
                       absl::StrCat(what, "[", i, "]"));
    if (!compiled.ok()) return compiled.status();
    params.patterns.push_back(*std::move(compiled));
    params.pattern_texts.push_back(given);
  }
  params.timeout_ms = port.Snapshot().settings.timeout_ms;
  if (request.timeout_ms.has_value()) {
    if (absl::Status status = ValidateTimeout(*request.timeout_ms); !status.ok()) return status;
    params.timeout_ms = *request.timeout_ms;
  }
  const int64_t max_before = request.max_bytes.value_or(kDefaultWaitBeforeBytes);
  if (absl::Status status = ValidateMaxBytes(max_before); !status.ok()) return status;
  params.max_before_bytes = static_cast<size_t>(max_before);
  params.from_new = request.from_new;
  params.abandoned = request.abandoned;
  return params;
}

void PortService::WaitFor(ManagedPort& port, const WaitRequest& request,
                          std::function<void(absl::StatusOr<WaitResult>)> done) {
  absl::StatusOr<WaitParams> params = WaitParamsFor(port, request, "patterns");
  if (!params.ok()) return done(params.status());
  port.WaitFor(*std::move(params), std::move(done));
}

void PortService::SendExpect(const std::string& owner, ManagedPort& port,
                             const ScriptRequest& request,
                             std::function<void(absl::StatusOr<ScriptResult>)> done) {
  StartScript(owner, port, request, nullptr, std::move(done));
}

void PortService::RunSequence(const std::string& owner, ManagedPort& port, const std::string& name,
                              std::optional<Confirmation> confirmation,
                              std::function<bool()> abandoned,
                              std::function<void(absl::StatusOr<ScriptResult>)> done) {
  // The operator's sequence of that name wins over the port's own.
  absl::StatusOr<LineSequence> sequence = policy_.SequenceFor(PolicyName(port), name);
  if (absl::IsNotFound(sequence.status())) {
    const PortSettings settings = port.Snapshot().settings;
    std::vector<std::string> own;
    for (const LineSequence& candidate : settings.sequences) {
      if (candidate.name == name) sequence = candidate;
      own.push_back(candidate.name);
    }
    if (!sequence.ok() && !own.empty()) {
      sequence = absl::NotFoundError(absl::StrCat(
          sequence.status().message(), "; the port was opened with: ", absl::StrJoin(own, ", ")));
    }
  }
  if (!sequence.ok()) return done(sequence.status());
  ScriptRequest request;
  request.steps = sequence->steps;
  request.abandoned = std::move(abandoned);
  request.confirmation = std::move(confirmation);
  // The script holds a pointer to the sequence until it is checked; the worker gets steps only.
  auto held = std::make_shared<LineSequence>(*std::move(sequence));
  StartScript(owner, port, request, held.get(),
              [held, done = std::move(done)](absl::StatusOr<ScriptResult> result) {
                done(std::move(result));
              });
}

absl::StatusOr<ScriptStep> PortService::ScriptStepFor(const ManagedPort& port,
                                                      const ScriptRequest& request,
                                                      int index) const {
  const ScriptStepSpec& given = request.steps[static_cast<size_t>(index)];
  const std::string where = absl::StrCat("steps[", index, "]");
  // Patterns are compiled below, as the request's mode says (literal, text or bytes).
  if (absl::Status valid = ValidateStep(given, where, /*check_patterns=*/false); !valid.ok()) {
    return valid;
  }
  ScriptStep step;
  if (given.send.has_value()) {
    step.kind = ScriptStep::Kind::kSend;
    step.bytes = *given.send;
    step.text_mode = request.text_mode;
  } else if (!given.expect.empty()) {
    step.kind = ScriptStep::Kind::kExpect;
    WaitRequest wait;
    wait.patterns = given.expect;
    wait.regex = request.regex;
    wait.binary = !request.text_mode;
    wait.timeout_ms = given.timeout_ms;
    wait.max_bytes = request.max_bytes;
    absl::StatusOr<WaitParams> expect = WaitParamsFor(port, wait, where + ".expect");
    if (!expect.ok()) return expect.status();
    step.expect = *std::move(expect);
  } else if (given.delay_ms.has_value()) {
    step.kind = ScriptStep::Kind::kDelay;
    step.ms = *given.delay_ms;
  } else if (given.signal_dtr.has_value() && given.level.has_value()) {
    step.kind = ScriptStep::Kind::kSignal;
    step.dtr = *given.signal_dtr;
    step.level = *given.level;
    step.ms = given.ms.value_or(0);
  }
  return step;
}

absl::Status PortService::BuildScript(const std::string& owner, ManagedPort& port,
                                      const ScriptRequest& request, const char* tool,
                                      ScriptParams* params, std::vector<LimitVerdict>* limits,
                                      std::vector<int>* needs_approval) {
  const int count = static_cast<int>(request.steps.size());
  // The instrument's limits judge the sends in order, each against what the earlier ones set.
  limits->assign(static_cast<size_t>(count), LimitVerdict());
  LimitState scratch = LimitStateOf(port);
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<ScriptStep> step = ScriptStepFor(port, request, i);
    if (!step.ok()) return step.status();
    if (step->kind == ScriptStep::Kind::kSend) {
      LimitVerdict& verdict = (*limits)[static_cast<size_t>(i)];
      verdict = CheckLimits(port, step->bytes, &scratch);
      // Refused: CheckWrite records and counts it, and answers the refusal.
      if (!verdict.status.ok()) {
        return CheckWrite(owner, port, step->bytes, std::nullopt, tool, &verdict);
      }
      if (NeedsPerson(owner, port, step->bytes, verdict)) needs_approval->push_back(i);
    }
    params->steps.push_back(*std::move(step));
  }
  return absl::OkStatus();
}

bool PortService::NeedsPerson(const std::string& owner, const ManagedPort& port,
                              const std::string& bytes, const LimitVerdict& verdict) const {
  if (verdict.confirm_rule.has_value()) return true;
  return policy_.ConfirmRuleFor(owner, PolicyName(port), bytes).has_value();
}

void PortService::StartScript(const std::string& owner, ManagedPort& port,
                              const ScriptRequest& request, const LineSequence* sequence,
                              std::function<void(absl::StatusOr<ScriptResult>)> done) {
  const char* tool = sequence != nullptr ? "run_sequence" : "send_expect";
  const int count = static_cast<int>(request.steps.size());
  if (count < 1 || count > kMaxScriptSteps) {
    return done(absl::InvalidArgumentError(
        absl::StrCat("send_expect takes 1 to ", kMaxScriptSteps, " steps, not ", count)));
  }
  ScriptParams params;
  params.stop_on_timeout = request.stop_on_timeout;
  params.write_timeout_ms = port.Snapshot().settings.timeout_ms;
  params.abandoned = request.abandoned;
  std::vector<LimitVerdict> limits;
  std::vector<int> needs_approval;
  if (absl::Status built =
          BuildScript(owner, port, request, tool, &params, &limits, &needs_approval);
      !built.ok()) {
    return done(built);
  }
  const bool drives_lines =
      std::any_of(params.steps.begin(), params.steps.end(),
                  [](const ScriptStep& step) { return step.kind == ScriptStep::Kind::kSignal; });
  // The policy sees the whole script before anything is sent: a refused step refuses it all,
  // and the one approval a person may give (for one send, or for the line changes) is asked
  // for first. A named sequence's own rule covers it even without line changes.
  const bool lines_checked = drives_lines || (sequence != nullptr && sequence->signals.has_value());
  const bool lines_need_approval =
      lines_checked && policy_.SignalsNeedApproval(owner, PolicyName(port), sequence);
  if (needs_approval.size() + (lines_need_approval ? 1 : 0) > 1) {
    return done(absl::FailedPreconditionError(
        absl::StrCat(lines_need_approval ? "the line changes and " : "", "steps ",
                     absl::StrJoin(needs_approval, " and "), " each need a person's approval; a ",
                     tool, " may hold at most one such step, so split the script there")));
  }
  if (lines_checked) {
    const std::string action =
        sequence != nullptr
            ? absl::StrCat("sequence '", sequence->name, "' (", DescribeSteps(request.steps), ")")
            : absl::StrCat("the script ", DescribeSteps(request.steps));
    if (absl::Status allowed =
            CheckSignals(owner, port, tool, action, request.confirmation, sequence);
        !allowed.ok()) {
      return done(allowed);
    }
  }
  // The send that needs approval first, so that a script held for a person counts nothing
  // toward the rate limit until it runs.
  if (!needs_approval.empty()) {
    const auto held = static_cast<size_t>(needs_approval[0]);
    if (absl::Status allowed = CheckWrite(owner, port, params.steps[held].bytes,
                                          request.confirmation, tool, &limits[held]);
        !allowed.ok()) {
      return done(allowed);
    }
  }
  for (int i = 0; i < count; ++i) {
    const ScriptStep& step = params.steps[static_cast<size_t>(i)];
    if (step.kind != ScriptStep::Kind::kSend) continue;
    if (!needs_approval.empty() && needs_approval[0] == i) continue;
    if (absl::Status allowed = CheckWrite(owner, port, step.bytes, std::nullopt, tool,
                                          &limits[static_cast<size_t>(i)]);
        !allowed.ok()) {
      return done(allowed);
    }
  }
  // What each send sets becomes the instrument's as it goes out (CheckAtWrite), even when a
  // later step fails or the script is cancelled.
  port.RunScript(std::move(params), std::move(done));
}

void PortService::GetSignals(ManagedPort& port,
                             std::function<void(absl::StatusOr<ModemSignals>)> done) {
  port.GetSignals(std::move(done));
}

void PortService::SetSignals(const std::string& owner, ManagedPort& port, std::optional<bool> dtr,
                             std::optional<bool> rts,
                             const std::optional<Confirmation>& confirmation,
                             std::function<void(absl::StatusOr<ModemSignals>)> done) {
  if (!dtr.has_value() && !rts.has_value()) {
    return done(absl::InvalidArgumentError("set_signals needs dtr, rts or both"));
  }
  std::vector<std::string> lines;
  if (dtr.has_value()) lines.push_back(absl::StrCat("DTR ", Level(*dtr)));
  if (rts.has_value()) lines.push_back(absl::StrCat("RTS ", Level(*rts)));
  if (absl::Status allowed =
          CheckSignals(owner, port, "set_signals", absl::StrJoin(lines, ", "), confirmation);
      !allowed.ok()) {
    return done(allowed);
  }
  port.SetSignals(dtr, rts, std::move(done));
}

void PortService::PulseSignal(const std::string& owner, ManagedPort& port, bool dtr, bool level,
                              int64_t ms, const std::optional<Confirmation>& confirmation,
                              std::function<void(absl::StatusOr<ModemSignals>)> done) {
  if (absl::Status valid = CheckSignalMs("pulse_signal", ms); !valid.ok()) return done(valid);
  const std::string action = absl::StrCat(dtr ? "DTR " : "RTS ", Level(level), " for ", ms, " ms");
  if (absl::Status allowed = CheckSignals(owner, port, "pulse_signal", action, confirmation);
      !allowed.ok()) {
    return done(allowed);
  }
  port.PulseSignal(dtr, level, ms, std::move(done));
}

void PortService::SendBreak(const std::string& owner, ManagedPort& port, int64_t ms,
                            const std::optional<Confirmation>& confirmation,
                            std::function<void(absl::StatusOr<ModemSignals>)> done) {
  if (absl::Status valid = CheckSignalMs("send_break", ms); !valid.ok()) return done(valid);
  if (absl::Status allowed = CheckSignals(owner, port, "send_break",
                                          absl::StrCat("break for ", ms, " ms"), confirmation);
      !allowed.ok()) {
    return done(allowed);
  }
  port.SendBreak(ms, std::move(done));
}

LimitVerdict PortService::CheckLimits(const ManagedPort& port, const std::string& bytes,
                                      LimitState* scratch) {
  if (port.instrument().empty()) return {};
  InstrumentRegistry::Limits limits = instruments_.LimitsOf(port.instrument());
  if (limits.limits == nullptr) return {};
  if (absl::Status ends = CheckLineEnds(port, bytes); !ends.ok()) {
    LimitVerdict refused;
    refused.status = std::move(ends);
    return refused;
  }
  const auto now = std::chrono::steady_clock::now();
  if (scratch != nullptr) {
    LimitVerdict verdict = limits.limits->Check(bytes, *scratch, now, port.instrument());
    if (verdict.status.ok()) QuantityLimits::Commit(verdict.settings, scratch, now);
    return verdict;
  }
  absl::MutexLock lock(&limits.state->mu);
  return limits.limits->Check(bytes, limits.state->state, now, port.instrument());
}

std::string PortService::DescribeSettings(const ManagedPort& port,
                                          const std::vector<QuantitySetting>& settings) {
  InstrumentRegistry::Limits limits = instruments_.LimitsOf(port.instrument());
  return limits.limits == nullptr ? std::string()
                                  : limits.limits->Describe(settings, port.instrument());
}

std::shared_ptr<const InstrumentProfile> PortService::ProfileOf(const ManagedPort& port) const {
  if (port.instrument().empty()) return nullptr;
  std::shared_ptr<const InstrumentCatalog> catalog = instruments_.catalog();
  const NamedInstrument* named = catalog->Find(port.instrument());
  if (named == nullptr) return nullptr;
  for (const std::shared_ptr<const InstrumentProfile>& profile : catalog->profiles) {
    if (profile->model == named->profile) return profile;
  }
  return nullptr;
}

LimitState PortService::LimitStateOf(const ManagedPort& port) {
  if (port.instrument().empty()) return {};
  InstrumentRegistry::Limits limits = instruments_.LimitsOf(port.instrument());
  absl::MutexLock lock(&limits.state->mu);
  return limits.state->state;
}

absl::Status PortService::CheckWrite(const std::string& owner, ManagedPort& port,
                                     const std::string& bytes,
                                     const std::optional<Confirmation>& confirmation,
                                     const char* what, const LimitVerdict* limits) {
  if (static_cast<int64_t>(bytes.size()) > kMaxTransferBytes) {
    return absl::InvalidArgumentError(absl::StrCat("data is ", bytes.size(), " bytes; ", what,
                                                   " takes at most ", kMaxTransferBytes,
                                                   " bytes per call"));
  }
  const std::string shown = ShownData(bytes);
  // The instrument's limits first: a value it must never be given is refused before anyone is
  // asked about it, and nothing of it is written.
  LimitVerdict own_verdict;
  if (limits == nullptr) {
    own_verdict = CheckLimits(port, bytes);
    limits = &own_verdict;
  }
  if (!limits->status.ok()) {
    SerialMetrics::Get().policy_refusals.With({"limit"}).Increment();
    port.RecordEvent(absl::StrCat(
        what, " refused by the instrument's limits: ", limits->status.message(), " (", shown, ")"));
    return limits->status;
  }
  std::string approval;
  if (confirmation.has_value()) {
    if (confirmation->decision != "accept") {
      SerialMetrics::Get().policy_confirmations.With({"declined"}).Increment();
      policy_.Withdraw(confirmation->id);
      port.RecordEvent(
          absl::StrCat("write not approved (", WhyNotApproved(*confirmation), "): ", shown));
      return absl::FailedPreconditionError(
          absl::StrCat("the write to ", port.name(), " was not approved (", confirmation->decision,
                       "), so it was not sent"));
    }
    approval = confirmation->id;
  }
  std::optional<PolicyEngine::LimitQuestion> question;
  if (limits->confirm_rule.has_value()) {
    question = PolicyEngine::LimitQuestion{*limits->confirm_rule, limits->confirm_reason};
  }
  absl::Status status = policy_.CheckWrite(owner, PolicyName(port), bytes, approval,
                                           question.has_value() ? &*question : nullptr);
  if (status.ok()) {
    if (!approval.empty() && confirmation.has_value()) {
      SerialMetrics::Get().policy_confirmations.With({"approved"}).Increment();
      port.RecordEvent(absl::StrCat("write approved by ", ApprovedBy(*confirmation), ": ", shown));
    }
    return status;
  }
  if (const absl::optional<absl::Cord> rule = status.GetPayload(kConfirmRulePayload);
      rule.has_value()) {
    SerialMetrics::Get().policy_confirmations.With({"requested"}).Increment();
    port.RecordEvent(
        absl::StrCat("confirmation required (rule '", std::string(*rule), "'): ", shown));
    if (!limits->settings.empty()) {
      status.SetPayload(kConfirmQuantityPayload,
                        absl::Cord(DescribeSettings(port, limits->settings)));
    }
  } else {
    SerialMetrics::Get().policy_refusals.With({"write"}).Increment();
    port.RecordEvent(absl::StrCat("write refused by policy: ", status.message()));
  }
  return status;
}

void PortService::Write(const std::string& owner, ManagedPort& port, std::string bytes,
                        const TransferOptions& options,
                        std::function<void(absl::StatusOr<WriteResult>)> done) {
  if (absl::Status allowed = CheckWrite(owner, port, bytes, options.confirmation, "write");
      !allowed.ok()) {
    return done(allowed);
  }
  int64_t timeout_ms = port.Snapshot().settings.timeout_ms;
  if (options.timeout_ms.has_value()) {
    if (absl::Status status = ValidateTimeout(*options.timeout_ms); !status.ok()) {
      return done(status);
    }
    timeout_ms = *options.timeout_ms;
  }
  port.Write(std::move(bytes), options.text_mode, timeout_ms, std::move(done));
}

absl::StatusOr<ReadParams> PortService::ReadParamsFor(const ManagedPort& port,
                                                      const TransferOptions& options) const {
  ReadParams params;
  params.max_bytes = options.max_bytes.value_or(kDefaultReadBytes);
  if (absl::Status status = ValidateMaxBytes(params.max_bytes); !status.ok()) return status;
  params.timeout_ms = port.Snapshot().settings.timeout_ms;
  if (options.timeout_ms.has_value()) {
    if (absl::Status status = ValidateTimeout(*options.timeout_ms); !status.ok()) return status;
    params.timeout_ms = *options.timeout_ms;
  }
  params.text_mode = options.text_mode;
  params.keep_terminator = options.keep_terminator;
  params.abandoned = options.abandoned;
  return params;
}

void PortService::Read(ManagedPort& port, ReadParams params,
                       std::function<void(absl::StatusOr<ReadResult>)> done) {
  port.Read(std::move(params), std::move(done));
}

void PortService::Query(const std::string& owner, ManagedPort& port, std::string bytes,
                        const TransferOptions& options,
                        std::function<void(absl::StatusOr<QueryResult>)> done) {
  if (bytes.empty()) {
    return done(absl::InvalidArgumentError("data is required: the command to send"));
  }
  if (absl::Status allowed = CheckWrite(owner, port, bytes, options.confirmation, "query");
      !allowed.ok()) {
    return done(allowed);
  }
  absl::StatusOr<ReadParams> params = ReadParamsFor(port, options);
  if (!params.ok()) return done(params.status());
  if (std::shared_ptr<const InstrumentProfile> profile = ProfileOf(port);
      profile != nullptr && !profile->readings.empty()) {
    // The profile's readings in the reply go back with it and into the record.
    done = [port = port.shared_from_this(), profile, command = bytes,
            done = std::move(done)](absl::StatusOr<QueryResult> result) {
      if (result.ok()) {
        result->readings = ReadingsIn(*profile, command, result->reply.data);
        for (const ReplyReading& reading : result->readings) {
          port->RecordEvent(absl::StrCat("reading ", reading.name, ": ",
                                         FormatQuantity(reading.value, reading.unit)));
        }
      }
      done(std::move(result));
    };
  }
  port.Query(std::move(bytes), options.text_mode, *std::move(params), std::move(done));
}

void PortService::ClosePort(const std::string& owner, const std::optional<std::string>& name,
                            std::function<void(absl::StatusOr<CloseOutcome>)> done) {
  std::shared_ptr<ManagedPort> port;
  if (name.has_value()) {
    port = registry_.Find(*name);
    if (port != nullptr) {
      if (absl::Status owned = CheckOwner(*port, owner); !owned.ok()) return done(owned);
    }
  } else if (!registry_.OpenPortNamesOf(owner).empty()) {
    absl::StatusOr<std::shared_ptr<ManagedPort>> selected = CallersPort(owner, name);
    if (!selected.ok()) return done(selected.status());
    port = *selected;
  }
  if (port == nullptr) return done(CloseOutcome{"already closed", name.value_or("")});
  port->Close("closed by client",
              [done = std::move(done), port_name = port->name()](std::string status) {
                done(CloseOutcome{std::move(status), port_name});
              });
}

void PortService::ForceClose(const std::string& port_name, const std::string& by,
                             const std::string& reason,
                             std::function<void(absl::StatusOr<CloseOutcome>)> done) {
  std::shared_ptr<ManagedPort> port = registry_.Find(port_name);
  if (port == nullptr) {
    return done(absl::NotFoundError(absl::StrCat("port ", port_name, " is not open")));
  }
  LG_LOG(kWarning) << "port " << port_name << " (owner " << port->owner() << ") closed by " << by
                   << " in the labgate console: " << reason;
  port->Close(absl::StrCat("closed by ", by, " in the labgate console: ", reason),
              [done = std::move(done), name = port->name()](std::string status) {
                done(CloseOutcome{std::move(status), name});
              });
}

void PortService::ReleaseOwner(const std::string& owner,
                               std::function<void(std::vector<std::string>)> done) {
  registry_.CloseAllOf(owner, "released by owner", std::move(done));
}

std::vector<std::pair<std::string, PortState>> PortService::CurrentPortStates() const {
  std::vector<std::pair<std::string, PortState>> states;
  for (const std::string& name : registry_.OpenPortNames()) {
    std::shared_ptr<ManagedPort> port = registry_.Find(name);
    if (port == nullptr) continue;  // closed meanwhile; its CLOSED event is on the stream
    // A port still opening reports OPENED on the stream once it is open.
    const PortState state = port->state();
    if (state != PortState::kOpen && state != PortState::kError) continue;
    states.emplace_back(name, state);
  }
  return states;
}

}  // namespace labgate::serial
