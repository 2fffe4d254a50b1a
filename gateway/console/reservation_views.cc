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

namespace {

// A reply as JSON with the proto's field names, every field shown.
absl::StatusOr<json> AsJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string text;
  if (!google::protobuf::util::MessageToJsonString(message, &text, options).ok()) {
    return absl::InternalError("the reservations could not be shown");
  }
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

// One unary call of the reservation service, answered as JSON.
template <typename Request, typename Response, typename Method>
void CallAsJson(std::chrono::milliseconds deadline, Request request, Method method,
                std::function<void(absl::StatusOr<json>)> done) {
  struct Call {
    grpc::ClientContext context;
    Request request;
    Response response;
  };
  auto call = std::make_shared<Call>();
  call->context.set_deadline(std::chrono::system_clock::now() + deadline);
  call->request = std::move(request);
  method(&call->context, &call->request, &call->response,
         [call, done = std::move(done)](const grpc::Status& status) {
           if (!status.ok()) return done(FromGrpcStatus(status));
           done(AsJson(call->response));
         });
}

}  // namespace

void ReservationViews::List(JsonDone done) const {
  if (stub_ == nullptr) {
    return done(json{{"reservations", json::array()}, {"reservables", json::array()}});
  }
  CallAsJson<reservations_v1::ListReservationsRequest, reservations_v1::ListReservationsResponse>(
      deadline_, {}, [stub = stub_](auto... args) { stub->async()->List(args...); },
      [done = std::move(done)](absl::StatusOr<json> listed) {
        if (!listed.ok()) return done(listed.status());
        if (!listed->contains("reservations")) (*listed)["reservations"] = json::array();
        if (!listed->contains("reservables")) (*listed)["reservables"] = json::array();
        done(std::move(listed));
      });
}

void ReservationViews::End(const std::string& id, const std::string& by, const std::string& reason,
                           JsonDone done) const {
  if (stub_ == nullptr) return done(absl::UnavailableError("no reservation service here"));
  reservations_v1::EndReservationRequest request;
  request.set_id(id);
  request.set_by(by);
  request.set_reason(reason);
  CallAsJson<reservations_v1::EndReservationRequest, reservations_v1::Reservation>(
      deadline_, std::move(request), [stub = stub_](auto... args) { stub->async()->End(args...); },
      std::move(done));
}

}  // namespace labgate::gateway::console
