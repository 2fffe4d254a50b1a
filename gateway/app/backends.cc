#include "gateway/app/backends.h"

#include <grpcpp/create_channel.h>
#include <grpcpp/support/client_interceptor.h>

#include "actions-service/actions_service.h"
#include "common/grpc_callback_threads.h"
#include "common/grpc_keepalive.h"
#include "common/local_call.h"
#include "common/log.h"
#include "gateway/backends/open_streams.h"
#include "labgate/actions/v1/actions.grpc.pb.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "labgate/tasks/v1/tasks.grpc.pb.h"
#include "serial-service/serial_service.h"
#include "session-service/session_service.h"

namespace labgate::gateway {

namespace session_v1 = labgate::session::v1;
namespace actions_v1 = labgate::actions::v1;
namespace serial_v1 = labgate::serial::v1;
namespace reservations_v1 = labgate::reservations::v1;
namespace tasks_v1 = labgate::tasks::v1;

struct Backends::Embedded {
  std::unique_ptr<labgate::session::SessionGrpcService> session;
  // Bench reservations live beside the sessions they are stored with.
  std::unique_ptr<labgate::session::ReservationGrpcService> reservations;
  // So do MCP tasks.
  std::unique_ptr<labgate::session::TaskGrpcService> tasks;
  std::unique_ptr<labgate::actions::ActionsGrpcService> actions;
  std::unique_ptr<labgate::serial::SerialGrpcService> serial;
  std::unique_ptr<ServiceHost> host;
  // The gateway's own unary calls to the embedded services (tool calls), made in process.
  std::unique_ptr<LocalCalls> local_calls;
  bool shut_down = false;
};

Backends::Backends() = default;
Backends::~Backends() {
  Shutdown(std::chrono::milliseconds(2000));
  // Whatever held a stream has let go of it by now (Backends goes last); the cancelled
  // streams must finish before their channels go.
  if (!OpenStreams::WaitUntilNone(std::chrono::seconds(3))) {
    LG_LOG(kWarning) << OpenStreams::count()
                     << " backend stream(s) still open at exit; leaving their channels be";
    // Deliberately leaked: the process is ending.
    new BackendChannels(std::move(channels_));  // NOLINT(bugprone-unhandled-exception-at-new)
  }
}

namespace {

// Adds "authorization: Bearer TOKEN" to every call on a channel. An interceptor rather than call
// credentials: gRPC sends call credentials only over TLS, and a gateway token also serves a
// plaintext deployment on one machine.
class BearerTokenInterceptor final : public grpc::experimental::Interceptor {
 public:
  explicit BearerTokenInterceptor(const std::string* value) : value_(value) {}
  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    if (methods->QueryInterceptionHookPoint(
            grpc::experimental::InterceptionHookPoints::PRE_SEND_INITIAL_METADATA)) {
      methods->GetSendInitialMetadata()->emplace("authorization", *value_);
    }
    methods->Proceed();
  }

 private:
  const std::string* value_;
};

class BearerTokenFactory final : public grpc::experimental::ClientInterceptorFactoryInterface {
 public:
  explicit BearerTokenFactory(const std::string& token) : value_("Bearer " + token) {}
  grpc::experimental::Interceptor* CreateClientInterceptor(
      grpc::experimental::ClientRpcInfo*) override {
    return new BearerTokenInterceptor(&value_);
  }

 private:
  const std::string value_;  // lives as long as the channel, which owns the factory
};

}  // namespace

std::shared_ptr<grpc::Channel> RemoteChannel(const std::string& address,
                                             std::shared_ptr<grpc::ChannelCredentials> credentials,
                                             const std::string& gateway_token) {
  KeepGrpcCallbackThreads();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
  // gRPC's default backoff grows to 120 s, so a backend back after a long outage went
  // unused for seconds; capped at 1 s (plus jitter) it is used within 2 s of its return.
  // GRPC_ARG_MIN_RECONNECT_BACKOFF_MS stays at gRPC's 20 s: it is also the least time a
  // connection attempt is given, and at 100 ms a TLS handshake on a slow link or a loaded
  // machine was cut off every time (tests/deploy/tls_test.sh, the slow link).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  SetClientKeepalive(args);
  if (credentials == nullptr) credentials = grpc::InsecureChannelCredentials();
  if (gateway_token.empty()) return grpc::CreateCustomChannel(address, credentials, args);
  std::vector<std::unique_ptr<grpc::experimental::ClientInterceptorFactoryInterface>> interceptors;
  interceptors.push_back(std::make_unique<BearerTokenFactory>(gateway_token));
  return grpc::experimental::CreateCustomChannelWithInterceptors(address, credentials, args,
                                                                 std::move(interceptors));
}

