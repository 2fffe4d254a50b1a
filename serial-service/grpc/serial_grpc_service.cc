// The service's methods, each written once against CallContext (the caller, its deadline and
// a relayed confirmation) and served both over gRPC and in process: each hands the request to
// PortService and writes what it answers into the response. Handlers never block: PortService
// finishes each call from its completion.
#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/call_finish.h"
#include "common/grpc_status.h"
#include "common/grpc_unary_call.h"
#include "common/local_methods.h"
#include "serial-service/grpc/instrument_messages.h"
#include "serial-service/grpc/replay_messages.h"
#include "serial-service/grpc/stream_reactors.h"
#include "serial-service/instruments/instrument_locator.h"
#include "serial-service/policy/port_policy_proto.h"
#include "serial-service/port_service.h"
#include "serial-service/ports/data_encoding.h"
#include "serial-service/ports/port_settings.h"
#include "serial-service/reservations/grant_watcher.h"
#include "serial-service/reservations/inventory_publisher.h"
#include "serial-service/serial_service.h"

namespace labgate::serial {
namespace {

// How long a started labgate-serial's checks wait for the reservation service's first snapshot:
// long enough for a slow link, short enough that a lab whose reservation service is down still
// works (without grants) once the wait ends.
constexpr absl::Duration kFirstReservationWordHold = absl::Seconds(5);

using SignalsDone = std::function<void(absl::StatusOr<ModemSignals>)>;

void Reply(CallContext* call, const absl::Status& status) { FinishNow(call, status); }

v1::PortState StateToProto(PortState state) {
  switch (state) {
    case PortState::kOpening:
    case PortState::kOpen:
      return v1::PORT_STATE_OPEN;
    case PortState::kError:
      return v1::PORT_STATE_ERROR;
    case PortState::kClosed:
      break;
  }
  return v1::PORT_STATE_CLOSED;
}

std::optional<std::string> OptionalName(bool has, const std::string& name) {
  if (!has || name.empty()) return std::nullopt;
  return name;
}

// The text encodings (and none) make text writes and reads; hex and base64 binary ones.
bool IsTextMode(v1::Encoding encoding) {
  return encoding == v1::ENCODING_UNSPECIFIED || encoding == v1::ENCODING_TEXT;
}

absl::Status BadEncoding() {
  return absl::InvalidArgumentError("encoding must be one of text, hex, base64");
}

void FillDetails(const PortDetails& details, v1::PortDetails* out) {
  out->set_port_name(details.port_name);
  out->set_transport(TransportToProto(details.transport));
  if (details.usb_vid >= 0) {
    out->set_vid(absl::StrCat("0x", absl::Hex(details.usb_vid, absl::kZeroPad4)));
    out->set_pid(absl::StrCat("0x", absl::Hex(details.usb_pid, absl::kZeroPad4)));
  }
  if (details.serial_number) out->set_serial_number(*details.serial_number);
  if (details.manufacturer) out->set_manufacturer(*details.manufacturer);
  if (details.product) out->set_product(*details.product);
  if (details.description) out->set_description(*details.description);
}

void FillReadResponse(const ReadResult& result, v1::Encoding encoding, const std::string& name,
                      v1::ReadResponse* response) {
  response->set_port_name(name);
  response->set_bytes_read_total(result.bytes_read_total);
  response->set_not_recorded(result.not_recorded);
  if (result.auto_closed) {
    response->set_event("auto_close");
    response->set_reason("idle_timeout");
    response->set_idle_ms(result.idle_ms);
    response->set_idle_close_count(result.idle_close_count);
    response->set_encoding(v1::ENCODING_TEXT);
    return;
  }
  EncodedData encoded = EncodeData(result.data, encoding);
  response->set_data(std::move(encoded.data));
  response->set_encoding(encoded.encoding);
  response->set_bytes_read(static_cast<int64_t>(result.data.size()));
  response->set_timed_out(result.timed_out);
}

// A script's outcome (send_expect, run_sequence): text when every match and `before` is UTF-8,
// base64 otherwise.
void FillScriptResponse(const ScriptResult& result, const std::string& name, v1::Encoding encoding,
                        v1::SendExpectResponse* response) {
  response->set_port_name(name);
  response->set_completed(result.completed);
  response->set_failed_step(result.failed_step);
  response->set_latency_ms(result.latency_ms);
  v1::Encoding spelled = encoding;
  if (IsTextMode(encoding)) {
    for (const StepOutcome& step : result.steps) {
      bool utf8 = IsValidUtf8(step.wait.match) && IsValidUtf8(step.wait.before);
      for (const std::string& group : step.wait.groups) utf8 = utf8 && IsValidUtf8(group);
      if (!utf8) spelled = v1::ENCODING_BASE64;
    }
  }
  int index = 0;
  for (const StepOutcome& step : result.steps) {
    v1::StepOutcome* out = response->add_steps();
    out->set_index(index++);
    out->set_latency_ms(step.latency_ms);
    switch (step.kind) {
      case ScriptStep::Kind::kSend:
        out->set_kind("send");
        out->set_bytes_written(step.bytes_written);
        break;
      case ScriptStep::Kind::kExpect:
        out->set_kind("expect");
        out->set_matched(step.wait.matched);
        out->set_pattern_index(step.wait.pattern_index);
        out->set_match(EncodeData(step.wait.match, spelled).data);
        for (const std::string& group : step.wait.groups) {
          out->add_groups(EncodeData(group, spelled).data);
        }
        out->set_before(EncodeData(step.wait.before, spelled).data);
        out->set_timed_out(step.wait.timed_out);
        break;
      case ScriptStep::Kind::kDelay:
        out->set_kind("delay");
        break;
      case ScriptStep::Kind::kSignal:
        out->set_kind("signal");
        break;
    }
  }
  response->set_encoding(spelled == v1::ENCODING_UNSPECIFIED ? v1::ENCODING_TEXT : spelled);
}

class SerialServiceImpl final : public SerialGrpcService {
 public:
  // Whether a call reads a port (the RPC's read_only_hint) or changes it.
  enum class PortUse { kRead, kChange };

