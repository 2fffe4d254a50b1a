// For gateway tests: a real labgate service served on 127.0.0.1 (port 0, or a given port to
// come back on after Stop()), and a channel to it that reconnects as the gateway's do.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "common/grpc_callback_threads.h"
#include "common/grpc_keepalive.h"
#include "common/service_host.h"

namespace labgate::gateway::testing {

template <typename Service>
class LoopbackServer {
 public:
  using Create = std::function<absl::StatusOr<std::unique_ptr<Service>>()>;
  using Hook = std::function<void(Service&)>;

  // `before_stop` runs before the server stops (ending streams, refusing new work),
  // `after_stop` once it has (releasing what the service holds).
  LoopbackServer(Create create, Hook before_stop, Hook after_stop = nullptr)
      : create_(std::move(create)),
        before_stop_(std::move(before_stop)),
        after_stop_(std::move(after_stop)) {}
  ~LoopbackServer() { Stop(); }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  void Start(int port = 0) {
    auto service = create_();
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:" + std::to_string(port), {service_.get()}, nullptr,
                                   keepalive_);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
  }
  void Stop() {
    if (!host_) return;
    if (before_stop_) before_stop_(*service_);
    host_->Shutdown(std::chrono::seconds(2));
    if (after_stop_) after_stop_(*service_);
    host_.reset();
    service_.reset();
  }
  // Before Start: how often the server pings its callers, and how long it waits for an answer.
  void SetKeepalive(const GrpcKeepalive& keepalive) { keepalive_ = keepalive; }
  int port() const { return host_->port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }

 private:
  Create create_;
  Hook before_stop_;
  Hook after_stop_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<ServiceHost> host_;
  GrpcKeepalive keepalive_;
};

// Reconnect backoff capped near 1 s, as gateway/app/backends.cc sets it, so that a service
// that comes back is used again soon; pinging per `keepalive` when one is given.
inline std::shared_ptr<grpc::Channel> ChannelTo(
    const std::string& address, const std::optional<GrpcKeepalive>& keepalive = std::nullopt) {
  KeepGrpcCallbackThreads();
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  if (keepalive.has_value()) SetClientKeepalive(args, *keepalive);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

}  // namespace labgate::gateway::testing