absl::StatusOr<std::unique_ptr<Backends>> Backends::Start(const BackendOptions& options) {
  std::unique_ptr<Backends> backends(new Backends());
  backends->embedded_ = std::make_unique<Embedded>();
  Embedded& embedded = *backends->embedded_;
  std::vector<grpc::Service*> in_process;

  if (options.session_addr.empty()) {
    labgate::session::SessionServiceOptions session_options;
    session_options.data_dir = options.data_dir;
    auto session = labgate::session::CreateSessionService(session_options);
    if (!session.ok()) return session.status();
    embedded.session = std::move(*session);
    in_process.push_back(embedded.session.get());
    // Every in-process caller is this gateway, which names the principal it acts for.
    auto reservations = labgate::session::CreateReservationService(
        *embedded.session, CallerAuthOptions::TrustEveryCaller());
    if (!reservations.ok()) return reservations.status();
    embedded.reservations = std::move(*reservations);
    in_process.push_back(embedded.reservations.get());
    auto tasks = labgate::session::CreateTaskService(*embedded.session,
                                                     CallerAuthOptions::TrustEveryCaller());
    if (!tasks.ok()) return tasks.status();
    embedded.tasks = std::move(*tasks);
    in_process.push_back(embedded.tasks.get());
  }

  if (options.actions_addr.empty()) {
    auto actions = labgate::actions::CreateActionsService({});
    if (!actions.ok()) return actions.status();
    embedded.actions = std::move(*actions);
    in_process.push_back(embedded.actions.get());
  }

  if (options.serial_addr.empty()) {
    labgate::serial::SerialServiceOptions serial_options;
    serial_options.policy_file = options.policy_file;
    serial_options.profiles_dir = options.profiles_dir;
    serial_options.instruments_file = options.instruments_file;
    serial_options.query_reply_spin = options.query_reply_spin;
    serial_options.capture = options.capture;
    serial_options.access = options.access;
    auto serial = labgate::serial::CreateSerialService(serial_options);
    if (!serial.ok()) return serial.status();
    embedded.serial = std::move(*serial);
    in_process.push_back(embedded.serial.get());
  }

  if (!in_process.empty()) {
    auto host = ServiceHost::Start("", in_process);
    if (!host.ok()) return host.status();
    embedded.host = std::move(*host);
    LocalMethods methods;
    if (embedded.session) embedded.session->AddLocalMethods(&methods);
    if (embedded.reservations) embedded.reservations->AddLocalMethods(&methods);
    if (embedded.tasks) embedded.tasks->AddLocalMethods(&methods);
    if (embedded.actions) embedded.actions->AddLocalMethods(&methods);
    if (embedded.serial) embedded.serial->AddLocalMethods(&methods);
    // Every unary method of an embedded service is served in process, or labgate stops here.
    for (const char* embedded_service :
         {embedded.session ? session_v1::SessionService::service_full_name() : nullptr,
          embedded.reservations ? reservations_v1::ReservationService::service_full_name()
                                : nullptr,
          embedded.tasks ? tasks_v1::TaskService::service_full_name() : nullptr,
          embedded.actions ? actions_v1::ActionsService::service_full_name() : nullptr,
          embedded.serial ? serial_v1::SerialService::service_full_name() : nullptr}) {
      if (embedded_service == nullptr) continue;
      if (absl::Status served = methods.CheckServesAll(embedded_service); !served.ok()) {
        return served;
      }
    }
    embedded.local_calls = std::make_unique<LocalCalls>(std::move(methods));
  }

  const std::string session_name = session_v1::SessionService::service_full_name();
  if (options.session_addr.empty()) {
    backends->channels_.Set(session_name, embedded.host->InProcessChannel());
    backends->channels_.SetLocal(session_name, embedded.local_calls.get());
    LG_LOG(kInfo) << "session service: embedded, data in " << options.data_dir;
  } else {
    backends->channels_.Set(
        session_name,
        RemoteChannel(options.session_addr, options.channel_credentials, options.gateway_token));
    backends->channels_.SetAddress(session_name, options.session_addr);
    LG_LOG(kInfo) << "session service: " << options.session_addr;
  }
  // The reservation and task services are hosted by whichever labgate-session holds the
  // sessions.
  for (const char* beside_sessions : {reservations_v1::ReservationService::service_full_name(),
                                      tasks_v1::TaskService::service_full_name()}) {
    backends->channels_.Set(beside_sessions, backends->session_channel());
    if (options.session_addr.empty()) {
      backends->channels_.SetLocal(beside_sessions, embedded.local_calls.get());
    } else {
      backends->channels_.SetAddress(beside_sessions, options.session_addr);
    }
  }
  const std::string actions_name = actions_v1::ActionsService::service_full_name();
  if (options.actions_addr.empty()) {
    backends->channels_.Set(actions_name, embedded.host->InProcessChannel());
    backends->channels_.SetLocal(actions_name, embedded.local_calls.get());
  } else {
    backends->channels_.Set(
        actions_name,
        RemoteChannel(options.actions_addr, options.channel_credentials, options.gateway_token));
    backends->channels_.SetAddress(actions_name, options.actions_addr);
    LG_LOG(kInfo) << "actions service: " << options.actions_addr;
  }
  // labgate-serial records bound ports to the session service, in-process when embedded, and
  // enforces the reservations kept there.
  if (embedded.serial) {
    embedded.serial->SetSessionChannel(backends->session_channel());
    embedded.serial->JoinReservations(backends->session_channel(), "",
                                      options.session_addr.empty() ? "" : options.gateway_token);
  }
  const std::string serial_name = serial_v1::SerialService::service_full_name();
  backends->channels_.set_serial_service(serial_name);
  if (!options.serial_benches.empty()) {
    std::vector<Bench> benches = options.serial_benches;
    for (Bench& bench : benches) {
      bench.channel =
          RemoteChannel(bench.address, options.channel_credentials, options.gateway_token);
      LG_LOG(kInfo) << "serial bench " << (bench.name.empty() ? "(unnamed)" : bench.name) << ": "
                    << bench.address;
    }
    // The first bench also answers what is not per bench (resources, the single channel).
    backends->channels_.Set(serial_name, benches.front().channel);
    backends->channels_.SetAddress(serial_name, benches.front().address);
    backends->channels_.SetSerialBenches(std::make_shared<SerialBenches>(std::move(benches)));
  } else if (options.serial_addr.empty()) {
    backends->channels_.Set(serial_name, embedded.host->InProcessChannel());
    backends->channels_.SetLocal(serial_name, embedded.local_calls.get());
  } else {
    backends->channels_.Set(
        serial_name,
        RemoteChannel(options.serial_addr, options.channel_credentials, options.gateway_token));
    backends->channels_.SetAddress(serial_name, options.serial_addr);
    LG_LOG(kInfo) << "serial service: " << options.serial_addr;
  }
  return backends;
}