  SerialServiceImpl(std::unique_ptr<PortService> ports, size_t queue_limit, CallerAuth auth,
                    std::shared_ptr<const access::AccessControl> access)
      : ports_(std::move(ports)),
        queue_limit_(queue_limit),
        auth_(std::move(auth)),
        access_(std::move(access)) {}

  void JoinReservations(const std::shared_ptr<grpc::Channel>& channel, const std::string& bench,
                        const std::string& token) override {
    InventoryPublisherOptions options;
    options.bench = bench;
    options.token = token;
    JoinReservations(channel, std::move(options));
  }

  // Joins the bench reservations of the service behind `channel`: reports what can be reserved,
  // and enforces the grants it hears of.
  void JoinReservations(const std::shared_ptr<grpc::Channel>& channel,
                        InventoryPublisherOptions options) {
    grants_ = std::make_shared<GrantTable>(options.bench, kFirstReservationWordHold);
    ports_->SetGrants(grants_);
    GrantWatcherOptions watching;
    watching.token = options.token;
    grant_watcher_ = std::make_unique<GrantWatcher>(channel, grants_, watching);
    publisher_ = std::make_unique<InventoryPublisher>(
        channel, [this] { return GatherReservables(); }, std::move(options));
  }

  std::optional<GrantTable::State> ReservationState() const override {
    if (grants_ == nullptr) return std::nullopt;
    return grants_->state();
  }

  ~SerialServiceImpl() override { Shutdown(); }

  absl::Status ReloadPolicy() override {
    absl::Status policy = ports_->ReloadPolicy();
    absl::Status instruments = ports_->ReloadInstruments();
    return policy.ok() ? instruments : policy;
  }

  void SetSessionChannel(std::shared_ptr<grpc::Channel> channel) override {
    ports_->SetSessionChannel(std::move(channel));
  }

  void Shutdown() override {
    publisher_.reset();  // it reads the ports
    grant_watcher_.reset();
    if (!ports_->StopPorts()) return;
    tracker_.EndAll();
    ports_->DrainRecords(std::chrono::seconds(2));
  }

  void ServeListPorts(CallContext* call, const v1::ListPortsRequest*,
                      v1::ListPortsResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->ListPorts(
        FinishWith<std::vector<ListedPort>>(call, [response](const std::vector<ListedPort>& ports) {
          for (const ListedPort& port : ports) {
            v1::PortInfo* info = response->add_ports();
            info->set_port_name(port.port_name);
            if (port.instrument.has_value()) info->set_instrument(*port.instrument);
          }
        }));
  }

  void ServeListInstruments(CallContext* call, const v1::ListInstrumentsRequest*,
                            v1::ListInstrumentsResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->ListInstruments(FinishWith<std::vector<InstrumentListing>>(
        call, [response](const std::vector<InstrumentListing>& instruments) {
          for (const InstrumentListing& listing : instruments) {
            InstrumentListingToProto(listing, response->add_instruments());
          }
        }));
  }

  void ServeListPortsExtended(CallContext* call, const v1::ListPortsExtendedRequest*,
                              v1::ListPortsExtendedResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->ListPortsExtended(FinishWith<std::vector<PortDetails>>(
        call, [response](const std::vector<PortDetails>& ports) {
          for (const PortDetails& port : ports) FillDetails(port, response->add_ports());
        }));
  }

  void ServeDescribePort(CallContext* call, const v1::DescribePortRequest* request,
                         v1::DescribePortResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->DescribePort(
        call->principal(), request->port_name(),
        FinishWith<PortDescription>(call, [response](const PortDescription& description) {
          response->set_backend(description.backend);
          FillDetails(description.details, response->mutable_port());
          if (!description.open.has_value()) {
            response->set_state(v1::PORT_STATE_CLOSED);
            return;
          }
          response->set_state(StateToProto(description.open->state));
          SettingsToProto(description.open->settings, response->mutable_settings());
          response->set_owned_by_caller(description.owned_by_caller);
        }));
  }

  void ServeOpenPort(CallContext* call, const v1::OpenPortRequest* request,
                     v1::OpenPortResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    const std::string& target =
        request->has_instrument() ? request->instrument() : request->port_name();
    if (absl::Status allowed = MayUse(call, target, PortUse::kChange); !allowed.ok()) {
      return Reply(call, allowed);
    }
    if (request->has_instrument()) return OpenInstrument(call, request, response);
    absl::StatusOr<PortSettings> settings = SettingsFromOpenRequest(*request);
    if (!settings.ok()) return Reply(call, settings.status());
    ports_->OpenPort(
        call->principal(), request->port_name(), *settings,
        FinishWith<PortSettings>(call, [request, response](const PortSettings& opened) {
          response->set_status("opened");
          response->set_port_name(request->port_name());
          SettingsToProto(opened, response->mutable_settings());
        }));
  }

