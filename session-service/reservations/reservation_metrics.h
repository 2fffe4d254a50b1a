// The reservation service's metric families (docs/OPERATIONS.md lists them), in the
// process-wide registry that labgate-session serves on --metrics-listen.
#pragma once

#include "common/metrics/metrics.h"

namespace labgate::session {

struct ReservationMetrics {
  metrics::GaugeFamily& waiting;           // (none): reservations in the queue now
  metrics::GaugeFamily& granted;           // (none): grants held now
  metrics::CounterFamily& grants;          // (none)
  metrics::CounterFamily& expiries;        // (none): leases, holds and waits that ran out
  metrics::HistogramFamily& wait_seconds;  // (none): from the request to its grant

  // Registers every family (with its series at 0) on first use.
  static ReservationMetrics& Get();
};

}  // namespace labgate::session
