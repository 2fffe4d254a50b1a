#include "session-service/store/store_metrics.h"

namespace labgate::session {

StoreMetrics& StoreMetrics::Get() {
  static StoreMetrics* families = [] {
    metrics::Registry& registry = metrics::Default();
    auto* made = new StoreMetrics{
        registry.Counter("labgate_session_appends_total",
                         "Messages appended to transcripts and committed (replays of an "
                         "idempotency key store nothing and are not counted)."),
        registry.Histogram("labgate_session_commit_batch_size",
                           "Writes committed together in one transaction (group commit).", {},
                           {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}),
        registry.Histogram("labgate_session_fsync_duration_seconds",
                           "Time COMMIT took: the WAL write and its fsync.", {},
                           metrics::LatencyBuckets()),
        registry.Gauge("labgate_session_database_bytes",
                       "Size of sessions.db and its write-ahead log, as of the last commit."),
    };
    made->appends.Get();
    made->commit_batch.Get();
    made->commit_seconds.Get();
    made->database_bytes.Get();
    return made;
  }();
  return *families;
}

}  // namespace labgate::session
