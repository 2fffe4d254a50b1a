#include "gateway/principals/principal_registry.h"

#include <vector>

#include "common/log.h"

namespace labgate::gateway {

std::shared_ptr<Principal> PrincipalRegistry::Get(const std::string& name) {
  absl::MutexLock lock(&mutex_);
  auto& principal = principals_[name];
  if (!principal) principal = std::make_shared<Principal>(name, prefix_ + name, transport_, clock_);
  return principal;
}

size_t PrincipalRegistry::ReleaseIdle(std::chrono::steady_clock::time_point cutoff) {
  std::vector<std::shared_ptr<Principal>> idle;
  {
    absl::MutexLock lock(&mutex_);
    for (auto& [name, principal] : principals_) {
      if (!principal->busy() && principal->last_active() < cutoff && principal->holds_anything()) {
        idle.push_back(principal);
      }
    }
  }
  for (auto& principal : idle) {
    LG_LOG(kInfo) << "principal " << principal->name()
                  << " made no request for the idle-release time; releasing its serial ports";
    principal->Release();
  }
  return idle.size();
}

size_t PrincipalRegistry::size() const {
  absl::MutexLock lock(&mutex_);
  return principals_.size();
}

}  // namespace labgate::gateway
