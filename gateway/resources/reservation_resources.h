// labgate://reservations/{id}: one bench reservation as JSON (the reservation service's
// Reservation), readable and subscribable by its holder only; anyone else is told it does not
// exist, as the reservation tools tell them. Reads come from this gateway's ReservationWatch,
// or from the service's List while the watch has not yet seen the reservation; subscribers hear
// of every change the watch sees (the 2026 era's way to learn of a grant).
#pragma once

#include <grpcpp/channel.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "gateway/backends/reservation_watch.h"
#include "gateway/mcp/providers.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

namespace labgate::gateway {

class ReservationResources final : public ResourceProvider {
 public:
  ReservationResources(ReservationWatch* watch, const std::shared_ptr<grpc::Channel>& channel,
                       std::chrono::milliseconds deadline);

  void ListResources(JsonListDone done) override;
  std::vector<nlohmann::json> ListResourceTemplates() const override;
  bool HandlesUri(const std::string& uri) const override;
  void ReadResource(const std::string& uri, std::shared_ptr<RequestContext> context,
                    JsonDone done) override;
  std::shared_ptr<void> SubscribeResource(const std::string& uri,
                                          std::function<void()> updated) override;

 private:
  ReservationWatch* const watch_;
  const std::shared_ptr<labgate::reservations::v1::ReservationService::Stub> stub_;
  const std::chrono::milliseconds deadline_;
};

}  // namespace labgate::gateway