  void OpenInstrument(CallContext* call, const v1::OpenPortRequest* request,
                      v1::OpenPortResponse* response) {
    if (!request->port_name().empty()) {
      return Reply(call, absl::InvalidArgumentError(
                             "give port_name or instrument, not both: an instrument is opened "
                             "wherever it is now"));
    }
    std::shared_ptr<const InstrumentCatalog> catalog = ports_->instruments();
    const NamedInstrument* named = catalog->Find(request->instrument());
    const InstrumentProfile* profile =
        named != nullptr ? catalog->ProfileFor(named->profile) : nullptr;
    if (profile == nullptr) {
      // PortService names the instruments there are.
      ports_->OpenInstrument(call->principal(), request->instrument(), PortSettings(),
                             FinishWith<OpenedInstrument>(call, [](const OpenedInstrument&) {}));
      return;
    }
    absl::StatusOr<PortSettings> settings = InstrumentSettingsFromOpenRequest(*request, *profile);
    if (!settings.ok()) return Reply(call, settings.status());
    ports_->OpenInstrument(
        call->principal(), request->instrument(), *settings,
        FinishWith<OpenedInstrument>(call, [request, response](const OpenedInstrument& opened) {
          response->set_status("opened");
          response->set_port_name(request->instrument());
          SettingsToProto(opened.settings, response->mutable_settings());
          response->set_device_path(opened.device_path);
          if (!opened.identity.empty()) response->set_identity(opened.identity);
        }));
  }

  void ServeReconfigurePort(CallContext* call, const v1::ReconfigurePortRequest* request,
                            v1::ReconfigurePortResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    absl::StatusOr<PortSettings> settings =
        ApplyReconfigure((*port)->Snapshot().settings, *request);
    if (!settings.ok()) return Reply(call, settings.status());
    ports_->Reconfigure(**port, *settings,
                        FinishWith<PortSettings>(
                            call, [response, name = (*port)->name()](const PortSettings& applied) {
                              response->set_status("reconfigured");
                              response->set_port_name(name);
                              SettingsToProto(applied, response->mutable_settings());
                            }));
  }

  void ServeWrite(CallContext* call, const v1::WriteRequest* request, v1::WriteResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    absl::StatusOr<std::string> bytes = DecodeData(request->data(), request->encoding());
    if (!bytes.ok()) return Reply(call, bytes.status());
    TransferOptions options;
    options.text_mode = IsTextMode(request->encoding());
    if (request->has_timeout_ms()) options.timeout_ms = request->timeout_ms();
    options.confirmation = call->confirmation();
    ports_->Write(
        call->principal(), **port, *std::move(bytes), options,
        FinishWith<WriteResult>(call, [response, name = (*port)->name()](const WriteResult& wrote) {
          response->set_bytes_written(wrote.bytes_written);
          response->set_bytes_written_total(wrote.bytes_written_total);
          response->set_port_name(name);
          response->set_not_recorded(wrote.not_recorded);
        }));
  }

  void ServeRead(CallContext* call, const v1::ReadRequest* request, v1::ReadResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    const v1::Encoding encoding = request->encoding();
    TransferOptions options;
    if (request->has_max_bytes()) options.max_bytes = request->max_bytes();
    if (request->has_timeout_ms()) options.timeout_ms = request->timeout_ms();
    options.text_mode = IsTextMode(encoding);
    // The call outlives the read: it finishes only in the read's callback.
    options.abandoned = [call] { return call->IsCancelled(); };
    absl::StatusOr<ReadParams> params = ports_->ReadParamsFor(**port, options);
    if (!params.ok()) return Reply(call, params.status());
    if (!v1::Encoding_IsValid(encoding)) return Reply(call, BadEncoding());
    ports_->Read(**port, *std::move(params),
                 FinishWith<ReadResult>(
                     call, [response, encoding, name = (*port)->name()](const ReadResult& result) {
                       FillReadResponse(result, encoding, name, response);
                     }));
  }

  void ServeWaitFor(CallContext* call, const v1::WaitForRequest* request,
                    v1::WaitForResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request, PortUse::kRead);
    if (!port.ok()) return Reply(call, port.status());
    const v1::Encoding encoding = request->encoding();
    if (!v1::Encoding_IsValid(encoding)) return Reply(call, BadEncoding());
    PortService::WaitRequest wait;
    wait.patterns.assign(request->patterns().begin(), request->patterns().end());
    wait.regex = !request->has_regex() || request->regex();
    wait.binary = !IsTextMode(encoding);
    wait.from_new = request->from() == v1::WAIT_FROM_NEW;
    if (request->has_timeout_ms()) wait.timeout_ms = request->timeout_ms();
    if (request->has_max_bytes()) wait.max_bytes = request->max_bytes();
    wait.abandoned = [call] { return call->IsCancelled(); };
    ports_->WaitFor(
        **port, wait,
        FinishWith<WaitResult>(call, [response, encoding,
                                      name = (*port)->name()](const WaitResult& result) {
          response->set_port_name(name);
          response->set_matched(result.matched);
          response->set_pattern_index(result.pattern_index);
          // One spelling for every field: base64 for all when any text is not UTF-8.
          v1::Encoding spelled = encoding;
          if (IsTextMode(encoding)) {
            bool utf8 = IsValidUtf8(result.match) && IsValidUtf8(result.before);
            for (const std::string& group : result.groups) utf8 = utf8 && IsValidUtf8(group);
            if (!utf8) spelled = v1::ENCODING_BASE64;
          }
          response->set_match(EncodeData(result.match, spelled).data);
          for (const std::string& group : result.groups) {
            response->add_groups(EncodeData(group, spelled).data);
          }
          response->set_before(EncodeData(result.before, spelled).data);
          response->set_before_truncated(result.before_truncated);
          response->set_bytes_consumed(result.bytes_consumed);
          response->set_timed_out(result.timed_out);
          response->set_latency_ms(result.latency_ms);
          response->set_encoding(spelled == v1::ENCODING_UNSPECIFIED ? v1::ENCODING_TEXT : spelled);
        }));
  }

