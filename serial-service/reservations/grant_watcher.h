// Keeps a GrantTable current from the reservation service's Watch stream, and reports the uses
// it records (Touch) so a grant in use is renewed. The stream is watched again after it breaks,
// from a fresh snapshot, so a restarted labgate-session or labgate-serial resyncs; in between
// the table is marked unreachable and keeps its last grants until their leases end.
#pragma once

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"
#include "serial-service/reservations/grant_table.h"

namespace labgate::serial {

struct GrantWatcherOptions {
  // Presented as "authorization: Bearer TOKEN" (Touch is for labgate's own processes only).
  // Empty: none (an in-process channel).
  std::string token;
  // How often recorded uses are reported. Well under the shortest lease, so a grant in use
  // never lapses between two reports.
  std::chrono::milliseconds touch_period{250};
  // How long after a broken stream it watches again (doubling up to the most).
  std::chrono::milliseconds retry_first{100};
  std::chrono::milliseconds retry_most{2000};
};

class GrantWatcher {
 public:
  // Starts watching at once; `changed` (optional) runs on the watcher's thread after each
  // snapshot or change is applied.
  GrantWatcher(std::shared_ptr<grpc::Channel> channel, std::shared_ptr<GrantTable> table,
               GrantWatcherOptions options, std::function<void()> changed = {});
  ~GrantWatcher();
  GrantWatcher(const GrantWatcher&) = delete;
  GrantWatcher& operator=(const GrantWatcher&) = delete;

 private:
  void Watch() ABSL_LOCKS_EXCLUDED(mu_);
  void ReportUses() ABSL_LOCKS_EXCLUDED(mu_);
  // Waits up to `period`; false once stopping.
  bool Sleep(std::chrono::milliseconds period) ABSL_LOCKS_EXCLUDED(mu_);

  const std::unique_ptr<reservations::v1::ReservationService::Stub> stub_;
  const std::shared_ptr<GrantTable> table_;
  const GrantWatcherOptions options_;
  const std::function<void()> changed_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ClientContext* watching_ ABSL_GUARDED_BY(mu_) = nullptr;  // to cancel on stop
  std::thread watch_thread_;
  std::thread touch_thread_;
};

}  // namespace labgate::serial
