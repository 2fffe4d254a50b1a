#include "session-service/reservations/reservation_grpc_service.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/call_finish.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/time_format.h"

namespace labgate::session {
namespace {

// What a request leaves at 0 means the documented default.
constexpr int64_t kDefaultHoldS = 3600;
constexpr int64_t kDefaultLeaseS = 60;

// Finishes `call` with the reservation, or with the desk's refusal.
ReservationDesk::Done Answer(CallContext* call, reservations_v1::Reservation* response) {
  return [call, response](absl::StatusOr<Reservation> reservation) {
    if (reservation.ok()) ReservationToProto(*reservation, response);
    call->Finish(reservation.status());
  };
}

}  // namespace

void ReservationToProto(const Reservation& reservation, reservations_v1::Reservation* out) {
  out->set_id(reservation.id);
  out->set_state(ReservationStateName(reservation.state));
  out->set_position(reservation.position);
  out->set_holder(reservation.request.holder);
  for (const std::string& target : reservation.request.targets) out->add_targets(target);
  for (const std::string& tag : reservation.request.tags) out->add_tags(tag);
  out->set_count(reservation.request.count);
  out->set_priority(reservation.request.priority);
  for (const std::string& granted : reservation.granted) out->add_granted(granted);
  out->set_created_at(FormatRfc3339(reservation.created_at));
  const bool waiting = reservation.state == ReservationState::kWaiting;
  const bool granted = reservation.state == ReservationState::kGranted;
  if (!waiting && reservation.granted_at != ReservationTime()) {
    out->set_granted_at(FormatRfc3339(reservation.granted_at));
  }
  if (waiting || granted) {
    if (!waiting || reservation.request.wait.count() > 0) {
      out->set_expires_at(FormatRfc3339(reservation.ends_at));
    }
  } else {
    out->set_ended_at(FormatRfc3339(reservation.ended_at));
    out->set_end_reason(reservation.end_reason);
  }
}

ReservationGrpcService::ReservationGrpcService(std::unique_ptr<ReservationDesk> desk,
                                               CallerAuthOptions auth,
                                               std::set<std::string> operators)
    : desk_(std::move(desk)), auth_(std::move(auth)), operators_(std::move(operators)) {}

void ReservationGrpcService::ServeReserve(CallContext* call,
                                          const reservations_v1::ReserveRequest* request,
                                          reservations_v1::Reservation* response) {
  ReservationRequest reserve;
  reserve.holder = call->principal();
  reserve.targets.assign(request->targets().begin(), request->targets().end());
  reserve.tags.assign(request->tags().begin(), request->tags().end());
  reserve.count = request->count() == 0 ? 1 : request->count();
  reserve.priority = request->priority();
  reserve.hold = std::chrono::seconds(request->hold_s() == 0 ? kDefaultHoldS : request->hold_s());
  reserve.lease =
      std::chrono::seconds(request->lease_s() == 0 ? kDefaultLeaseS : request->lease_s());
  reserve.wait = std::chrono::seconds(request->wait_s());
  desk_->Reserve(std::move(reserve), Answer(call, response));
}

void ReservationGrpcService::ServeRenew(CallContext* call,
                                        const reservations_v1::RenewRequest* request,
                                        reservations_v1::Reservation* response) {
  desk_->Renew(request->id(), call->principal(), Answer(call, response));
}

void ReservationGrpcService::ServeRelease(CallContext* call,
                                          const reservations_v1::ReleaseRequest* request,
                                          reservations_v1::Reservation* response) {
  desk_->Release(request->id(), call->principal(), Answer(call, response));
}

void ReservationGrpcService::ServeList(CallContext* call,
                                       const reservations_v1::ListReservationsRequest* /*request*/,
                                       reservations_v1::ListReservationsResponse* response) {
  const ReservationDesk::Listing listing = desk_->List();
  for (const Reservation& reservation : listing.reservations) {
    ReservationToProto(reservation, response->add_reservations());
  }
  for (const BenchReservable& entry : listing.reservables) {
    reservations_v1::Reservable* out = response->add_reservables();
    out->set_name(entry.reservable.name);
    for (const std::string& tag : entry.reservable.tags) out->add_tags(tag);
    out->set_present(entry.reservable.present);
    out->set_bench(entry.bench);
    if (!entry.holder.empty()) out->set_holder(entry.holder);
  }
  FinishNow(call, absl::OkStatus());
}

void ReservationGrpcService::ServePublishInventory(
    CallContext* call, const reservations_v1::PublishInventoryRequest* request,
    reservations_v1::PublishInventoryResponse* response) {
  if (!call->speaks_for_principals()) {
    return FinishNow(call, absl::PermissionDeniedError(absl::StrCat(
                               "caller ", call->principal(),
                               " may not report a bench's inventory: only labgate's own "
                               "processes may (a trusted gateway certificate or the gateway "
                               "token)")));
  }
  std::vector<Reservable> reservables;
  for (const reservations_v1::Reservable& reported : request->reservables()) {
    if (reported.name().empty()) {
      return FinishNow(call, absl::InvalidArgumentError("every reservable needs a name"));
    }
    reservables.push_back(
        {reported.name(), {reported.tags().begin(), reported.tags().end()}, reported.present()});
  }
  response->set_reservables(static_cast<int32_t>(reservables.size()));
  desk_->PublishInventory(request->bench(), std::move(reservables),
                          [call](const absl::Status& status) { call->Finish(status); });
}

void ReservationGrpcService::ServeCancel(CallContext* call,
                                         const reservations_v1::CancelRequest* request,
                                         reservations_v1::Reservation* response) {
  desk_->Cancel(request->id(), call->principal(), Answer(call, response));
}

void ReservationGrpcService::ServeEnd(CallContext* call,
                                      const reservations_v1::EndReservationRequest* request,
                                      reservations_v1::Reservation* response) {
  // The gateway vouches for its console's operator; anyone else must be an operator here.
  const bool from_console = call->speaks_for_principals() && !request->by().empty();
  if (!from_console && !operators_.contains(call->principal())) {
    return FinishNow(call, absl::PermissionDeniedError(absl::StrCat(
                               call->principal(),
                               " may not end another's reservation: only an operator may "
                               "(labgate-session --admin-token-file); a holder releases its own")));
  }
  if (request->reason().empty()) {
    return FinishNow(call, absl::InvalidArgumentError(
                               "say why the reservation is ended (reason): it is kept with it"));
  }
  const std::string reason =
      from_console
          ? absl::StrCat("by ", request->by(), " in the labgate console: ", request->reason())
          : absl::StrCat("by ", call->principal(), ": ", request->reason());
  LG_LOG(kWarning) << "reservation " << request->id() << " ended " << reason;
  desk_->EndByOperator(request->id(), reason, Answer(call, response));
}

void ReservationGrpcService::ServeTouch(CallContext* call,
                                        const reservations_v1::TouchRequest* request,
                                        reservations_v1::TouchResponse* response) {
  if (!call->speaks_for_principals()) {
    return FinishNow(call, absl::PermissionDeniedError(absl::StrCat(
                               "caller ", call->principal(),
                               " may not report uses of reserved ports: only labgate's own "
                               "processes may (a trusted gateway certificate or the gateway "
                               "token)")));
  }
  std::vector<ReservationDesk::Use> uses;
  uses.reserve(request->uses_size());
  for (const reservations_v1::TouchRequest::Use& use : request->uses()) {
    uses.push_back({use.holder(), use.target()});
  }
  desk_->Touch(uses, [call, response](absl::StatusOr<int> renewed) {
    if (renewed.ok()) response->set_renewed(*renewed);
    call->Finish(renewed.status());
  });
}

grpc::ServerWriteReactor<reservations_v1::ReservationUpdate>* ReservationGrpcService::Watch(
    grpc::CallbackServerContext* context,
    const reservations_v1::WatchReservationsRequest* /*request*/) {
  absl::StatusOr<Caller> caller = auth_.Identify(*context);
  return new ReservationWatchReactor(
      desk_.get(), &watches_, caller.ok() ? grpc::Status::OK : ToGrpcStatus(caller.status()));
}

void ReservationGrpcService::FinishWatchStreams() {
  watches_.CloseAll(grpc::Status(grpc::StatusCode::UNAVAILABLE, "reservations are shutting down"));
}

void ReservationGrpcService::AddLocalMethods(LocalMethods* methods) {
  const std::string service = reservations_v1::ReservationService::service_full_name();
  methods->Add(service, "Reserve", this, &ReservationGrpcService::ServeReserve);
  methods->Add(service, "Renew", this, &ReservationGrpcService::ServeRenew);
  methods->Add(service, "Release", this, &ReservationGrpcService::ServeRelease);
  methods->Add(service, "List", this, &ReservationGrpcService::ServeList);
  methods->Add(service, "PublishInventory", this, &ReservationGrpcService::ServePublishInventory);
  methods->Add(service, "Cancel", this, &ReservationGrpcService::ServeCancel);
  methods->Add(service, "Touch", this, &ReservationGrpcService::ServeTouch);
  methods->Add(service, "End", this, &ReservationGrpcService::ServeEnd);
}

}  // namespace labgate::session
