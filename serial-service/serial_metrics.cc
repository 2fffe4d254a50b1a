#include "serial-service/serial_metrics.h"

namespace labgate::serial {

SerialMetrics& SerialMetrics::Get() {
  static SerialMetrics* families = [] {
    metrics::Registry& registry = metrics::Default();
    auto* made = new SerialMetrics{
        registry.Gauge("labgate_serial_open_ports", "Serial ports open now."),
        registry.Counter("labgate_serial_bytes_total",
                         "Bytes written to (tx) and read from (rx) serial devices.", {"direction"}),
        registry.Counter("labgate_serial_read_timeouts_total",
                         "Reads and queries that timed out before their data arrived."),
        registry.Counter("labgate_serial_auto_closes_total",
                         "Ports closed for idling past their idle_disconnect_ms."),
        registry.Counter("labgate_serial_devices_lost_total",
                         "Times an open port's device went away."),
        registry.Counter("labgate_serial_policy_refusals_total",
                         "Opens, reconfigurations and writes the safety policy refused.",
                         {"action"}),
        registry.Counter("labgate_serial_policy_confirmations_total",
                         "Writes the policy held for a person's confirmation, and the answers.",
                         {"outcome"}),
        registry.Gauge("labgate_serial_recording_queue_depth",
                       "Records of bound ports waiting for the session service."),
        registry.Counter("labgate_serial_recording_lost_total",
                         "Records of bound ports lost (queue full, no session service, or "
                         "refused)."),
        registry.Counter("labgate_serial_capture_dropped_bytes_total",
                         "Received bytes dropped unread because a port's capture buffer was "
                         "full (a bound port's transcript still has them)."),
        registry.Counter("labgate_serial_replay_divergences_total",
                         "Writes to replay:// ports that the recording did not expect."),
    };
    // The fixed series exist from the start, so a scrape shows them at 0.
    made->open_ports.Get();
    for (const char* direction : {"tx", "rx"}) made->bytes.With({direction});
    made->read_timeouts.Get();
    made->auto_closes.Get();
    made->devices_lost.Get();
    for (const char* action : {"open", "reconfigure", "write"})
      made->policy_refusals.With({action});
    for (const char* outcome : {"requested", "approved", "declined"}) {
      made->policy_confirmations.With({outcome});
    }
    made->recording_queue_depth.Get();
    made->recording_lost.Get();
    made->capture_dropped.Get();
    made->replay_divergences.Get();
    return made;
  }();
  return *families;
}

}  // namespace labgate::serial
