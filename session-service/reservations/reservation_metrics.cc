#include "session-service/reservations/reservation_metrics.h"

namespace labgate::session {

ReservationMetrics& ReservationMetrics::Get() {
  static ReservationMetrics* families = [] {
    metrics::Registry& registry = metrics::Default();
    auto* made = new ReservationMetrics{
        registry.Gauge("labgate_reservations_waiting", "Reservations waiting in the queue."),
        registry.Gauge("labgate_reservations_granted", "Reservations granted and not yet ended."),
        registry.Counter("labgate_reservation_grants_total", "Reservations granted."),
        registry.Counter("labgate_reservation_expiries_total",
                         "Reservations that ran out: a lease not renewed, a hold used up, or a "
                         "wait that ended in the queue."),
        registry.Histogram("labgate_reservation_wait_seconds",
                           "Time from a reservation's request to its grant.", {},
                           {0.01, 0.1, 1, 10, 60, 300, 900, 3600, 4 * 3600, 24 * 3600}),
    };
    made->waiting.Get();
    made->granted.Get();
    made->grants.Get();
    made->expiries.Get();
    made->wait_seconds.Get();
    return made;
  }();
  return *families;
}

}  // namespace labgate::session
