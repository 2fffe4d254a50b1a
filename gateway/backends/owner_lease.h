// Serial ports belong to the MCP connection that opened them. A connection holds one
// Lease stream on the serial service for as long as it lives; when the stream ends
// (the connection closed, or the gateway died) the service closes that owner's ports.
// A stream the service ended on its own (it restarted, or the link broke) is begun again.
// A connection's first serial call waits for its Lease's first answer (bounded): a call that
// reached the service before the Lease did would leave its port to an owner the service
// cannot see go.
#pragma once

#include <grpcpp/channel.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gateway/backends/resuming_watch.h"
#include "labgate/serial/v1/serial.pb.h"

namespace labgate::gateway {

class OwnerLease {
 public:
  // Opens the Lease stream for `owner` (asynchronously; never blocks) and keeps it open.
  static std::shared_ptr<OwnerLease> Start(const std::shared_ptr<grpc::Channel>& channel,
                                           const std::string& owner);
  ~OwnerLease();

  // Ends the lease now: the service closes every port of the owner.
  void Release();
  // True while the service confirms the lease: false before, and while it is asked again.
  bool active() const;
  // Whether the service has answered the first request for the lease: granted it, failed it,
  // or kept silent for kFirstAnswerBound.
  bool first_answered() const;
  // Runs `then` once first_answered(): at once, or on the thread that settles it.
  void WhenFirstAnswered(std::function<void()> then);

  // How long a first call waits for a silent service before it goes ahead.
  static constexpr std::chrono::seconds kFirstAnswerBound{3};

  struct State;

 private:
  using Stream = ResumingWatch<labgate::serial::v1::LeaseEvent>;
  OwnerLease(std::shared_ptr<State> state, std::shared_ptr<Stream> watch)
      : state_(std::move(state)), watch_(std::move(watch)) {}
  std::shared_ptr<State> state_;
  std::shared_ptr<Stream> watch_;
};

// Hands out leases on the serial service for the sessions that use its tools.
class OwnerLeases {
 public:
  OwnerLeases(std::shared_ptr<grpc::Channel> channel, std::string service_name)
      : channels_{std::move(channel)}, service_name_(std::move(service_name)) {}
  // One lease per bench: each bench's serial service closes the owner's ports on its own.
  OwnerLeases(std::vector<std::shared_ptr<grpc::Channel>> channels, std::string service_name)
      : channels_(std::move(channels)), service_name_(std::move(service_name)) {}
  bool Covers(const std::string& service_name) const { return service_name == service_name_; }
  // Runs `then` once every lease in `held` (what Acquire made) has had its first answer.
  static void WhenFirstAnswered(const std::shared_ptr<void>& held, std::function<void()> then);
  std::shared_ptr<void> Acquire(const std::string& owner) const {
    auto leases = std::make_shared<std::vector<std::shared_ptr<OwnerLease>>>();
    for (const auto& channel : channels_) leases->push_back(OwnerLease::Start(channel, owner));
    return leases;
  }

 private:
  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::string service_name_;
};

}  // namespace labgate::gateway
