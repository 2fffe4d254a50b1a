#include "session-service/reservations/reservation_json.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"

namespace labgate::session {
namespace {

using nlohmann::json;

int64_t Ms(ReservationTime time) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(time.time_since_epoch()).count();
}

ReservationTime FromMs(int64_t ms) { return ReservationTime(std::chrono::milliseconds(ms)); }

}  // namespace

absl::StatusOr<ReservationState> ReservationStateFromName(const std::string& name) {
  for (ReservationState state :
       {ReservationState::kWaiting, ReservationState::kGranted, ReservationState::kExpired,
        ReservationState::kReleased, ReservationState::kCancelled}) {
    if (name == ReservationStateName(state)) return state;
  }
  return absl::InvalidArgumentError(absl::StrCat("'", name, "' is no reservation state"));
}

std::string ReservationToJson(const Reservation& reservation) {
  const ReservationRequest& request = reservation.request;
  const json out = {
      {"id", reservation.id},
      {"holder", request.holder},
      {"targets", request.targets},
      {"tags", request.tags},
      {"count", request.count},
      {"priority", request.priority},
      {"hold_s", request.hold.count()},
      {"lease_s", request.lease.count()},
      {"wait_s", request.wait.count()},
      {"state", ReservationStateName(reservation.state)},
      {"sequence", reservation.sequence},
      {"created_ms", Ms(reservation.created_at)},
      {"granted_ms", Ms(reservation.granted_at)},
      {"renewed_ms", Ms(reservation.renewed_at)},
      {"ended_ms", Ms(reservation.ended_at)},
      {"ends_ms", Ms(reservation.ends_at)},
      {"granted", reservation.granted},
      {"end_reason", reservation.end_reason},
  };
  return out.dump();
}

absl::StatusOr<Reservation> ReservationFromJson(const std::string& text) {
  const json in = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!in.is_object()) return absl::InvalidArgumentError("a stored reservation is not JSON");
  try {
    Reservation reservation;
    reservation.id = in.at("id").get<std::string>();
    ReservationRequest& request = reservation.request;
    request.holder = in.at("holder").get<std::string>();
    request.targets = in.at("targets").get<std::vector<std::string>>();
    request.tags = in.at("tags").get<std::vector<std::string>>();
    request.count = in.at("count").get<int>();
    request.priority = in.at("priority").get<int>();
    request.hold = std::chrono::seconds(in.at("hold_s").get<int64_t>());
    request.lease = std::chrono::seconds(in.at("lease_s").get<int64_t>());
    request.wait = std::chrono::seconds(in.at("wait_s").get<int64_t>());
    absl::StatusOr<ReservationState> state =
        ReservationStateFromName(in.at("state").get<std::string>());
    if (!state.ok()) return state.status();
    reservation.state = *state;
    reservation.sequence = in.at("sequence").get<int64_t>();
    reservation.created_at = FromMs(in.at("created_ms").get<int64_t>());
    reservation.granted_at = FromMs(in.at("granted_ms").get<int64_t>());
    reservation.renewed_at = FromMs(in.at("renewed_ms").get<int64_t>());
    reservation.ended_at = FromMs(in.at("ended_ms").get<int64_t>());
    reservation.ends_at = FromMs(in.at("ends_ms").get<int64_t>());
    reservation.granted = in.at("granted").get<std::vector<std::string>>();
    reservation.end_reason = in.at("end_reason").get<std::string>();
    return reservation;
  } catch (const json::exception& error) {
    return absl::InvalidArgumentError(
        absl::StrCat("a stored reservation cannot be read: ", error.what()));
  }
}

}  // namespace labgate::session
