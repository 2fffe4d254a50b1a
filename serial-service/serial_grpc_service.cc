// The gRPC adapter: validates a call, picks the port, hands the work to that port's
// worker and finishes the call from the worker's completion. Handlers never block.
#include <atomic>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/confirmation_secret.h"
#include "common/grpc_finish.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/secret_compare.h"
#include "serial-service/data_encoding.h"
#include "serial-service/libserialport_backend.h"
#include "serial-service/policy/policy_engine.h"
#include "serial-service/policy/port_policy_proto.h"
#include "serial-service/port_registry.h"
#include "serial-service/port_settings.h"
#include "serial-service/port_worker.h"
#include "serial-service/serial_metrics.h"
#include "serial-service/serial_service.h"
#include "serial-service/stream_reactors.h"
#include "serial-service/termios_port.h"

namespace labgate::serial {
namespace {

std::string OwnerOf(grpc::CallbackServerContext* context) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(kOwnerMetadataKey);
  if (it == metadata.end() || it->second.empty()) return kDefaultOwner;
  return std::string(it->second.data(), it->second.size());
}

grpc::ServerUnaryReactor* Reply(grpc::CallbackServerContext* context, const absl::Status& status) {
  return FinishNow(context, status);
}

// A gateway's answer to a confirmation request: metadata "<id>:<decision>:<secret>".
// Only a caller that knows the confirmation secret can give one.
struct Confirmation {
  std::string id;
  std::string decision;  // "accept", or why not: "decline", "cancel", "unavailable"
};

std::optional<Confirmation> ConfirmationOf(grpc::CallbackServerContext* context) {
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(kConfirmationMetadata);
  if (it == metadata.end()) return std::nullopt;
  const std::string value(it->second.data(), it->second.size());
  const size_t first = value.find(':');
  const size_t second = first == std::string::npos ? first : value.find(':', first + 1);
  if (second == std::string::npos ||
      !SecretEquals(value.substr(second + 1), ConfirmationSecret())) {
    return std::nullopt;
  }
  return Confirmation{value.substr(0, first), value.substr(first + 1, second - first - 1)};
}

// Puts a confirmation request's rule and id into the call's trailing metadata.
void AddConfirmTrailers(grpc::CallbackServerContext* context, const absl::Status& status) {
  auto rule = status.GetPayload(kConfirmRulePayload);
  auto id = status.GetPayload(kConfirmIdPayload);
  if (rule.has_value()) context->AddTrailingMetadata(kConfirmRuleTrailer, std::string(*rule));
  if (id.has_value()) context->AddTrailingMetadata(kConfirmIdTrailer, std::string(*id));
}

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

PortDetails LoopbackDetails(const std::string& name) {
  PortDetails details;
  details.port_name = name;
  details.transport = Transport::kLoopback;
  details.description = "built-in loopback: reads back what is written";
  return details;
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

class SerialServiceImpl final : public SerialGrpcService {
 public:
  explicit SerialServiceImpl(const SerialServiceOptions& options)
      : clock_(options.clock != nullptr ? options.clock : SystemClock()),
        queue_limit_(static_cast<size_t>(options.subscriber_queue_limit)),
        recorder_(RecorderFor(options)),
        registry_(options.port_factory ? options.port_factory : PortFactory(DefaultPortFactory),
                  clock_, &hub_, options.poll_period_ms, recorder_.get()),
        misc_worker_(std::make_unique<PortWorker>("serial-misc", nullptr, 0)),
        policy_file_(options.policy_file) {}

  ~SerialServiceImpl() override { Shutdown(); }

  absl::Status ReloadPolicy() override {
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

  void SetSessionChannel(std::shared_ptr<grpc::Channel> channel) override {
    recorder_->SetChannel(std::move(channel));
  }

  void Shutdown() override {
    if (shutting_down_.exchange(true)) return;
    registry_.CloseAll("service stopping", absl::Seconds(5));
    tracker_.EndAll();
    recorder_->Drain(std::chrono::seconds(2));
  }

  grpc::ServerUnaryReactor* ListPorts(grpc::CallbackServerContext* context,
                                      const v1::ListPortsRequest*,
                                      v1::ListPortsResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    return OnMiscWorker(context, [this, response] {
      absl::StatusOr<std::vector<PortDetails>> ports = LibSerialPortBackend::ListPorts();
      if (!ports.ok()) return ports.status();
      std::set<std::string> names;
      for (const PortDetails& port : *ports) names.insert(port.port_name);
      for (const std::string& name : registry_.OpenPortNames()) names.insert(name);
      for (const std::string& name : names) {
        if (policy_.Listed(name)) response->add_ports()->set_port_name(name);
      }
      return absl::OkStatus();
    });
  }

  grpc::ServerUnaryReactor* ListPortsExtended(grpc::CallbackServerContext* context,
                                              const v1::ListPortsExtendedRequest*,
                                              v1::ListPortsExtendedResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    return OnMiscWorker(context, [this, response] {
      absl::StatusOr<std::vector<PortDetails>> ports = LibSerialPortBackend::ListPorts();
      if (!ports.ok()) return ports.status();
      std::set<std::string> listed;
      for (const PortDetails& port : *ports) {
        listed.insert(port.port_name);
        if (policy_.Listed(port.port_name)) FillDetails(port, response->add_ports());
      }
      for (const std::string& name : registry_.OpenPortNames()) {
        if (listed.count(name) != 0 || !policy_.Listed(name)) continue;
        if (IsLoopbackName(name)) {
          FillDetails(LoopbackDetails(name), response->add_ports());
        } else {
          absl::StatusOr<PortDetails> details = LibSerialPortBackend::Describe(name);
          PortDetails fallback;
          fallback.port_name = name;
          FillDetails(details.ok() ? *details : fallback, response->add_ports());
        }
      }
      return absl::OkStatus();
    });
  }

  grpc::ServerUnaryReactor* DescribePort(grpc::CallbackServerContext* context,
                                         const v1::DescribePortRequest* request,
                                         v1::DescribePortResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    if (request->port_name().empty()) {
      return Reply(context, absl::InvalidArgumentError(
                                "port_name is required: a device path such as /dev/ttyUSB0, "
                                "or loop://"));
    }
    return OnMiscWorker(context, [this, request, response, owner = OwnerOf(context)] {
      const std::string& name = request->port_name();
      std::shared_ptr<ManagedPort> port = registry_.Find(name);
      absl::StatusOr<PortDetails> details =
          IsLoopbackName(name) ? LoopbackDetails(name) : LibSerialPortBackend::Describe(name);
      response->set_backend(IsLoopbackName(name) ? "loopback" : "libserialport");
      if (!details.ok()) {
        const bool tty = port != nullptr || TermiosPort::IsTty(name);
        if (!tty) return details.status();
        PortDetails fallback;
        fallback.port_name = name;
        fallback.description = "tty without a serial-port entry in sysfs";
        details = fallback;
        response->set_backend("termios");
      }
      FillDetails(*details, response->mutable_port());
      if (port == nullptr) {
        response->set_state(v1::PORT_STATE_CLOSED);
      } else {
        const PortSnapshot snapshot = port->Snapshot();
        if (!snapshot.backend.empty()) response->set_backend(snapshot.backend);
        response->set_state(StateToProto(snapshot.state));
        SettingsToProto(snapshot.settings, response->mutable_settings());
        response->set_owned_by_caller(port->owner() == owner);
      }
      return absl::OkStatus();
    });
  }

  grpc::ServerUnaryReactor* OpenPort(grpc::CallbackServerContext* context,
                                     const v1::OpenPortRequest* request,
                                     v1::OpenPortResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<PortSettings> settings = SettingsFromOpenRequest(*request);
    if (!settings.ok()) return Reply(context, settings.status());
    if (absl::Status can = CheckCanRecord(settings->session_id); !can.ok()) {
      return Reply(context, can);
    }
    if (absl::Status allowed = policy_.CheckOpen(request->port_name(), settings->baud_rate);
        !allowed.ok()) {
      SerialMetrics::Get().policy_refusals.With({"open"}).Increment();
      if (!settings->session_id.empty()) {
        recorder_->Enqueue({settings->session_id, request->port_name(), "event",
                            absl::StrCat("open refused by policy: ", allowed.message()),
                            std::nullopt});
      }
      return Reply(context, allowed);
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    auto finish =
        FinishWith<PortSettings>(reactor, [request, response](const PortSettings& opened) {
          response->set_status("opened");
          response->set_port_name(request->port_name());
          SettingsToProto(opened, response->mutable_settings());
        });
    registry_.Open(OwnerOf(context), request->port_name(), *settings,
                   [finish, opened = *settings](absl::Status status) {
                     if (!status.ok()) return finish(status);
                     finish(opened);
                   });
    return reactor;
  }

  grpc::ServerUnaryReactor* ReconfigurePort(grpc::CallbackServerContext* context,
                                            const v1::ReconfigurePortRequest* request,
                                            v1::ReconfigurePortResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(context, *request);
    if (!port.ok()) return Reply(context, port.status());
    absl::StatusOr<PortSettings> settings =
        ApplyReconfigure((*port)->Snapshot().settings, *request);
    if (!settings.ok()) return Reply(context, settings.status());
    if (absl::Status can = CheckCanRecord(settings->session_id); !can.ok()) {
      return Reply(context, can);
    }
    if (absl::Status allowed = policy_.CheckOpen((*port)->name(), settings->baud_rate);
        !allowed.ok()) {
      SerialMetrics::Get().policy_refusals.With({"reconfigure"}).Increment();
      (*port)->RecordEvent(absl::StrCat("reconfigure refused by policy: ", allowed.message()));
      return Reply(context, allowed);
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    (*port)->Reconfigure(
        *settings, FinishWith<PortSettings>(
                       reactor, [response, name = (*port)->name()](const PortSettings& applied) {
                         response->set_status("reconfigured");
                         response->set_port_name(name);
                         SettingsToProto(applied, response->mutable_settings());
                       }));
    return reactor;
  }

  grpc::ServerUnaryReactor* Write(grpc::CallbackServerContext* context,
                                  const v1::WriteRequest* request,
                                  v1::WriteResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(context, *request);
    if (!port.ok()) return Reply(context, port.status());
    absl::StatusOr<std::string> bytes = DecodeData(request->data(), request->encoding());
    if (!bytes.ok()) return Reply(context, bytes.status());
    if (static_cast<int64_t>(bytes->size()) > kMaxTransferBytes) {
      return Reply(context, absl::InvalidArgumentError(absl::StrCat(
                                "data is ", bytes->size(), " bytes; write takes at most ",
                                kMaxTransferBytes, " bytes per call")));
    }
    if (absl::Status allowed = CheckWritePolicy(context, **port, *bytes); !allowed.ok()) {
      return Reply(context, allowed);
    }
    int64_t timeout_ms = (*port)->Snapshot().settings.timeout_ms;
    if (request->has_timeout_ms()) {
      if (absl::Status status = ValidateTimeout(request->timeout_ms()); !status.ok()) {
        return Reply(context, status);
      }
      timeout_ms = request->timeout_ms();
    }
    const bool text_mode =
        request->encoding() == v1::ENCODING_UNSPECIFIED || request->encoding() == v1::ENCODING_TEXT;
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    (*port)->Write(std::move(*bytes), text_mode, timeout_ms,
                   FinishWith<WriteResult>(
                       reactor, [response, name = (*port)->name()](const WriteResult& wrote) {
                         response->set_bytes_written(wrote.bytes_written);
                         response->set_bytes_written_total(wrote.bytes_written_total);
                         response->set_port_name(name);
                         response->set_not_recorded(wrote.not_recorded);
                       }));
    return reactor;
  }

  grpc::ServerUnaryReactor* Read(grpc::CallbackServerContext* context,
                                 const v1::ReadRequest* request,
                                 v1::ReadResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(context, *request);
    if (!port.ok()) return Reply(context, port.status());
    ReadParams params;
    params.max_bytes = request->has_max_bytes() ? request->max_bytes() : kDefaultReadBytes;
    if (absl::Status status = ValidateMaxBytes(params.max_bytes); !status.ok()) {
      return Reply(context, status);
    }
    params.timeout_ms = (*port)->Snapshot().settings.timeout_ms;
    if (request->has_timeout_ms()) {
      if (absl::Status status = ValidateTimeout(request->timeout_ms()); !status.ok()) {
        return Reply(context, status);
      }
      params.timeout_ms = request->timeout_ms();
    }
    const v1::Encoding encoding = request->encoding();
    if (!v1::Encoding_IsValid(encoding)) {
      return Reply(context,
                   absl::InvalidArgumentError("encoding must be one of text, hex, base64"));
    }
    params.text_mode = encoding == v1::ENCODING_UNSPECIFIED || encoding == v1::ENCODING_TEXT;
    // The context outlives the read: the reactor finishes only in its callback.
    params.abandoned = [context] { return context->IsCancelled(); };
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    (*port)->Read(
        params, FinishWith<ReadResult>(reactor, [response, encoding,
                                                 name = (*port)->name()](const ReadResult& result) {
          FillReadResponse(result, encoding, name, response);
        }));
    return reactor;
  }

  grpc::ServerUnaryReactor* Query(grpc::CallbackServerContext* context,
                                  const v1::QueryRequest* request,
                                  v1::QueryResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port = CallersPort(context, *request);
    if (!port.ok()) return Reply(context, port.status());
    const v1::Encoding encoding = request->encoding();
    if (!v1::Encoding_IsValid(encoding)) {
      return Reply(context,
                   absl::InvalidArgumentError("encoding must be one of text, hex, base64"));
    }
    absl::StatusOr<std::string> bytes = DecodeData(request->data(), encoding);
    if (!bytes.ok()) return Reply(context, bytes.status());
    if (bytes->empty()) {
      return Reply(context, absl::InvalidArgumentError("data is required: the command to send"));
    }
    if (static_cast<int64_t>(bytes->size()) > kMaxTransferBytes) {
      return Reply(context, absl::InvalidArgumentError(absl::StrCat(
                                "data is ", bytes->size(), " bytes; query takes at most ",
                                kMaxTransferBytes, " bytes per call")));
    }
    if (absl::Status allowed = CheckWritePolicy(context, **port, *bytes); !allowed.ok()) {
      return Reply(context, allowed);
    }
    ReadParams params;
    params.max_bytes = request->has_max_bytes() ? request->max_bytes() : kDefaultReadBytes;
    if (absl::Status status = ValidateMaxBytes(params.max_bytes); !status.ok()) {
      return Reply(context, status);
    }
    params.timeout_ms = (*port)->Snapshot().settings.timeout_ms;
    if (request->has_timeout_ms()) {
      if (absl::Status status = ValidateTimeout(request->timeout_ms()); !status.ok()) {
        return Reply(context, status);
      }
      params.timeout_ms = request->timeout_ms();
    }
    params.text_mode = encoding == v1::ENCODING_UNSPECIFIED || encoding == v1::ENCODING_TEXT;
    params.keep_terminator = !params.text_mode;
    params.abandoned = [context] { return context->IsCancelled(); };
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    (*port)->Query(std::move(*bytes), params.text_mode, params,
                   FinishWith<QueryResult>(reactor, [response, encoding, name = (*port)->name()](
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
                   }));
    return reactor;
  }

  grpc::ServerUnaryReactor* ClosePort(grpc::CallbackServerContext* context,
                                      const v1::ClosePortRequest* request,
                                      v1::ClosePortResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    const std::string owner = OwnerOf(context);
    std::optional<std::string> name = OptionalName(request->has_port_name(), request->port_name());
    std::shared_ptr<ManagedPort> port;
    if (name.has_value()) {
      port = registry_.Find(*name);
      if (port != nullptr && port->owner() != owner) {
        return Reply(context, PortInUseError(*name, port->owner()));
      }
    } else if (!registry_.OpenPortNamesOf(owner).empty()) {
      absl::StatusOr<std::shared_ptr<ManagedPort>> selected = registry_.Select(owner, name, true);
      if (!selected.ok()) return Reply(context, selected.status());
      port = *selected;
    }
    if (port == nullptr) {
      response->set_status("already closed");
      response->set_port_name(name.value_or(""));
      return Reply(context, absl::OkStatus());
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    response->set_port_name(port->name());
    port->Close("closed by client", [response, reactor](std::string status) {
      response->set_status(std::move(status));
      reactor->Finish(grpc::Status::OK);
    });
    return reactor;
  }

  grpc::ServerUnaryReactor* GetStatus(grpc::CallbackServerContext* context,
                                      const v1::GetStatusRequest* request,
                                      v1::GetStatusResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    const std::string owner = OwnerOf(context);
    absl::StatusOr<std::shared_ptr<ManagedPort>> port =
        Observe(owner, OptionalName(request->has_port_name(), request->port_name()));
    if (!port.ok()) return Reply(context, port.status());
    for (const std::string& name : registry_.OpenPortNames()) response->add_open_ports(name);
    response->set_port_name(request->port_name());
    const std::string policy_port = *port != nullptr ? (*port)->name() : request->port_name();
    if (std::shared_ptr<const Policy> policy = policy_.current();
        policy != nullptr && !policy_port.empty()) {
      PortPolicyToProto(*policy, policy_port, response->mutable_policy());
    }
    if (*port == nullptr) {
      response->set_status(v1::PORT_STATE_CLOSED);
      return Reply(context, absl::OkStatus());
    }
    const PortSnapshot snapshot = (*port)->Snapshot();
    response->set_port_name((*port)->name());
    response->set_status(StateToProto(snapshot.state));
    if (snapshot.state != PortState::kClosed) {
      SettingsToProto(snapshot.settings, response->mutable_settings());
    }
    response->set_owned_by_caller((*port)->owner() == owner);
    if (snapshot.state != PortState::kClosed) response->set_owner((*port)->owner());
    const SessionRecorder::PortCounts records = recorder_->CountsFor((*port)->name());
    response->set_records_pending(records.pending);
    response->set_records_lost(records.lost);
    return Reply(context, absl::OkStatus());
  }

  grpc::ServerUnaryReactor* GetMetrics(grpc::CallbackServerContext* context,
                                       const v1::GetMetricsRequest* request,
                                       v1::GetMetricsResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    absl::StatusOr<std::shared_ptr<ManagedPort>> port =
        Observe(OwnerOf(context), OptionalName(request->has_port_name(), request->port_name()));
    if (!port.ok()) return Reply(context, port.status());
    const std::string name = *port != nullptr ? (*port)->name() : request->port_name();
    response->set_port_name(name);
    response->set_idle_close_count(registry_.IdleCloseCount(name));
    const SessionRecorder::PortCounts records = recorder_->CountsFor(name);
    response->set_records_pending(records.pending);
    response->set_records_lost(records.lost);
    if (*port == nullptr) {
      response->set_state(v1::PORT_STATE_CLOSED);
      return Reply(context, absl::OkStatus());
    }
    const PortSnapshot snapshot = (*port)->Snapshot();
    response->set_state(StateToProto(snapshot.state));
    response->set_bytes_read_total(snapshot.bytes_read_total);
    response->set_bytes_written_total(snapshot.bytes_written_total);
    response->set_open_duration_ms(snapshot.open_duration_ms);
    response->set_last_activity_ms(snapshot.last_activity_ms);
    response->set_timeout_streak(snapshot.timeout_streak);
    return Reply(context, absl::OkStatus());
  }

  grpc::ServerWriteReactor<v1::PortEvent>* Subscribe(grpc::CallbackServerContext* /*context*/,
                                                     const v1::SubscribeRequest* request) override {
    if (request->port_name().empty() || shutting_down_) {
      auto* reactor = new RejectedStream<v1::PortEvent>();
      reactor->Finish(ToGrpcStatus(
          shutting_down_ ? ShuttingDown()
                         : absl::InvalidArgumentError("port_name is required for Subscribe")));
      return reactor;
    }
    v1::PortEvent initial;
    initial.set_port_name(request->port_name());
    initial.set_reason("current state");
    std::shared_ptr<ManagedPort> port = registry_.Find(request->port_name());
    const PortState state = port != nullptr ? port->state() : PortState::kClosed;
    initial.set_type(state == PortState::kError    ? v1::PortEvent::TYPE_ERROR
                     : state == PortState::kClosed ? v1::PortEvent::TYPE_CLOSED
                                                   : v1::PortEvent::TYPE_OPENED);
    auto* reactor = SubscribeReactor::Start(request->port_name(), request->encoding(),
                                            request->include_writes(), std::move(initial), &hub_,
                                            &tracker_, queue_limit_);
    if (port != nullptr) port->WakeForSubscribers();
    return reactor;
  }

  grpc::ServerWriteReactor<v1::PortEvent>* WatchPorts(grpc::CallbackServerContext* /*context*/,
                                                      const v1::WatchPortsRequest*) override {
    if (shutting_down_) {
      auto* reactor = new RejectedStream<v1::PortEvent>();
      reactor->Finish(ToGrpcStatus(ShuttingDown()));
      return reactor;
    }
    return SubscribeReactor::StartForEveryPort([this] { return CurrentPortStates(); }, &hub_,
                                               &tracker_);
  }

  grpc::ServerWriteReactor<v1::LeaseEvent>* Lease(grpc::CallbackServerContext* context,
                                                  const v1::LeaseRequest*) override {
    return LeaseReactor::Start(OwnerOf(context), &registry_, &tracker_);
  }

  grpc::ServerUnaryReactor* ReleaseOwner(grpc::CallbackServerContext* context,
                                         const v1::ReleaseOwnerRequest*,
                                         v1::ReleaseOwnerResponse* response) override {
    if (shutting_down_) return Reply(context, ShuttingDown());
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    registry_.CloseAllOf(OwnerOf(context), "released by owner",
                         [response, reactor](std::vector<std::string> names) {
                           for (const std::string& name : names) response->add_closed_ports(name);
                           reactor->Finish(grpc::Status::OK);
                         });
    return reactor;
  }

 private:
  template <typename Message>
  class RejectedStream : public grpc::ServerWriteReactor<Message> {
   public:
    void OnDone() override { delete this; }
  };

  // Runs `work` on the misc worker (sysfs enumeration can be slow) and finishes the call
  // with the status it returns.
  grpc::ServerUnaryReactor* OnMiscWorker(grpc::CallbackServerContext* context,
                                         std::function<absl::Status()> work) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    misc_worker_->Post(
        [reactor, work = std::move(work)] { reactor->Finish(ToGrpcStatus(work())); });
    return reactor;
  }

  // The port a write, read or reconfigure addresses: named, or the caller's only one.
  template <typename Request>
  absl::StatusOr<std::shared_ptr<ManagedPort>> CallersPort(grpc::CallbackServerContext* context,
                                                           const Request& request) const {
    return registry_.Select(OwnerOf(context),
                            OptionalName(request.has_port_name(), request.port_name()), true);
  }

  static absl::Status ShuttingDown() {
    return absl::UnavailableError("labgate-serial is shutting down");
  }

  // The port a status/metrics call looks at: named, or the caller's only one.
  // Null when none is open.
  absl::StatusOr<std::shared_ptr<ManagedPort>> Observe(const std::string& owner,
                                                       const std::optional<std::string>& name) {
    if (name.has_value()) return registry_.Find(*name);
    if (registry_.OpenPortNamesOf(owner).empty()) return std::shared_ptr<ManagedPort>();
    return registry_.Select(owner, name, false);
  }

  // One "current state" event per port in the registry: OPENED, or ERROR for a lost device.
  std::vector<v1::PortEvent> CurrentPortStates() const {
    std::vector<v1::PortEvent> events;
    for (const std::string& name : registry_.OpenPortNames()) {
      std::shared_ptr<ManagedPort> port = registry_.Find(name);
      if (port == nullptr) continue;  // closed meanwhile; its CLOSED event is on the stream
      // A port still opening reports OPENED on the stream once it is open.
      const PortState state = port->state();
      if (state != PortState::kOpen && state != PortState::kError) continue;
      v1::PortEvent& event = events.emplace_back();
      event.set_type(state == PortState::kError ? v1::PortEvent::TYPE_ERROR
                                                : v1::PortEvent::TYPE_OPENED);
      event.set_port_name(name);
      event.set_reason("current state");
    }
    return events;
  }

  static std::unique_ptr<SessionRecorder> RecorderFor(const SerialServiceOptions& options) {
    RecorderOptions recorder_options;
    recorder_options.queue_limit = options.record_queue_limit;
    auto recorder = std::make_unique<SessionRecorder>(recorder_options);
    if (options.session_channel) recorder->SetChannel(options.session_channel);
    return recorder;
  }

  // The policy's verdict on a write or query, recorded in the port's session. A
  // confirmation request carries its rule and id in the trailing metadata.
  absl::Status CheckWritePolicy(grpc::CallbackServerContext* context, ManagedPort& port,
                                const std::string& bytes) {
    const std::string shown = Shown(bytes);
    std::string approval;
    if (std::optional<Confirmation> confirmation = ConfirmationOf(context)) {
      if (confirmation->decision != "accept") {
        SerialMetrics::Get().policy_confirmations.With({"declined"}).Increment();
        policy_.Withdraw(confirmation->id);
        port.RecordEvent(
            absl::StrCat("write not approved (", confirmation->decision, "): ", shown));
        return absl::FailedPreconditionError(
            absl::StrCat("the write to ", port.name(), " was not approved (",
                         confirmation->decision, "), so it was not sent"));
      }
      approval = confirmation->id;
    }
    absl::Status status = policy_.CheckWrite(OwnerOf(context), port.name(), bytes, approval);
    if (status.ok()) {
      if (!approval.empty()) {
        SerialMetrics::Get().policy_confirmations.With({"approved"}).Increment();
        port.RecordEvent(absl::StrCat("write approved by a person: ", shown));
      }
      return status;
    }
    if (status.GetPayload(kConfirmRulePayload).has_value()) {
      AddConfirmTrailers(context, status);
      SerialMetrics::Get().policy_confirmations.With({"requested"}).Increment();
      port.RecordEvent(absl::StrCat("confirmation required (rule '",
                                    std::string(*status.GetPayload(kConfirmRulePayload)),
                                    "'): ", shown));
    } else {
      SerialMetrics::Get().policy_refusals.With({"write"}).Increment();
      port.RecordEvent(absl::StrCat("write refused by policy: ", status.message()));
    }
    return status;
  }

  // Written data as an event shows it: text, or base64 for other bytes; at most 200.
  static std::string Shown(const std::string& bytes) {
    std::string shown = IsValidUtf8(bytes) ? bytes : EncodeData(bytes, v1::ENCODING_BASE64).data;
    if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
    return shown;
  }

  // A port may be bound to a session only when there is a session service to record to.
  absl::Status CheckCanRecord(const std::string& session_id) const {
    if (session_id.empty() || recorder_->enabled()) return absl::OkStatus();
    return absl::FailedPreconditionError(
        "session_id given, but this labgate-serial has no session service to record to "
        "(start it with --session-addr)");
  }

  Clock* const clock_;
  const size_t queue_limit_;
  // Declared before the registry: ports record into it until they are gone.
  std::unique_ptr<SessionRecorder> recorder_;
  std::atomic<bool> shutting_down_{false};
  EventHub hub_;
  PortRegistry registry_;
  StreamTracker tracker_;
  std::unique_ptr<PortWorker> misc_worker_;
  const std::string policy_file_;
  PolicyEngine policy_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<SerialGrpcService>> CreateSerialService(
    const SerialServiceOptions& options) {
  if (options.poll_period_ms <= 0) {
    return absl::InvalidArgumentError("poll_period_ms must be positive");
  }
  if (options.subscriber_queue_limit <= 0) {
    return absl::InvalidArgumentError("subscriber_queue_limit must be positive");
  }
  SerialMetrics::Get();  // listed from the first scrape on
  auto service = std::make_unique<SerialServiceImpl>(options);
  if (absl::Status loaded = service->ReloadPolicy(); !loaded.ok()) return loaded;
  return std::unique_ptr<SerialGrpcService>(std::move(service));
}

}  // namespace labgate::serial
