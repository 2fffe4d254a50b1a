// PortService's named instruments: listing them, opening one wherever it is with its identity
// checked, and reopening a lost one when its device comes back (re-enumeration).
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "common/log.h"
#include "serial-service/backends/libserialport_backend.h"
#include "serial-service/instruments/identity_probe.h"
#include "serial-service/instruments/instrument_locator.h"
#include "serial-service/port_service.h"
#include "serial-service/serial_metrics.h"

namespace labgate::serial {
namespace {

// A probe of a port that may not be the instrument (a candidate, or a device that came back)
// waits at most this long: the watcher must not stall on a device that never answers.
constexpr int64_t kProbeWaitMs = 2000;

bool NeedsListing(const NamedInstrument& named) {
  return named.match.kind == InstrumentMatch::Kind::kUsbSerial ||
         named.match.kind == InstrumentMatch::Kind::kIdnSerial;
}

// Whether `reply` comes from the instrument that answered `first` when it was opened: the same
// serial number, or without one in the profile's pattern, the same reply.
bool SameInstrument(const InstrumentProfile& profile, const std::optional<std::string>& first,
                    const std::string& reply) {
  if (!first.has_value()) return true;
  const std::optional<std::string> serial = SerialInProbeReply(profile, *first);
  if (serial.has_value()) return SerialInProbeReply(profile, reply) == serial;
  return reply == *first;
}

std::string MatchText(const NamedInstrument& named) {
  return absl::StrCat(MatchKindName(named.match.kind), " ", named.match.value);
}

// The settings a probe of `profile`'s instrument uses: the profile's, over the defaults.
PortSettings ProbeSettings(const InstrumentProfile& profile) {
  const InstrumentProfile::Settings& given = profile.settings;
  PortSettings settings;
  settings.baud_rate = given.baud_rate.value_or(9600);
  settings.timeout_ms = given.timeout_ms.value_or(kProbeWaitMs);
  settings.data_bits = static_cast<int>(given.data_bits.value_or(8));
  settings.stop_bits = static_cast<int>(given.stop_bits.value_or(1));
  const std::string parity = given.parity.value_or("none");
  settings.parity = parity == "odd"    ? Parity::kOdd
                    : parity == "even" ? Parity::kEven
                                       : Parity::kNone;
  const std::string flow = given.flow_control.value_or("none");
  settings.flow_control = flow == "hardware"   ? FlowControl::kHardware
                          : flow == "software" ? FlowControl::kSoftware
                                               : FlowControl::kNone;
  settings.terminator = given.terminator.value_or("\n");
  return settings;
}

}  // namespace

absl::Status PortService::ReloadInstruments() { return instruments_.Load(); }

void PortService::ListInstruments(
    std::function<void(absl::StatusOr<std::vector<InstrumentListing>>)> done) {
  OnMiscWorker([this, done = std::move(done)] {
    std::shared_ptr<const InstrumentCatalog> catalog = instruments_.catalog();
    std::vector<PortDetails> listed;
    const bool any_listing = std::any_of(catalog->instruments.begin(), catalog->instruments.end(),
                                         [](const NamedInstrument& i) { return NeedsListing(i); });
    if (any_listing) {
      absl::StatusOr<std::vector<PortDetails>> ports = port_lister_();
      if (!ports.ok()) return done(ports.status());
      listed = *std::move(ports);
    }
    std::vector<InstrumentListing> instruments;
    instruments.reserve(catalog->instruments.size());
    for (const NamedInstrument& named : catalog->instruments) {
      InstrumentListing listing;
      listing.named = named;
      for (const auto& profile : catalog->profiles) {
        if (profile->model == named.profile) listing.profile = profile;
      }
      if (std::shared_ptr<ManagedPort> port = registry_.Find(named.name); port != nullptr) {
        listing.open = true;
        listing.owner = port->owner();
        listing.path = port->device_path();
        listing.present = port->state() == PortState::kOpen;
        if (!listing.present) listing.absent_reason = "lost; waiting for the device to come back";
      } else if (listing.profile != nullptr) {
        InstrumentLocation location = LocateInstrument(named, *listing.profile, listed);
        if (named.match.kind == InstrumentMatch::Kind::kIdnSerial) {
          // Probing writes to ports; a listing only reports where a probe found it last.
          location.path = instruments_.LastFoundAt(named.name);
          if (location.path.has_value() &&
              std::find(location.probe_candidates.begin(), location.probe_candidates.end(),
                        *location.path) == location.probe_candidates.end()) {
            location.path.reset();
          }
          if (!location.path.has_value()) {
            location.absent_reason = "not known until open_port probes for it";
          }
        }
        listing.present = location.path.has_value();
        listing.path = location.path;
        listing.absent_reason = location.absent_reason;
      }
      // As list_ports does: an instrument where the policy lists no port is not shown.
      if (listing.path.has_value() && !policy_.Listed(*listing.path)) continue;
      instruments.push_back(std::move(listing));
    }
    done(std::move(instruments));
  });
}

absl::StatusOr<std::string> PortService::InstrumentAt(const std::string& path) {
  std::shared_ptr<const InstrumentCatalog> catalog = instruments_.catalog();
  std::vector<PortDetails> listed;
  bool listing = false;
  for (const NamedInstrument& named : catalog->instruments) {
    const InstrumentProfile* profile = catalog->ProfileFor(named.profile);
    if (profile == nullptr) continue;
    if (named.match.kind == InstrumentMatch::Kind::kIdnSerial) {
      const std::optional<std::string> found = instruments_.LastFoundAt(named.name);
      if (found.has_value()) {
        if (SameDevice(*found, path)) return named.name;
        continue;
      }
    }
    if (NeedsListing(named) && !listing) {
      listing = true;
      absl::StatusOr<std::vector<PortDetails>> ports = port_lister_();
      // Without the listing the port might be a supply with limits: refused, not guessed.
      if (!ports.ok()) {
        return absl::UnavailableError(absl::StrCat(
            "cannot tell whether ", path,
            " is a named instrument: listing ports failed: ", ports.status().message()));
      }
      listed = *std::move(ports);
    }
    const InstrumentLocation location = LocateInstrument(named, *profile, listed);
    if (location.path.has_value() && SameDevice(*location.path, path)) return named.name;
    // Never found yet, it may be this port: probed as open_port {instrument} would probe it,
    // rather than opened without the instrument's limits.
    // (A port someone has open is not probed: the open is refused anyway, as the port is in use.)
    if (named.match.kind == InstrumentMatch::Kind::kIdnSerial && profile->probe.has_value() &&
        registry_.FindByDevice(path) == nullptr &&
        std::any_of(
            location.probe_candidates.begin(), location.probe_candidates.end(),
            [&path](const std::string& candidate) { return SameDevice(candidate, path); })) {
      std::optional<absl::StatusOr<std::string>> reply =
          Probe(named, *profile, path, ProbeSettings(*profile));
      if (!reply.has_value()) {
        return absl::UnavailableError(absl::StrCat("cannot tell whether ", path, " is ", named.name,
                                                   ": it could not be opened to probe"));
      }
      if (reply->ok() && CheckIdentity(named, *profile, **reply, path).ok()) {
        instruments_.NoteFoundAt(named.name, path);
        return named.name;
      }
    }
  }
  return std::string();
}

std::optional<absl::StatusOr<std::string>> PortService::Probe(const NamedInstrument& named,
                                                              const InstrumentProfile& profile,
                                                              const std::string& candidate,
                                                              const PortSettings& settings) {
  if (!profile.probe.has_value())
    return absl::StatusOr<std::string>(absl::FailedPreconditionError(
        absl::StrCat("the profile of ", named.name, " has no probe")));
  std::unique_ptr<SerialPort> backend = registry_.MakeBackend(candidate);
  if (backend == nullptr || !backend->Open().ok()) return std::nullopt;
  // A device a closed port left holding half a line would read the probe as that line's end:
  // the probe ends it first, as on open.
  std::string command = profile.probe->command;
  std::shared_ptr<SharedWrittenLine> unfinished =
      settings.terminator.empty() ? nullptr : registry_.UnfinishedLineAt(DevicePathOf(candidate));
  if (unfinished != nullptr) command.insert(0, settings.terminator);
  absl::StatusOr<std::string> reply = absl::UnknownError("not probed");
  if (absl::Status configured = backend->Configure(settings); configured.ok()) {
    reply = ProbeBackend(*backend, command, settings.terminator,
                         std::min(settings.timeout_ms, kProbeWaitMs), [&](const std::string& line) {
                           return CheckIdentity(named, profile, line, candidate).ok();
                         });
    if (unfinished != nullptr) {
      absl::MutexLock lock(&unfinished->mu);
      unfinished->line.Clear();
    }
  }
  backend->Close();
  return reply;
}

absl::StatusOr<std::string> PortService::LocateForOpen(const NamedInstrument& named,
                                                       const InstrumentProfile& profile,
                                                       const PortSettings& settings) {
  std::vector<PortDetails> listed;
  if (NeedsListing(named)) {
    absl::StatusOr<std::vector<PortDetails>> ports = port_lister_();
    if (!ports.ok()) return ports.status();
    listed = *std::move(ports);
  }
  InstrumentLocation location = LocateInstrument(named, profile, listed);
  if (location.path.has_value()) return *location.path;
  if (named.match.kind != InstrumentMatch::Kind::kIdnSerial || !profile.probe.has_value()) {
    return absl::NotFoundError(absl::StrCat("instrument ", named.name, " (", MatchText(named),
                                            ") is not present: ", location.absent_reason));
  }
  // Only ports nobody has open are probed: a probe must not cut into someone's conversation.
  std::vector<std::string> tried;
  for (const std::string& candidate : location.probe_candidates) {
    if (std::shared_ptr<ManagedPort> holder = registry_.FindByDevice(candidate);
        holder != nullptr && holder->state() != PortState::kError) {
      continue;
    }
    std::optional<absl::StatusOr<std::string>> reply = Probe(named, profile, candidate, settings);
    if (!reply.has_value()) continue;
    if (reply->ok() && CheckIdentity(named, profile, **reply, candidate).ok()) {
      instruments_.NoteFoundAt(named.name, candidate);
      return candidate;
    }
    tried.push_back(
        absl::StrCat(candidate, " (", reply->ok() ? "'" + **reply + "'" : "no answer", ")"));
  }
  return absl::NotFoundError(
      absl::StrCat("instrument ", named.name, " (", MatchText(named), ") is not present: ",
                   tried.empty() ? "no port to probe" : "probed " + absl::StrJoin(tried, ", ")));
}

void PortService::OpenInstrument(const std::string& owner, const std::string& instrument,
                                 const PortSettings& settings,
                                 std::function<void(absl::StatusOr<OpenedInstrument>)> done) {
  if (absl::Status can = CheckCanRecord(settings.session_id); !can.ok()) return done(can);
  done = UnlessOwnerGone(owner, std::move(done));
  OnMiscWorker([this, owner, instrument, settings, done = std::move(done)]() mutable {
    CheckReservedForOpen(
        owner, {instrument},
        [this, owner, instrument, settings,
         done = std::move(done)](const absl::Status& reserved) mutable {
          if (!reserved.ok()) return done(reserved);
          OnMiscWorker([this, owner, instrument, settings, done = std::move(done)]() mutable {
            OpenReservedInstrument(owner, instrument, settings, std::move(done));
          });
        });
  });
}

void PortService::OpenReservedInstrument(
    const std::string& owner, const std::string& instrument, const PortSettings& settings,
    std::function<void(absl::StatusOr<OpenedInstrument>)> done) {
  std::shared_ptr<const InstrumentCatalog> catalog = instruments_.catalog();
  const NamedInstrument* named = catalog->Find(instrument);
  if (named == nullptr) {
    std::vector<std::string> names;
    for (const NamedInstrument& known : catalog->instruments) names.push_back(known.name);
    return done(absl::NotFoundError(
        absl::StrCat("no instrument named '", instrument, "'; ",
                     names.empty() ? "none are configured (labgate-serial --instruments FILE)"
                                   : "instruments: " + absl::StrJoin(names, ", "))));
  }
  const InstrumentProfile* profile = catalog->ProfileFor(named->profile);
  if (profile == nullptr) {
    return done(absl::InternalError("instrument without its profile: " + instrument));
  }
  if (std::shared_ptr<ManagedPort> open = registry_.Find(instrument);
      open != nullptr && open->owner() != owner && grants_ != nullptr &&
      grants_->HolderOf({instrument, open->device_path()}) == owner) {
    // The holder of the grant takes it: the other's port closes, then this open goes on.
    return YieldToHolder(
        owner, instrument, open->device_path(), [this, owner, instrument, settings, done] {
          if (std::shared_ptr<ManagedPort> still = registry_.Find(instrument);
              still != nullptr && still->owner() != owner) {
            return done(PortInUseError(instrument, still->owner()));  // not given up: no loop
          }
          OpenInstrument(owner, instrument, settings, done);
        });
  }
  // An instrument already open (by its name or its path) is refused before anything is probed.
  if (std::shared_ptr<ManagedPort> open = registry_.Find(instrument);
      open != nullptr && open->state() != PortState::kError) {
    if (open->owner() != owner) return done(PortInUseError(instrument, open->owner()));
    return done(absl::AlreadyExistsError(
        absl::StrCat("Port is already open: ", instrument, " is open as ", open->name())));
  }
  absl::StatusOr<std::string> path = LocateForOpen(*named, *profile, settings);
  if (!path.ok()) return done(path.status());
  // A grant on the device's path binds the instrument there too.
  if (absl::Status reserved = CheckReserved(owner, {instrument, *path}); !reserved.ok()) {
    return done(reserved);
  }
  if (absl::Status allowed = policy_.CheckOpen(*path, settings.baud_rate); !allowed.ok()) {
    SerialMetrics::Get().policy_refusals.With({"open"}).Increment();
    return done(allowed);
  }
  std::optional<InstrumentProfile::Probe> probe = profile->probe;
  NamedInstrument expected = *named;
  registry_.Open(
      owner, instrument, settings,
      [this, owner, instrument, settings, path = *path, probe, expected, catalog,
       done = std::move(done)](const absl::Status& opened) mutable {
        if (!opened.ok()) return done(opened);
        OpenedInstrument result{settings, path, ""};
        std::shared_ptr<ManagedPort> port = registry_.Find(instrument);
        if (!probe.has_value() || port == nullptr) return done(result);
        ReadParams params;
        params.timeout_ms = settings.timeout_ms;
        params.max_bytes = 1024;
        auto identification = std::make_shared<Identification>();
        identification->port = port;
        identification->expected = expected;
        identification->catalog = catalog;
        identification->path = path;
        identification->result = std::move(result);
        identification->deadline =
            std::chrono::steady_clock::now() + std::chrono::milliseconds(settings.timeout_ms);
        identification->done = std::move(done);
        // A device holding half a line would read the probe as its end: finish that line first.
        std::string command = probe->command;
        if (port->HasUnfinishedLine()) command.insert(0, settings.terminator);
        port->Query(std::move(command), /*text_mode=*/true, params,
                    [this, identification](absl::StatusOr<QueryResult> answered) {
                      Identify(identification, answered.ok() ? answered->reply.data : "");
                    });
      },
      PortIdentity{*path, instrument});
}

void PortService::Identify(const std::shared_ptr<Identification>& id, const std::string& line) {
  const InstrumentProfile* profile = id->catalog->ProfileFor(id->expected.profile);
  const std::string reply = TrimmedReply(line);
  if (!reply.empty()) id->answered.push_back(reply);
  if (!reply.empty() && CheckIdentity(id->expected, *profile, reply, id->path).ok()) {
    id->result.identity = reply;
    instruments_.NoteIdentity(id->expected.name, reply);
    id->port->RecordEvent(
        absl::StrCat("instrument ", id->expected.name, " at ", id->path, " identified: ", reply));
    return id->done(std::move(id->result));
  }
  // A line that is not the answer (a power-on banner, a prompt) may come first: read on, within
  // the probe's time, for a few lines. What is read is recorded as any rx is.
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      id->deadline - std::chrono::steady_clock::now());
  if (!line.empty() && left.count() > 0 && id->answered.size() < kLinesBeforeIdentity) {
    ReadParams params;
    params.timeout_ms = left.count();
    params.max_bytes = 1024;
    id->port->Read(params, [this, id](absl::StatusOr<ReadResult> read) {
      Identify(id, read.ok() ? read->data : "");
    });
    return;
  }
  // The last line is most likely the probe's answer: it is the one named.
  const absl::Status identity = CheckIdentity(
      id->expected, *profile, id->answered.empty() ? "" : id->answered.back(), id->path);
  LG_LOG(kWarning) << std::string(identity.message());
  id->port->RecordEvent(std::string(identity.message()));
  id->port->Close("not the instrument expected",
                  [identity, done = std::move(id->done)](const std::string&) { done(identity); });
}

