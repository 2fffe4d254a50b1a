#include "gateway/console/reservation_views.h"

#include <google/protobuf/util/json_util.h>

#include <string>
#include <utility>

#include "common/grpc_status.h"

namespace labgate::gateway::console {

namespace reservations_v1 = labgate::reservations::v1;
using json = nlohmann::json;

ReservationViews::ReservationViews(const std::shared_ptr<grpc::Channel>& channel,
                                   std::chrono::milliseconds deadline)
    : stub_(channel ? reservations_v1::ReservationService::NewStub(channel) : nullptr),
      deadline_(deadline) {}

void ReservationViews::List(JsonDone done) const {
  if (stub_ == nullptr) {
    return done(json{{"reservations", json::array()}, {"reservables", json::array()}});
  }
  struct Call {
    grpc::ClientContext context;
    reservations_v1::ListReservationsRequest request;
    reservations_v1::ListReservationsResponse response;
  };
  auto call = std::make_shared<Call>();
  call->context.set_deadline(std::chrono::system_clock::now() + deadline_);
  stub_->async()->List(
      &call->context, &call->request, &call->response,
      [call, done = std::move(done)](const grpc::Status& status) {
        if (!status.ok()) return done(FromGrpcStatus(status));
        google::protobuf::util::JsonPrintOptions options;
        options.preserve_proto_field_names = true;
        options.always_print_primitive_fields = true;
        std::string text;
        if (!google::protobuf::util::MessageToJsonString(call->response, &text, options).ok()) {
          return done(absl::InternalError("the reservations could not be shown"));
        }
        json listed = json::parse(text, nullptr, /*allow_exceptions=*/false);
        if (!listed.contains("reservations")) listed["reservations"] = json::array();
        if (!listed.contains("reservables")) listed["reservables"] = json::array();
        done(std::move(listed));
      });
}

void ReservationViews::End(const std::string& id, const std::string& by, const std::string& reason,
                           JsonDone done) const {
  if (stub_ == nullptr) return done(absl::UnavailableError("no reservation service here"));
  struct Call {
    grpc::ClientContext context;
    reservations_v1::EndReservationRequest request;
    reservations_v1::Reservation response;
  };
  auto call = std::make_shared<Call>();
  call->context.set_deadline(std::chrono::system_clock::now() + deadline_);
  call->request.set_id(id);
  call->request.set_by(by);
  call->request.set_reason(reason);
  stub_->async()->End(
      &call->context, &call->request, &call->response,
      [call, done = std::move(done)](const grpc::Status& status) {
        if (!status.ok()) return done(FromGrpcStatus(status));
        google::protobuf::util::JsonPrintOptions options;
        options.preserve_proto_field_names = true;
        std::string text;
        if (!google::protobuf::util::MessageToJsonString(call->response, &text, options).ok()) {
          return done(absl::InternalError("the reservation could not be shown"));
        }
        done(json::parse(text, nullptr, /*allow_exceptions=*/false));
      });
}

}  // namespace labgate::gateway::console
