#include "gateway/resources/reservation_resources.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/grpc_callback.h"
#include "common/grpc_status.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/tools/reservation_waits.h"

namespace labgate::gateway {

using json = nlohmann::json;
namespace reservations_v1 = labgate::reservations::v1;

namespace {

std::string IdOf(const std::string& uri) { return uri.substr(std::strlen(kReservationUriPrefix)); }

json Contents(const std::string& uri, const reservations_v1::Reservation& reservation) {
  return {{"contents",
           json::array({{{"uri", uri},
                         {"mimeType", "application/json"},
                         {"text", ProtoToJson(reservation)
                                      .dump(2, ' ', false, json::error_handler_t::replace)}}})}};
}

absl::Status NotFound(const std::string& uri) {
  return absl::NotFoundError(absl::StrCat("Resource not found: ", uri));
}

}  // namespace

ReservationResources::ReservationResources(ReservationWatch* watch,
                                           const std::shared_ptr<grpc::Channel>& channel,
                                           std::chrono::milliseconds deadline)
    : watch_(watch),
      stub_(reservations_v1::ReservationService::NewStub(channel)),
      deadline_(deadline) {}

void ReservationResources::ListResources(JsonListDone done) {
  done({});  // each holder's reservations are linked from its reserve results
}

std::vector<json> ReservationResources::ListResourceTemplates() const {
  return {{{"uriTemplate", "labgate://reservations/{id}"},
           {"name", "reservation"},
           {"title", "Bench reservation"},
           {"description",
            "One of your reservations: its state, place in the queue, grant and expiry; "
            "subscribe to hear when it is granted or ends"},
           {"mimeType", "application/json"}}};
}

bool ReservationResources::HandlesUri(const std::string& uri) const {
  return uri.rfind(kReservationUriPrefix, 0) == 0 &&
         uri.size() > std::strlen(kReservationUriPrefix);
}

void ReservationResources::ReadResource(const std::string& uri,
                                        std::shared_ptr<RequestContext> context, JsonDone done) {
  const std::string id = IdOf(uri);
  const std::string owner = context->owner();
  if (std::optional<reservations_v1::Reservation> known = watch_->Find(id)) {
    if (known->holder() != owner) return done(NotFound(uri));
    return done(Contents(uri, *known));
  }
  // Not seen by the watch yet (just made, or the stream is resuming): ask the service.
  struct Call {
    grpc::ClientContext context;
    reservations_v1::ListReservationsRequest request;
    reservations_v1::ListReservationsResponse response;
  };
  auto call = std::make_shared<Call>();
  call->context.set_deadline(std::chrono::system_clock::now() + deadline_);
  stub_->async()->List(&call->context, &call->request, &call->response,
                       OncePointerCallback([call, uri, id, owner,
                                            done = std::move(done)](const grpc::Status& status) {
                         if (!status.ok()) return done(FromGrpcStatus(status));
                         for (const auto& reservation : call->response.reservations()) {
                           if (reservation.id() == id && reservation.holder() == owner) {
                             return done(Contents(uri, reservation));
                           }
                         }
                         done(NotFound(uri));
                       }));
}

std::shared_ptr<void> ReservationResources::SubscribeResource(const std::string& uri,
                                                              std::function<void()> updated) {
  return watch_->Listen(IdOf(uri), [updated = std::move(updated)](
                                       const reservations_v1::Reservation&) { updated(); });
}

}  // namespace labgate::gateway
