// For gateway tests with benches: a real labgate serial service on 127.0.0.1 (port 0, or a
// given port to come back on), and a channel to it that reconnects as the gateway's do.
#pragma once

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "common/service_host.h"
#include "serial-service/serial_service.h"

namespace labgate::gateway::testing {

class SerialBench {
 public:
  void Start(int port = 0) {
    auto service = labgate::serial::CreateSerialService(labgate::serial::SerialServiceOptions{});
    ASSERT_TRUE(service.ok()) << service.status();
    service_ = std::move(*service);
    auto host = ServiceHost::Start("127.0.0.1:" + std::to_string(port), {service_.get()});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
  }
  void Stop() {
    if (!service_) return;
    service_->Shutdown();
    host_->Shutdown(std::chrono::seconds(2));
    host_.reset();
    service_.reset();
  }
  ~SerialBench() { Stop(); }
  int port() const { return host_->port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }

 private:
  std::unique_ptr<labgate::serial::SerialGrpcService> service_;
  std::unique_ptr<ServiceHost> host_;
};

// Reconnect backoff capped near 1 s, as gateway/app/backends.cc sets it, so that a service
// that comes back is used again soon.
inline std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
}

}  // namespace labgate::gateway::testing
