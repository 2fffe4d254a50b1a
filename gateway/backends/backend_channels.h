// Which gRPC channel serves each labgate service: in-process when embedded, or a
// remote address given by --session-addr and friends.
#pragma once

#include <grpcpp/channel.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/local_call.h"
#include "gateway/backends/serial_benches.h"

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

  // An embedded service: its tools' unary calls are made in process.
  void SetLocal(const std::string& service_name, LocalCalls* calls) {
    local_calls_[service_name] = calls;
  }
  // nullptr when `service_name` is remote (or unknown).
  LocalCalls* LocalFor(const std::string& service_name) const {
    auto it = local_calls_.find(service_name);
    return it == local_calls_.end() ? nullptr : it->second;
  }

  // Benches of the serial service when several are configured (or one is named);
  // null otherwise. Calls then route by the bench prefix of their port.
  void SetSerialBenches(std::shared_ptr<const SerialBenches> benches) {
    benches_ = std::move(benches);
  }
  const SerialBenches* serial_benches() const { return benches_.get(); }
  // The channel of every bench (the serial service's one channel when unbenched).
  std::vector<std::shared_ptr<grpc::Channel>> ChannelsOf(const std::string& service_name) const {
    std::vector<std::shared_ptr<grpc::Channel>> channels;
    if (benches_ != nullptr && service_name == serial_service_) {
      for (const Bench& bench : benches_->all()) channels.push_back(bench.channel);
    } else if (auto channel = For(service_name)) {
      channels.push_back(channel);
    }
    return channels;
  }
  void set_serial_service(const std::string& name) { serial_service_ = name; }
  const std::string& serial_service() const { return serial_service_; }

  // Where a remote service lives, for errors and readiness that name it.
  void SetAddress(const std::string& service_name, const std::string& address) {
    addresses_[service_name] = address;
  }
  // "" when `service_name` is embedded (or unknown).
  std::string AddressOf(const std::string& service_name) const {
    auto it = addresses_.find(service_name);
    return it == addresses_.end() ? "" : it->second;
  }
  // Each channel keyed by how an operator knows it: "actions service at HOST:PORT", or
  // "actions service (embedded)".
  std::map<std::string, std::shared_ptr<grpc::Channel>> Labelled() const {
    std::map<std::string, std::shared_ptr<grpc::Channel>> labelled;
    for (const auto& [name, channel] : channels_) {
      if (benches_ != nullptr && name == serial_service_) continue;
      std::string address = AddressOf(name);
      labelled[DescribeBackend(name, address)] = channel;
    }
    if (benches_ != nullptr) {
      for (const Bench& bench : benches_->all()) {
        std::string label = DescribeBackend(serial_service_, bench.address);
        if (!bench.name.empty()) label = "bench " + bench.name + ": " + label;
        labelled[label] = bench.channel;
      }
    }
    return labelled;
  }

  // "labgate.actions.v1.ActionsService" -> "actions service at ADDR".
  static std::string DescribeBackend(const std::string& service_name, const std::string& address) {
    std::string short_name = service_name;
    if (short_name.rfind("labgate.", 0) == 0) {
      short_name = short_name.substr(8, short_name.find('.', 8) - 8);
    }
    return short_name + " service" + (address.empty() ? " (embedded)" : " at " + address);
  }

 private:
  std::map<std::string, std::shared_ptr<grpc::Channel>> channels_;
  std::map<std::string, std::string> addresses_;
  std::map<std::string, LocalCalls*> local_calls_;
  std::shared_ptr<const SerialBenches> benches_;
  std::string serial_service_;
};

}  // namespace labgate::gateway
