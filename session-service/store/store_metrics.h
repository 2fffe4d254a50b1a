// The session store's metric families (docs/OPERATIONS.md lists them), in the process-wide
// registry: labgate-session serves them on --metrics-listen, and an embedded store shows
// them in the gateway's /metrics.
#pragma once

#include "common/metrics/metrics.h"

namespace labgate::session {

struct StoreMetrics {
  metrics::CounterFamily& appends;           // (none)
  metrics::HistogramFamily& commit_batch;    // (none): writes per transaction
  metrics::HistogramFamily& commit_seconds;  // (none): COMMIT, the WAL write and its fsync
  metrics::GaugeFamily& database_bytes;      // (none): sessions.db plus its WAL

  // Registers every family (with its series at 0) on first use.
  static StoreMetrics& Get();
};

}  // namespace labgate::session
