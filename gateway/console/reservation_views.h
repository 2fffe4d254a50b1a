// The console's view of the bench reservations: who holds what and until when, and who waits
// in what order (the reservation service's List), as JSON for the page.
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "absl/status/statusor.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

namespace labgate::gateway::console {

class ReservationViews {
 public:
  using JsonDone = std::function<void(absl::StatusOr<nlohmann::json>)>;

  // `channel` null: no reservation service, and List answers an empty queue.
  ReservationViews(const std::shared_ptr<grpc::Channel>& channel,
                   std::chrono::milliseconds deadline);

  // {"reservations": [granted first, then the queue in order], "reservables": [...]}, each as
  // the reservation service's messages are in JSON (field names as in the proto).
  void List(JsonDone done) const;
  // Ends reservation `id`, whoever holds it, as the console's operator `by` for `reason`: the
  // reservation as it ended.
  void End(const std::string& id, const std::string& by, const std::string& reason,
           JsonDone done) const;

 private:
  const std::shared_ptr<labgate::reservations::v1::ReservationService::Stub> stub_;
  const std::chrono::milliseconds deadline_;
};

}  // namespace labgate::gateway::console
