#include "common/service_host.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/health_check_service_interface.h>
#include <signal.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_callback_threads.h"
#include "common/reflection_v1.h"

namespace labgate {

absl::StatusOr<std::unique_ptr<ServiceHost>> ServiceHost::Start(
    const std::string& listen_address, const std::vector<grpc::Service*>& services,
    std::shared_ptr<grpc::ServerCredentials> credentials, const GrpcKeepalive& keepalive) {
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();

  std::unique_ptr<ServiceHost> host(new ServiceHost());
  grpc::ServerBuilder builder;
  if (!listen_address.empty()) {
    if (credentials == nullptr) credentials = grpc::InsecureServerCredentials();
    builder.AddListeningPort(listen_address, credentials, &host->port_);
  }
  builder.SetOption(ReflectionV1Option());
  builder.SetMaxReceiveMessageSize(16 * 1024 * 1024);
  builder.SetMaxSendMessageSize(64 * 1024 * 1024);
  SetServerKeepalive(builder, keepalive);
  for (grpc::Service* service : services) builder.RegisterService(service);
  host->server_ = builder.BuildAndStart();
  if (host->server_ == nullptr || (!listen_address.empty() && host->port_ == 0)) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", listen_address, " (address in use or invalid)"));
  }
  return host;
}

ServiceHost::~ServiceHost() { Shutdown(std::chrono::milliseconds(0)); }

std::shared_ptr<grpc::Channel> ServiceHost::InProcessChannel() {
  KeepGrpcCallbackThreads();
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 * 1024 * 1024);
  return server_->InProcessChannel(args);
}

void ServiceHost::SetServing(const std::string& service_name, bool serving) {
  grpc::HealthCheckServiceInterface* health = server_->GetHealthCheckService();
  if (health == nullptr) return;
  health->SetServingStatus(service_name, serving);
  health->SetServingStatus(serving);
}

void ServiceHost::Shutdown(std::chrono::milliseconds grace) {
  if (shut_down_ || server_ == nullptr) return;
  shut_down_ = true;
  if (auto* health = server_->GetHealthCheckService()) health->Shutdown();
  server_->Shutdown(std::chrono::system_clock::now() + grace);
  server_->Wait();
}

namespace {
sigset_t ShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}
}  // namespace

void BlockShutdownSignals() {
  sigset_t set = ShutdownSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);
}

int WaitForShutdownSignal() {
  sigset_t set = ShutdownSignals();
  int signal_number = 0;
  while (sigwait(&set, &signal_number) != 0) {
  }
  return signal_number;
}

void SkipMutexDeadlockDetection() {
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
}

}  // namespace labgate
