// Reservations as labgate-session's watch describes them, for the grant table's tests.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "common/time_format.h"
#include "labgate/reservations/v1/reservations.pb.h"

namespace labgate::serial::testing {

// A grant of `held` to `holder`, ending `left` from now.
inline ::labgate::reservations::v1::Reservation Granted(const std::string& id,
                                                        const std::string& holder,
                                                        const std::vector<std::string>& held,
                                                        std::chrono::system_clock::duration left) {
  ::labgate::reservations::v1::Reservation reservation;
  reservation.set_id(id);
  reservation.set_holder(holder);
  reservation.set_state("granted");
  for (const std::string& name : held) {
    reservation.add_targets(name);
    reservation.add_granted(name);
  }
  reservation.set_expires_at(FormatRfc3339(std::chrono::system_clock::now() + left));
  return reservation;
}

// `holder` waiting for `target`, at `position` in its queue.
inline ::labgate::reservations::v1::Reservation Waiting(const std::string& id,
                                                        const std::string& holder,
                                                        const std::string& target, int position) {
  ::labgate::reservations::v1::Reservation reservation;
  reservation.set_id(id);
  reservation.set_holder(holder);
  reservation.set_state("waiting");
  reservation.add_targets(target);
  reservation.set_position(position);
  return reservation;
}

}  // namespace labgate::serial::testing
