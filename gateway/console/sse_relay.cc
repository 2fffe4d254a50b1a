#include "gateway/console/sse_relay.h"

#include "gateway/jsonrpc/message.h"

namespace labgate::gateway::console {

void RelayCall::Cancel() {
  absl::MutexLock lock(&mutex_);
  if (!done_) context_.TryCancel();
}

void RelayCall::MarkDone() {
  absl::MutexLock lock(&mutex_);
  done_ = true;
}

bool RelayRegistry::Add(const std::shared_ptr<RelayCall>& call) {
  absl::MutexLock lock(&mutex_);
  if (stopped_ || calls_.size() >= max_open_) return false;
  calls_.insert(call);
  return true;
}

void RelayRegistry::Remove(const std::shared_ptr<RelayCall>& call) {
  absl::MutexLock lock(&mutex_);
  calls_.erase(call);
}

void RelayRegistry::StopAll() {
  std::set<std::shared_ptr<RelayCall>> calls;
  {
    absl::MutexLock lock(&mutex_);
    stopped_ = true;
    calls = calls_;
  }
  for (const auto& call : calls) call->Cancel();
}

size_t RelayRegistry::open() const {
  absl::MutexLock lock(&mutex_);
  return calls_.size();
}

std::string SseData(const nlohmann::json& event) {
  // Dumped JSON has no raw newline, so one data line carries it.
  return "data: " + jsonrpc::DumpJson(event) + "\n\n";
}

}  // namespace labgate::gateway::console
