// Which gRPC channel serves each labgate service: in-process when embedded, or a
// remote address given by --session-addr and friends.
#pragma once

#include <grpcpp/channel.h>

#include <map>
#include <memory>
#include <string>

namespace labgate::gateway {

class BackendChannels {
 public:
  void Set(const std::string& service_name, std::shared_ptr<grpc::Channel> channel) {
    channels_[service_name] = std::move(channel);
  }
  // nullptr when no backend serves `service_name`.
  std::shared_ptr<grpc::Channel> For(const std::string& service_name) const {
    auto it = channels_.find(service_name);
    return it == channels_.end() ? nullptr : it->second;
  }
  const std::map<std::string, std::shared_ptr<grpc::Channel>>& all() const { return channels_; }

 private:
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
};

}  // namespace labgate::gateway
