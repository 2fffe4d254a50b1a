// A reservation as the session store keeps it: one JSON object per reservation, its times as
// Unix milliseconds, so that a restart restores the queue and the grants exactly.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "session-service/reservations/reservation_book.h"

namespace labgate::session {

std::string ReservationToJson(const Reservation& reservation);
// INVALID_ARGUMENT naming what is missing or malformed.
absl::StatusOr<Reservation> ReservationFromJson(const std::string& text);
// The state by its name; INVALID_ARGUMENT for another word.
absl::StatusOr<ReservationState> ReservationStateFromName(const std::string& name);

}  // namespace labgate::session