  void ServeRunSequence(CallContext* call, const v1::RunSequenceRequest* request,
                        v1::SendExpectResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    if (request->name().empty()) {
      return Reply(call, absl::InvalidArgumentError("name is required: the sequence to run"));
    }
    ports_->RunSequence(
        call->principal(), **port, request->name(), call->confirmation(),
        [call] { return call->IsCancelled(); },
        FinishWith<ScriptResult>(call,
                                 [response, name = (*port)->name()](const ScriptResult& result) {
                                   FillScriptResponse(result, name, v1::ENCODING_TEXT, response);
                                 }));
  }

  void ServeSendExpect(CallContext* call, const v1::SendExpectRequest* request,
                       v1::SendExpectResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    const v1::Encoding encoding = request->encoding();
    if (!v1::Encoding_IsValid(encoding)) return Reply(call, BadEncoding());
    PortService::ScriptRequest script;
    for (const v1::ScriptStep& given : request->steps()) {
      PortService::ScriptRequest::Step step = StepFromProto(given);
      if (given.has_send()) {
        absl::StatusOr<std::string> bytes = DecodeData(given.send(), encoding);
        if (!bytes.ok()) return Reply(call, bytes.status());
        step.send = *std::move(bytes);
      }
      script.steps.push_back(std::move(step));
    }
    script.stop_on_timeout = !request->has_stop_on_timeout() || request->stop_on_timeout();
    script.regex = !request->has_regex() || request->regex();
    script.text_mode = IsTextMode(encoding);
    if (request->has_max_bytes()) script.max_bytes = request->max_bytes();
    script.abandoned = [call] { return call->IsCancelled(); };
    script.confirmation = call->confirmation();
    ports_->SendExpect(call->principal(), **port, script,
                       FinishWith<ScriptResult>(call, [response, encoding, name = (*port)->name()](
                                                          const ScriptResult& result) {
                         FillScriptResponse(result, name, encoding, response);
                       }));
  }

  void ServeQuery(CallContext* call, const v1::QueryRequest* request, v1::QueryResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, *request);
    if (!port.ok()) return Reply(call, port.status());
    const v1::Encoding encoding = request->encoding();
    if (!v1::Encoding_IsValid(encoding)) return Reply(call, BadEncoding());
    absl::StatusOr<std::string> bytes = DecodeData(request->data(), encoding);
    if (!bytes.ok()) return Reply(call, bytes.status());
    TransferOptions options;
    if (request->has_max_bytes()) options.max_bytes = request->max_bytes();
    if (request->has_timeout_ms()) options.timeout_ms = request->timeout_ms();
    options.text_mode = IsTextMode(encoding);
    options.keep_terminator = !options.text_mode;
    options.abandoned = [call] { return call->IsCancelled(); };
    options.confirmation = call->confirmation();
    ports_->Query(call->principal(), **port, *std::move(bytes), options,
                  FinishWith<QueryResult>(call, [response, encoding, name = (*port)->name()](
                                                    const QueryResult& result) {
                    EncodedData encoded = EncodeData(result.reply.data, encoding);
                    response->set_data(std::move(encoded.data));
                    response->set_encoding(encoded.encoding);
                    response->set_bytes_read(static_cast<int64_t>(result.reply.data.size()));
                    response->set_timed_out(result.reply.timed_out);
                    response->set_latency_ms(result.latency_ms);
                    response->set_bytes_written(result.wrote.bytes_written);
                    response->set_port_name(name);
                    response->set_not_recorded(result.not_recorded);
                    for (const ReplyReading& reading : result.readings) {
                      v1::Reading* out = response->add_readings();
                      out->set_name(reading.name);
                      out->set_value(reading.value);
                      out->set_unit(reading.unit);
                    }
                  }));
  }

