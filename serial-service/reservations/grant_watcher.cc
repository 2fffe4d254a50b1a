#include "serial-service/reservations/grant_watcher.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/time/time.h"
#include "common/log.h"

namespace labgate::serial {

namespace pb = ::labgate::reservations::v1;

GrantWatcher::GrantWatcher(std::shared_ptr<grpc::Channel> channel,
                           std::shared_ptr<GrantTable> table, GrantWatcherOptions options,
                           std::function<void()> changed)
    : stub_(pb::ReservationService::NewStub(std::move(channel))),
      table_(std::move(table)),
      options_(std::move(options)),
      changed_(std::move(changed)) {
  watch_thread_ = std::thread([this] { Watch(); });
  touch_thread_ = std::thread([this] { ReportUses(); });
}

GrantWatcher::~GrantWatcher() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
    if (watching_ != nullptr) watching_->TryCancel();
  }
  watch_thread_.join();
  touch_thread_.join();
}

bool GrantWatcher::Sleep(std::chrono::milliseconds period) {
  absl::MutexLock lock(&mu_);
  mu_.AwaitWithTimeout(absl::Condition(&stop_), absl::FromChrono(period));
  return !stop_;
}

void GrantWatcher::Watch() {
  std::chrono::milliseconds retry = options_.retry_first;
  std::string last_error;
  while (true) {
    grpc::ClientContext context;
    if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
    {
      absl::MutexLock lock(&mu_);
      if (stop_) return;
      watching_ = &context;
    }
    std::unique_ptr<grpc::ClientReader<pb::ReservationUpdate>> reader =
        stub_->Watch(&context, pb::WatchReservationsRequest());
    pb::ReservationUpdate update;
    bool synced = false;
    while (reader->Read(&update)) {
      const std::vector<pb::Reservation> reservations(update.reservations().begin(),
                                                      update.reservations().end());
      if (update.snapshot()) {
        table_->Replace(reservations);
        if (!synced && !last_error.empty()) {
          LG_LOG(kInfo) << "reservations: watching the reservation service again";
        }
        synced = true;
        last_error.clear();
        retry = options_.retry_first;
      } else {
        table_->Apply(reservations);
      }
      if (changed_) changed_();
    }
    const grpc::Status status = reader->Finish();
    {
      absl::MutexLock lock(&mu_);
      watching_ = nullptr;
      if (stop_) return;
    }
    const std::string error = status.ok() ? "the stream ended" : status.error_message();
    table_->SetUnreachable(error);
    if (error != last_error) {
      LG_LOG(kWarning) << "reservations: the reservation service is unreachable (" << error
                       << "); enforcing the last grants known until their leases end";
      last_error = error;
    }
    if (!Sleep(retry)) return;
    retry = std::min(retry * 2, options_.retry_most);
  }
}

void GrantWatcher::ReportUses() {
  while (Sleep(options_.touch_period)) {
    std::vector<std::pair<std::string, std::string>> uses = table_->TakeUses();
    if (uses.empty()) continue;
    pb::TouchRequest request;
    for (auto& [holder, target] : uses) {
      pb::TouchRequest::Use* use = request.add_uses();
      use->set_holder(std::move(holder));
      use->set_target(std::move(target));
    }
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
    pb::TouchResponse response;
    const grpc::Status status = stub_->Touch(&context, request, &response);
    if (!status.ok()) {
      LG_LOG(kWarning) << "reservations: uses of reserved ports not reported: "
                       << status.error_message();
    }
  }
}

}  // namespace labgate::serial