std::shared_ptr<grpc::Channel> Backends::session_channel() const {
  return channels_.For(session_v1::SessionService::service_full_name());
}

std::shared_ptr<grpc::Channel> Backends::serial_channel() const {
  return channels_.For(serial_v1::SerialService::service_full_name());
}

std::shared_ptr<grpc::Channel> Backends::actions_channel() const {
  return channels_.For(actions_v1::ActionsService::service_full_name());
}

std::vector<const google::protobuf::ServiceDescriptor*> Backends::ToolServices() const {
  // Naming a message of each file keeps its descriptors linked in.
  return {
      serial_v1::OpenPortRequest::descriptor()->file()->FindServiceByName("SerialService"),
      session_v1::Session::descriptor()->file()->FindServiceByName("SessionService"),
      reservations_v1::Reservation::descriptor()->file()->FindServiceByName("ReservationService")};
}

absl::Status Backends::ReloadPolicy() {
  if (!embedded_ || !embedded_->serial) return absl::OkStatus();
  return embedded_->serial->ReloadPolicy();
}

void Backends::Shutdown(std::chrono::milliseconds grace) {
  if (!embedded_ || embedded_->shut_down) return;
  embedded_->shut_down = true;
  // Streams end first so the server can drain; then calls in flight finish; then the
  // services release their resources (the session store flushes its writer last).
  if (embedded_->session) embedded_->session->FinishWatchStreams();
  if (embedded_->serial) embedded_->serial->Shutdown();  // it watches the reservations
  if (embedded_->reservations) embedded_->reservations->FinishWatchStreams();
  if (embedded_->tasks) embedded_->tasks->FinishWatchStreams();
  if (embedded_->actions) embedded_->actions->Shutdown();
  if (embedded_->host) embedded_->host->Shutdown(grace);
  embedded_->tasks.reset();
  embedded_->reservations.reset();  // its last changes reach the store before the store stops
  if (embedded_->session) embedded_->session->Shutdown();
}

}  // namespace labgate::gateway
