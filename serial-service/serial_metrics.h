// labgate-serial's metric families (docs/OPERATIONS.md lists them), in the process-wide
// registry: the standalone binary serves them on --metrics-listen, and an embedded serial
// service shows them in the gateway's /metrics.
#pragma once

#include "common/metrics/metrics.h"

namespace labgate::serial {

struct SerialMetrics {
  metrics::GaugeFamily& open_ports;              // (none)
  metrics::CounterFamily& bytes;                 // direction: tx, rx
  metrics::CounterFamily& read_timeouts;         // (none)
  metrics::CounterFamily& auto_closes;           // (none)
  metrics::CounterFamily& devices_lost;          // (none)
  metrics::CounterFamily& policy_refusals;       // action: open, reconfigure, write
  metrics::CounterFamily& policy_confirmations;  // outcome: requested, approved, declined
  metrics::GaugeFamily& recording_queue_depth;   // (none)
  metrics::CounterFamily& recording_lost;        // (none)
  metrics::CounterFamily& capture_dropped;       // (none): bytes, not reads
  metrics::CounterFamily& replay_divergences;    // (none)

  // Registers every family (with its fixed series at 0) on first use.
  static SerialMetrics& Get();
};

}  // namespace labgate::serial
