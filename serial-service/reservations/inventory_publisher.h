// Reports what this labgate-serial can reserve (issue 32) to the reservation service in
// labgate-session: its named instruments (with their tags, present or not) and the ports it
// lists. The service keeps inventories in memory only, so the report is sent again every
// period, which also brings a restarted labgate-session up to date; Nudge sends it at once.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

namespace labgate::serial {

struct InventoryPublisherOptions {
  std::string bench;  // the name the gateways give this labgate-serial; empty for the only one
  // Presented as "authorization: Bearer TOKEN": the reservation service takes inventories only
  // from labgate's own processes. Empty: none (an in-process channel).
  std::string token;
  std::chrono::milliseconds period{2000};
  std::chrono::milliseconds call_timeout{5000};
};

class InventoryPublisher {
 public:
  // What can be reserved now; called on the publisher's thread, and may block.
  using Gather = std::function<std::vector<reservations::v1::Reservable>()>;

  InventoryPublisher(std::shared_ptr<grpc::Channel> channel, Gather gather,
                     InventoryPublisherOptions options);
  ~InventoryPublisher();
  InventoryPublisher(const InventoryPublisher&) = delete;
  InventoryPublisher& operator=(const InventoryPublisher&) = delete;

  // Report at once (an instrument came or went, the catalog was reloaded).
  void Nudge() ABSL_LOCKS_EXCLUDED(mu_);
  // How many reports the service has taken.
  int64_t published() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);
  // One report; logs a failure when it differs from the last one's outcome.
  void Publish() ABSL_LOCKS_EXCLUDED(mu_);

  const std::unique_ptr<reservations::v1::ReservationService::Stub> stub_;
  const Gather gather_;
  const InventoryPublisherOptions options_;
  mutable absl::Mutex mu_;
  absl::CondVar wake_;
  bool nudged_ ABSL_GUARDED_BY(mu_) = true;  // the first report goes out at once
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  int64_t published_ ABSL_GUARDED_BY(mu_) = 0;
  std::string last_error_;  // the publisher's thread only
  std::thread thread_;
};

}  // namespace labgate::serial
