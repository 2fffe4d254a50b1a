// labgate.reservations.v1.ReservationService over a ReservationDesk, on the gRPC callback API
// and for in-process calls (common/local_call.h). The holder of a reservation is always the
// caller's principal, as the service's CallerAuth establishes it.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "common/caller_auth.h"
#include "common/grpc_unary_call.h"
#include "common/local_methods.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "session-service/reservations/reservation_desk.h"
#include "session-service/reservations/reservation_watch.h"

namespace labgate::session {

namespace reservations_v1 = ::labgate::reservations::v1;

// The name grpc.health.v1 reports the service under.
inline constexpr char kReservationServiceName[] = "labgate.reservations.v1.ReservationService";

class ReservationGrpcService : public reservations_v1::ReservationService::CallbackService {
 public:
  // `operators`: the principals that may end anyone's reservation (End).
  ReservationGrpcService(std::unique_ptr<ReservationDesk> desk, CallerAuthOptions auth,
                         std::set<std::string> operators = {});

  grpc::ServerUnaryReactor* Reserve(grpc::CallbackServerContext* context,
                                    const reservations_v1::ReserveRequest* request,
                                    reservations_v1::Reservation* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeReserve, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* Renew(grpc::CallbackServerContext* context,
                                  const reservations_v1::RenewRequest* request,
                                  reservations_v1::Reservation* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeRenew, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* Release(grpc::CallbackServerContext* context,
                                    const reservations_v1::ReleaseRequest* request,
                                    reservations_v1::Reservation* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeRelease, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* List(grpc::CallbackServerContext* context,
                                 const reservations_v1::ListReservationsRequest* request,
                                 reservations_v1::ListReservationsResponse* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeList, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* PublishInventory(
      grpc::CallbackServerContext* context, const reservations_v1::PublishInventoryRequest* request,
      reservations_v1::PublishInventoryResponse* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServePublishInventory, auth_, context,
                         request, response);
  }

  grpc::ServerUnaryReactor* Cancel(grpc::CallbackServerContext* context,
                                   const reservations_v1::CancelRequest* request,
                                   reservations_v1::Reservation* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeCancel, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* End(grpc::CallbackServerContext* context,
                                const reservations_v1::EndReservationRequest* request,
                                reservations_v1::Reservation* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeEnd, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* Touch(grpc::CallbackServerContext* context,
                                  const reservations_v1::TouchRequest* request,
                                  reservations_v1::TouchResponse* response) override {
    return ServeCallback(this, &ReservationGrpcService::ServeTouch, auth_, context, request,
                         response);
  }
  grpc::ServerWriteReactor<reservations_v1::ReservationUpdate>* Watch(
      grpc::CallbackServerContext* context,
      const reservations_v1::WatchReservationsRequest* request) override;

  void ServeReserve(CallContext* call, const reservations_v1::ReserveRequest* request,
                    reservations_v1::Reservation* response);
  void ServeRenew(CallContext* call, const reservations_v1::RenewRequest* request,
                  reservations_v1::Reservation* response);
  void ServeRelease(CallContext* call, const reservations_v1::ReleaseRequest* request,
                    reservations_v1::Reservation* response);
  void ServeList(CallContext* call, const reservations_v1::ListReservationsRequest* request,
                 reservations_v1::ListReservationsResponse* response);
  void ServePublishInventory(CallContext* call,
                             const reservations_v1::PublishInventoryRequest* request,
                             reservations_v1::PublishInventoryResponse* response);
  void ServeCancel(CallContext* call, const reservations_v1::CancelRequest* request,
                   reservations_v1::Reservation* response);
  void ServeEnd(CallContext* call, const reservations_v1::EndReservationRequest* request,
                reservations_v1::Reservation* response);
  void ServeTouch(CallContext* call, const reservations_v1::TouchRequest* request,
                  reservations_v1::TouchResponse* response);
  // Ends every Watch stream (UNAVAILABLE) and refuses new ones: before the server shuts down.
  void FinishWatchStreams();
  // Registers every unary method for in-process calls.
  void AddLocalMethods(LocalMethods* methods);

  ReservationDesk& desk() { return *desk_; }

 private:
  const std::unique_ptr<ReservationDesk> desk_;
  const CallerAuth auth_;
  const std::set<std::string> operators_;
  ReservationWatchRegistry watches_;
};

// A reservation as the API shows it.
void ReservationToProto(const Reservation& reservation, reservations_v1::Reservation* out);

}  // namespace labgate::session