  // The control lines of the caller's port; each answers the lines afterwards.
  template <typename Request>
  void ServeSignals(CallContext* call, const Request& request, v1::SignalsResponse* response,
                    const std::function<void(ManagedPort&, SignalsDone)>& run,
                    PortUse use = PortUse::kChange) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(call, request, use);
    if (!port.ok()) return Reply(call, port.status());
    run(**port, FinishWith<ModemSignals>(
                    call, [response, name = (*port)->name()](const ModemSignals& lines) {
                      response->set_port_name(name);
                      response->set_dtr(lines.dtr);
                      response->set_rts(lines.rts);
                      response->set_cts(lines.cts);
                      response->set_dsr(lines.dsr);
                      response->set_dcd(lines.dcd);
                      response->set_ri(lines.ri);
                    }));
  }
  void ServeGetSignals(CallContext* call, const v1::GetSignalsRequest* request,
                       v1::SignalsResponse* response) {
    ServeSignals(
        call, *request, response,
        [this](ManagedPort& port, SignalsDone done) { ports_->GetSignals(port, std::move(done)); },
        PortUse::kRead);
  }
  void ServeSetSignals(CallContext* call, const v1::SetSignalsRequest* request,
                       v1::SignalsResponse* response) {
    // `run` is called before ServeSignals returns, while the request is alive.
    ServeSignals(call, *request, response,
                 [this, call, request](ManagedPort& port, SignalsDone done) {
                   std::optional<bool> dtr;
                   std::optional<bool> rts;
                   if (request->has_dtr()) dtr = request->dtr();
                   if (request->has_rts()) rts = request->rts();
                   ports_->SetSignals(call->principal(), port, dtr, rts, call->confirmation(),
                                      std::move(done));
                 });
  }
  void ServePulseSignal(CallContext* call, const v1::PulseSignalRequest* request,
                        v1::SignalsResponse* response) {
    if (request->signal() != v1::CONTROL_LINE_DTR && request->signal() != v1::CONTROL_LINE_RTS) {
      return Reply(call,
                   absl::InvalidArgumentError("pulse_signal needs signal \"dtr\" or \"rts\""));
    }
    const bool dtr = request->signal() == v1::CONTROL_LINE_DTR;
    const bool level = request->level();
    const int64_t ms = request->ms();
    ServeSignals(call, *request, response,
                 [this, call, dtr, level, ms](ManagedPort& port, SignalsDone done) {
                   ports_->PulseSignal(call->principal(), port, dtr, level, ms,
                                       call->confirmation(), std::move(done));
                 });
  }
  void ServeSendBreak(CallContext* call, const v1::SendBreakRequest* request,
                      v1::SignalsResponse* response) {
    const int64_t ms = request->ms();
    ServeSignals(call, *request, response, [this, call, ms](ManagedPort& port, SignalsDone done) {
      ports_->SendBreak(call->principal(), port, ms, call->confirmation(), std::move(done));
    });
  }

  void ServeClosePort(CallContext* call, const v1::ClosePortRequest* request,
                      v1::ClosePortResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->ClosePort(call->principal(),
                      OptionalName(request->has_port_name(), request->port_name()),
                      FinishWith<PortService::CloseOutcome>(
                          call, [response](const PortService::CloseOutcome& closed) {
                            response->set_status(closed.status);
                            response->set_port_name(closed.port_name);
                          }));
  }

  void ServeGetStatus(CallContext* call, const v1::GetStatusRequest* request,
                      v1::GetStatusResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    const std::string owner = call->principal();
    absl::StatusOr<std::shared_ptr<ManagedPort>> port =
        ports_->ObservedPort(owner, OptionalName(request->has_port_name(), request->port_name()));
    if (!port.ok()) return Reply(call, port.status());
    for (const std::string& name : ports_->OpenPortNames()) response->add_open_ports(name);
    response->set_port_name(request->port_name());
    const std::string policy_port =
        *port != nullptr ? (*port)->device_path() : request->port_name();
    if (std::shared_ptr<const Policy> policy = ports_->policy();
        policy != nullptr && !policy_port.empty()) {
      PortPolicyToProto(*policy, policy_port, response->mutable_policy());
    }
    if (*port == nullptr) {
      response->set_status(v1::PORT_STATE_CLOSED);
      return Reply(call, absl::OkStatus());
    }
    const PortSnapshot snapshot = (*port)->Snapshot();
    response->set_port_name((*port)->name());
    response->set_status(StateToProto(snapshot.state));
    if (snapshot.state != PortState::kClosed) {
      SettingsToProto(snapshot.settings, response->mutable_settings());
    }
    response->set_owned_by_caller((*port)->owner() == owner);
    if (!(*port)->instrument().empty()) {
      response->set_instrument((*port)->instrument());
      response->set_device_path((*port)->device_path());
    }
    if (snapshot.state != PortState::kClosed) response->set_owner((*port)->owner());
    const SessionRecorder::PortCounts records = ports_->RecordCounts((*port)->name());
    response->set_records_pending(records.pending);
    response->set_records_lost(records.lost);
    response->set_capture_buffered_bytes(snapshot.capture_buffered_bytes);
    response->set_capture_dropped_bytes(snapshot.capture_dropped_bytes);
    return Reply(call, absl::OkStatus());
  }

  void ServeReplayStatus(CallContext* call, const v1::ReplayStatusRequest* request,
                         v1::ReplayStatusResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = ports_->ObservedPort(
        call->principal(), OptionalName(request->has_port_name(), request->port_name()));
    if (!port.ok()) return Reply(call, port.status());
    if (*port == nullptr) {
      return Reply(call, absl::NotFoundError(absl::StrCat(
                             "port ", request->port_name(),
                             " is not open; open replay://SESSION_ID to replay a session")));
    }
    if ((*port)->replay() == nullptr) {
      return Reply(call, absl::FailedPreconditionError(
                             absl::StrCat("port ", (*port)->name(), " is no replay:// port")));
    }
    response->set_port_name((*port)->name());
    ReplayProgressToProto((*port)->replay()->Progress(), response);
    return Reply(call, absl::OkStatus());
  }

  void ServeGetMetrics(CallContext* call, const v1::GetMetricsRequest* request,
                       v1::GetMetricsResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = ports_->ObservedPort(
        call->principal(), OptionalName(request->has_port_name(), request->port_name()));
    if (!port.ok()) return Reply(call, port.status());
    const std::string name = *port != nullptr ? (*port)->name() : request->port_name();
    response->set_port_name(name);
    response->set_idle_close_count(ports_->IdleCloseCount(name));
    const SessionRecorder::PortCounts records = ports_->RecordCounts(name);
    response->set_records_pending(records.pending);
    response->set_records_lost(records.lost);
    if (*port == nullptr) {
      response->set_state(v1::PORT_STATE_CLOSED);
      return Reply(call, absl::OkStatus());
    }
    const PortSnapshot snapshot = (*port)->Snapshot();
    response->set_state(StateToProto(snapshot.state));
    response->set_bytes_read_total(snapshot.bytes_read_total);
    response->set_bytes_written_total(snapshot.bytes_written_total);
    response->set_open_duration_ms(snapshot.open_duration_ms);
    response->set_last_activity_ms(snapshot.last_activity_ms);
    response->set_timeout_streak(snapshot.timeout_streak);
    response->set_capture_buffered_bytes(snapshot.capture_buffered_bytes);
    response->set_capture_dropped_bytes(snapshot.capture_dropped_bytes);
    return Reply(call, absl::OkStatus());
  }

  // The streams authenticate their callers as the unary calls do (ServeCallback): a port's
  // traffic is no less the caller's business than a Read of it.
  grpc::ServerWriteReactor<v1::PortEvent>* Subscribe(grpc::CallbackServerContext* context,
                                                     const v1::SubscribeRequest* request) override {
    absl::StatusOr<Caller> caller = auth_.Identify(*context);
    if (!caller.ok()) return Refuse<v1::PortEvent>(caller.status());
    if (request->port_name().empty() || ports_->stopped()) {
      return Refuse<v1::PortEvent>(
          ports_->stopped() ? PortService::ShuttingDownError()
                            : absl::InvalidArgumentError("port_name is required for Subscribe"));
    }
    if (absl::Status allowed = MayWatch(*caller, request->port_name()); !allowed.ok()) {
      return Refuse<v1::PortEvent>(allowed);
    }
    v1::PortEvent initial;
    initial.set_port_name(request->port_name());
    initial.set_reason("current state");
    std::shared_ptr<ManagedPort> port = ports_->FindPort(request->port_name());
    const PortState state = port != nullptr ? port->state() : PortState::kClosed;
    initial.set_type(state == PortState::kError    ? v1::PortEvent::TYPE_ERROR
                     : state == PortState::kClosed ? v1::PortEvent::TYPE_CLOSED
                                                   : v1::PortEvent::TYPE_OPENED);
    const SubscribeReactor::Traffic traffic =
        request->states_only()      ? SubscribeReactor::Traffic::kNone
        : request->include_writes() ? SubscribeReactor::Traffic::kReceivedAndWritten
                                    : SubscribeReactor::Traffic::kReceived;
    auto* reactor =
        SubscribeReactor::Start(request->port_name(), request->encoding(), traffic,
                                std::move(initial), &ports_->hub(), &tracker_, queue_limit_);
    if (port != nullptr) port->WakeForSubscribers();
    return reactor;
  }

  grpc::ServerWriteReactor<v1::PortEvent>* WatchPorts(grpc::CallbackServerContext* context,
                                                      const v1::WatchPortsRequest*) override {
    if (absl::StatusOr<Caller> caller = auth_.Identify(*context); !caller.ok()) {
      return Refuse<v1::PortEvent>(caller.status());
    }
    if (ports_->stopped()) return Refuse<v1::PortEvent>(PortService::ShuttingDownError());
    return SubscribeReactor::StartForEveryPort([this] { return CurrentPortEvents(); },
                                               &ports_->hub(), &tracker_);
  }

  grpc::ServerWriteReactor<v1::LeaseEvent>* Lease(grpc::CallbackServerContext* context,
                                                  const v1::LeaseRequest*) override {
    absl::StatusOr<Caller> caller = auth_.Identify(*context);
    if (!caller.ok()) return Refuse<v1::LeaseEvent>(caller.status());
    return LeaseReactor::Start(caller->principal, ports_.get(), &tracker_);
  }

  void ServeReleaseOwner(CallContext* call, const v1::ReleaseOwnerRequest*,
                         v1::ReleaseOwnerResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    ports_->ReleaseOwner(call->principal(),
                         [response, call](const std::vector<std::string>& names) {
                           for (const std::string& name : names) response->add_closed_ports(name);
                           call->Finish(absl::OkStatus());
                         });
  }

  void ServeForceClose(CallContext* call, const v1::ForceCloseRequest* request,
                       v1::ClosePortResponse* response) {
    if (ports_->stopped()) return Reply(call, PortService::ShuttingDownError());
    if (!call->speaks_for_principals()) {
      return Reply(call, absl::PermissionDeniedError(absl::StrCat(
                             call->principal(),
                             " may not close another's port: only labgate's console may (its "
                             "operator or admin); an owner closes its own with ClosePort")));
    }
    if (request->port_name().empty() || request->by().empty() || request->reason().empty()) {
      return Reply(call, absl::InvalidArgumentError(
                             "port_name, by and reason are required: the port's session keeps "
                             "who closed it and why"));
    }
    ports_->ForceClose(request->port_name(), request->by(), request->reason(),
                       FinishWith<PortService::CloseOutcome>(
                           call, [response](const PortService::CloseOutcome& closed) {
                             response->set_status(closed.status);
                             response->set_port_name(closed.port_name);
                           }));
  }

  // The callback API's entries for the unary methods above.
  grpc::ServerUnaryReactor* ListPorts(grpc::CallbackServerContext* context,
                                      const v1::ListPortsRequest* request,
                                      v1::ListPortsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeListPorts, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ListInstruments(grpc::CallbackServerContext* context,
                                            const v1::ListInstrumentsRequest* request,
                                            v1::ListInstrumentsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeListInstruments, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ListPortsExtended(grpc::CallbackServerContext* context,
                                              const v1::ListPortsExtendedRequest* request,
                                              v1::ListPortsExtendedResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeListPortsExtended, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* DescribePort(grpc::CallbackServerContext* context,
                                         const v1::DescribePortRequest* request,
                                         v1::DescribePortResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeDescribePort, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* OpenPort(grpc::CallbackServerContext* context,
                                     const v1::OpenPortRequest* request,
                                     v1::OpenPortResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeOpenPort, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ReconfigurePort(grpc::CallbackServerContext* context,
                                            const v1::ReconfigurePortRequest* request,
                                            v1::ReconfigurePortResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeReconfigurePort, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* Write(grpc::CallbackServerContext* context,
                                  const v1::WriteRequest* request,
                                  v1::WriteResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeWrite, auth_, context, request, response);
  }
  grpc::ServerUnaryReactor* Read(grpc::CallbackServerContext* context,
                                 const v1::ReadRequest* request,
                                 v1::ReadResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeRead, auth_, context, request, response);
  }
  grpc::ServerUnaryReactor* Query(grpc::CallbackServerContext* context,
                                  const v1::QueryRequest* request,
                                  v1::QueryResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeQuery, auth_, context, request, response);
  }
  grpc::ServerUnaryReactor* WaitFor(grpc::CallbackServerContext* context,
                                    const v1::WaitForRequest* request,
                                    v1::WaitForResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeWaitFor, auth_, context, request, response);
  }
  grpc::ServerUnaryReactor* RunSequence(grpc::CallbackServerContext* context,
                                        const v1::RunSequenceRequest* request,
                                        v1::SendExpectResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeRunSequence, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* SendExpect(grpc::CallbackServerContext* context,
                                       const v1::SendExpectRequest* request,
                                       v1::SendExpectResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeSendExpect, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* GetSignals(grpc::CallbackServerContext* context,
                                       const v1::GetSignalsRequest* request,
                                       v1::SignalsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeGetSignals, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* SetSignals(grpc::CallbackServerContext* context,
                                       const v1::SetSignalsRequest* request,
                                       v1::SignalsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeSetSignals, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* PulseSignal(grpc::CallbackServerContext* context,
                                        const v1::PulseSignalRequest* request,
                                        v1::SignalsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServePulseSignal, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* SendBreak(grpc::CallbackServerContext* context,
                                      const v1::SendBreakRequest* request,
                                      v1::SignalsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeSendBreak, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ClosePort(grpc::CallbackServerContext* context,
                                      const v1::ClosePortRequest* request,
                                      v1::ClosePortResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeClosePort, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* context,
                                      const v1::GetStatusRequest* request,
                                      v1::GetStatusResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeGetStatus, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ReplayStatus(grpc::CallbackServerContext* context,
                                         const v1::ReplayStatusRequest* request,
                                         v1::ReplayStatusResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeReplayStatus, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* GetMetrics(grpc::CallbackServerContext* context,
                                       const v1::GetMetricsRequest* request,
                                       v1::GetMetricsResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeGetMetrics, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ReleaseOwner(grpc::CallbackServerContext* context,
                                         const v1::ReleaseOwnerRequest* request,
                                         v1::ReleaseOwnerResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeReleaseOwner, auth_, context, request,
                         response);
  }

  grpc::ServerUnaryReactor* ForceClose(grpc::CallbackServerContext* context,
                                       const v1::ForceCloseRequest* request,
                                       v1::ClosePortResponse* response) override {
    return ServeCallback(this, &SerialServiceImpl::ServeForceClose, auth_, context, request,
                         response);
  }

  void AddLocalMethods(LocalMethods* methods) override {
    const std::string service = v1::SerialService::service_full_name();
    methods->Add(service, "ListPorts", this, &SerialServiceImpl::ServeListPorts);
    methods->Add(service, "ListPortsExtended", this, &SerialServiceImpl::ServeListPortsExtended);
    methods->Add(service, "DescribePort", this, &SerialServiceImpl::ServeDescribePort);
    methods->Add(service, "ListInstruments", this, &SerialServiceImpl::ServeListInstruments);
    methods->Add(service, "OpenPort", this, &SerialServiceImpl::ServeOpenPort);
    methods->Add(service, "ReconfigurePort", this, &SerialServiceImpl::ServeReconfigurePort);
    methods->Add(service, "Write", this, &SerialServiceImpl::ServeWrite);
    methods->Add(service, "Read", this, &SerialServiceImpl::ServeRead);
    methods->Add(service, "WaitFor", this, &SerialServiceImpl::ServeWaitFor);
    methods->Add(service, "SendExpect", this, &SerialServiceImpl::ServeSendExpect);
    methods->Add(service, "RunSequence", this, &SerialServiceImpl::ServeRunSequence);
    methods->Add(service, "Query", this, &SerialServiceImpl::ServeQuery);
    methods->Add(service, "GetSignals", this, &SerialServiceImpl::ServeGetSignals);
    methods->Add(service, "SetSignals", this, &SerialServiceImpl::ServeSetSignals);
    methods->Add(service, "PulseSignal", this, &SerialServiceImpl::ServePulseSignal);
    methods->Add(service, "SendBreak", this, &SerialServiceImpl::ServeSendBreak);
    methods->Add(service, "ClosePort", this, &SerialServiceImpl::ServeClosePort);
    methods->Add(service, "GetStatus", this, &SerialServiceImpl::ServeGetStatus);
    methods->Add(service, "GetMetrics", this, &SerialServiceImpl::ServeGetMetrics);
    methods->Add(service, "ReplayStatus", this, &SerialServiceImpl::ServeReplayStatus);
    methods->Add(service, "ReleaseOwner", this, &SerialServiceImpl::ServeReleaseOwner);
    methods->Add(service, "ForceClose", this, &SerialServiceImpl::ServeForceClose);
  }

 private:
  template <typename Message>
  class RejectedStream : public grpc::ServerWriteReactor<Message> {
   public:
    void OnDone() override { delete this; }
  };

  // A stream refused before it starts.
  template <typename Message>
  static grpc::ServerWriteReactor<Message>* Refuse(const absl::Status& status) {
    auto* reactor = new RejectedStream<Message>();
    reactor->Finish(ToGrpcStatus(status));
    return reactor;
  }

  // What the access file allows the caller on `port` (OK without one). Checked again on
  // every call, so a reload that takes a port away applies to ports already open.
  absl::Status MayUse(const CallContext* call, const std::string& port, PortUse use) const {
    return MayUse(call->principal(), port, use);
  }
  absl::Status MayUse(const std::string& owner, const std::string& port, PortUse use) const {
    if (access_ == nullptr || !access_->enabled()) return absl::OkStatus();
    const std::string principal = access::PrincipalOfOwner(owner);
    return use == PortUse::kRead ? access_->MayUsePort(principal, port)
                                 : access_->MayChangePort(principal, port);
  }

  // Whether `caller` may watch `port`'s traffic: a read that takes nothing from the port, so
  // checked as WaitFor is. A trusted gateway that names no owner watches for itself (its
  // console, its resource subscriptions) and could name any owner anyway: it is not checked
  // as "anonymous".
  absl::Status MayWatch(const Caller& caller, const std::string& port) const {
    if (caller.speaks_for_principals && caller.principal == kAnonymousPrincipal) {
      return absl::OkStatus();
    }
    return MayUse(caller.principal, port, PortUse::kRead);
  }

  // The port a write, read, query or reconfigure addresses: named, or the caller's only one.
  template <typename Request>
  absl::StatusOr<std::shared_ptr<ManagedPort>> CallersPort(const CallContext* call,
                                                           const Request& request,
                                                           PortUse use = PortUse::kChange) const {
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = ports_->CallersPort(
        call->principal(), OptionalName(request.has_port_name(), request.port_name()));
    if (!port.ok()) return port;
    if (absl::Status allowed = MayUse(call, (*port)->name(), use); !allowed.ok()) return allowed;
    return port;
  }

  // One "current state" event per open or lost port: OPENED, or ERROR for a lost device.
  std::vector<v1::PortEvent> CurrentPortEvents() const {
    std::vector<v1::PortEvent> events;
    for (const auto& [name, state] : ports_->CurrentPortStates()) {
      v1::PortEvent& event = events.emplace_back();
      event.set_type(state == PortState::kError ? v1::PortEvent::TYPE_ERROR
                                                : v1::PortEvent::TYPE_OPENED);
      event.set_port_name(name);
      event.set_reason("current state");
    }
    return events;
  }

  // What can be reserved: named instruments (their tags and the profile's), present or not,
  // and the listed ports that are no instrument's (an instrument is reserved by its name only,
  // so one device is never two reservables).
  std::vector<reservations::v1::Reservable> GatherReservables() {
    std::promise<absl::StatusOr<std::vector<InstrumentListing>>> instruments;
    ports_->ListInstruments([&instruments](absl::StatusOr<std::vector<InstrumentListing>> got) {
      instruments.set_value(std::move(got));
    });
    std::promise<absl::StatusOr<std::vector<ListedPort>>> listed;
    ports_->ListPorts([&listed](absl::StatusOr<std::vector<ListedPort>> got) {
      listed.set_value(std::move(got));
    });
    std::vector<reservations::v1::Reservable> reservables;
    std::vector<std::string> instrument_paths;  // where named instruments are now, open or not
    if (absl::StatusOr<std::vector<InstrumentListing>> all = instruments.get_future().get();
        all.ok()) {
      for (const InstrumentListing& instrument : *all) {
        if (instrument.path.has_value()) instrument_paths.push_back(*instrument.path);
        reservations::v1::Reservable& reservable = reservables.emplace_back();
        reservable.set_name(instrument.named.name);
        for (const std::string& tag : instrument.named.tags) reservable.add_tags(tag);
        if (instrument.profile != nullptr) {
          for (const std::string& tag : instrument.profile->tags) reservable.add_tags(tag);
        }
        reservable.set_present(instrument.present);
      }
    }
    if (absl::StatusOr<std::vector<ListedPort>> ports = listed.get_future().get(); ports.ok()) {
      for (const ListedPort& port : *ports) {
        if (port.instrument.has_value() ||
            std::any_of(
                instrument_paths.begin(), instrument_paths.end(),
                [&port](const std::string& path) { return SameDevice(path, port.port_name); })) {
          continue;
        }
        reservations::v1::Reservable& reservable = reservables.emplace_back();
        reservable.set_name(port.port_name);
        reservable.set_present(true);
      }
    }
    return reservables;
  }

  const std::unique_ptr<PortService> ports_;
  const size_t queue_limit_;
  const CallerAuth auth_;
  const std::shared_ptr<const access::AccessControl> access_;  // null: no access file
  StreamTracker tracker_;
  std::shared_ptr<GrantTable> grants_;             // set at creation; null without reservations
  std::unique_ptr<GrantWatcher> grant_watcher_;    // set at creation, reset by Shutdown
  std::unique_ptr<InventoryPublisher> publisher_;  // set at creation, reset by Shutdown
};

}  // namespace

absl::StatusOr<std::unique_ptr<SerialGrpcService>> CreateSerialService(
    const SerialServiceOptions& options) {
  if (options.subscriber_queue_limit <= 0) {
    return absl::InvalidArgumentError("subscriber_queue_limit must be positive");
  }
  PortServiceOptions port_options;
  port_options.clock = options.clock;
  port_options.port_factory = options.port_factory;
  port_options.poll_period_ms = options.poll_period_ms;
  port_options.query_reply_spin = options.query_reply_spin;
  port_options.capture = options.capture;
  port_options.record_queue_limit = options.record_queue_limit;
  port_options.policy_file = options.policy_file;
  port_options.profiles_dir = options.profiles_dir;
  port_options.instruments_file = options.instruments_file;
  port_options.port_lister = options.port_lister;
  absl::StatusOr<std::unique_ptr<PortService>> ports = PortService::Create(port_options);
  if (!ports.ok()) return ports.status();
  if (options.session_channel) (*ports)->SetSessionChannel(options.session_channel);
  auto service = std::make_unique<SerialServiceImpl>(
      *std::move(ports), static_cast<size_t>(options.subscriber_queue_limit),
      CallerAuth(options.caller_auth), options.access);
  if (options.publish_inventory && options.session_channel) {
    InventoryPublisherOptions publishing;
    publishing.bench = options.bench;
    publishing.token = options.session_token;
    service->JoinReservations(options.session_channel, std::move(publishing));
  }
  return std::unique_ptr<SerialGrpcService>(std::move(service));
}

}  // namespace labgate::serial
