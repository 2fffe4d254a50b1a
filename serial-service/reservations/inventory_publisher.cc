#include "serial-service/reservations/inventory_publisher.h"

#include <utility>

#include "absl/time/time.h"
#include "common/log.h"

namespace labgate::serial {

InventoryPublisher::InventoryPublisher(std::shared_ptr<grpc::Channel> channel, Gather gather,
                                       InventoryPublisherOptions options)
    : stub_(reservations::v1::ReservationService::NewStub(std::move(channel))),
      gather_(std::move(gather)),
      options_(std::move(options)),
      thread_([this] { Run(); }) {}

InventoryPublisher::~InventoryPublisher() {
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  wake_.SignalAll();
  thread_.join();
}

void InventoryPublisher::Nudge() {
  {
    absl::MutexLock lock(&mu_);
    nudged_ = true;
  }
  wake_.SignalAll();
}

int64_t InventoryPublisher::published() const {
  absl::MutexLock lock(&mu_);
  return published_;
}

void InventoryPublisher::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (!nudged_ && !stop_) wake_.WaitWithTimeout(&mu_, absl::FromChrono(options_.period));
      if (stop_) return;
      nudged_ = false;
    }
    Publish();
  }
}

void InventoryPublisher::Publish() {
  reservations::v1::PublishInventoryRequest request;
  request.set_bench(options_.bench);
  for (reservations::v1::Reservable& reservable : gather_()) {
    *request.add_reservables() = std::move(reservable);
  }
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + options_.call_timeout);
  if (!options_.token.empty()) context.AddMetadata("authorization", "Bearer " + options_.token);
  reservations::v1::PublishInventoryResponse response;
  const grpc::Status status = stub_->PublishInventory(&context, request, &response);
  const std::string error = status.ok() ? "" : status.error_message();
  if (error != last_error_) {
    if (status.ok()) {
      LG_LOG(kInfo) << "inventory reported to the reservation service again ("
                    << response.reservables() << " reservable)";
    } else {
      LG_LOG(kWarning) << "inventory not reported to the reservation service: " << error;
    }
    last_error_ = error;
  }
  if (status.ok()) {
    absl::MutexLock lock(&mu_);
    ++published_;
  }
}

}  // namespace labgate::serial