void PortService::WatchInstruments() {
  while (true) {
    {
      absl::MutexLock lock(&watch_mu_);
      if (watch_mu_.AwaitWithTimeout(absl::Condition(&watch_stop_),
                                     absl::FromChrono(instrument_watch_period_))) {
        return;
      }
    }
    for (const std::string& name : registry_.OpenPortNames()) {
      std::shared_ptr<ManagedPort> port = registry_.Find(name);
      if (port == nullptr || port->instrument().empty() || port->state() != PortState::kError) {
        continue;
      }
      ReattachLost(port);
    }
  }
}

void PortService::ReattachLost(const std::shared_ptr<ManagedPort>& port) {
  std::shared_ptr<const InstrumentCatalog> catalog = instruments_.catalog();
  const NamedInstrument* named = catalog->Find(port->instrument());
  if (named == nullptr) return;  // removed by a reload: it stays lost until closed
  const InstrumentProfile* profile = catalog->ProfileFor(named->profile);
  if (profile == nullptr) return;
  const PortSettings settings = port->Snapshot().settings;
  absl::StatusOr<std::string> path = LocateForOpen(*named, *profile, settings);
  if (!path.ok()) return;
  std::unique_ptr<SerialPort> backend = registry_.MakeBackend(*path);
  if (backend == nullptr || !backend->Open().ok()) return;
  bool line_ended = false;
  if (profile->probe.has_value()) {
    // Only the instrument it was may take its place. A device still holding half a line (it
    // kept power while its link was lost) would read the probe as that line's end.
    std::string command = profile->probe->command;
    if (port->HasUnfinishedLine()) {
      command.insert(0, settings.terminator);
      line_ended = !settings.terminator.empty();
    }
    absl::StatusOr<std::string> reply = absl::UnknownError("not probed");
    if (backend->Configure(settings).ok()) {
      reply = ProbeBackend(
          *backend, command, settings.terminator, std::min(settings.timeout_ms, kProbeWaitMs),
          [&](const std::string& line) {
            return CheckIdentity(*named, *profile, line, *path).ok() &&
                   SameInstrument(*profile, instruments_.IdentityOf(named->name), line);
          });
    }
    if (!reply.ok() || !CheckIdentity(*named, *profile, *reply, *path).ok() ||
        !SameInstrument(*profile, instruments_.IdentityOf(named->name), *reply)) {
      backend->Close();
      return;
    }
  }
  // Done before any write can reach the device that came back: the device's half line is its
  // own, wherever it is now (the probe may have ended it), and as it may have been
  // power-cycled, the values remembered before are not to be stepped from.
  auto before_open = [&]() -> std::string {
    registry_.MoveWrittenLine(*port, *path);
    if (line_ended && port->written_line() != nullptr) {
      absl::MutexLock lock(&port->written_line()->mu);
      port->written_line()->line.Clear();
    }
    InstrumentRegistry::Limits limits = instruments_.LimitsOf(port->instrument());
    if (limits.limits == nullptr) return "";
    absl::MutexLock lock(&limits.state->mu);
    limits.limits->Reset(&limits.state->state, std::chrono::steady_clock::now());
    return "device back: its limits take it as reset (declared defaults; other values unknown)";
  };
  absl::Notification reattached;
  port->Reattach(std::move(backend), *path, before_open, [&reattached](const absl::Status& status) {
    if (!status.ok()) LG_LOG(kWarning) << "reattach: " << std::string(status.message());
    reattached.Notify();
  });
  reattached.WaitForNotification();
}

}  // namespace labgate::serial
