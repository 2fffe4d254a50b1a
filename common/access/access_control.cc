#include "common/access/access_control.h"

#include <utility>

#include "common/log.h"

namespace labgate::access {

absl::StatusOr<std::shared_ptr<AccessControl>> AccessControl::FromFile(const std::string& path) {
  auto control = std::make_shared<AccessControl>();
  if (path.empty()) return control;
  control->enabled_ = true;
  control->path_ = path;
  if (absl::Status loaded = control->Reload(); !loaded.ok()) return loaded;
  return control;
}

std::shared_ptr<AccessControl> AccessControl::ForTesting(AccessPolicy policy) {
  auto control = std::make_shared<AccessControl>();
  control->enabled_ = true;
  {
    absl::MutexLock lock(&control->mutex_);
    control->policy_ = std::make_shared<const AccessPolicy>(std::move(policy));
  }
  control->generation_.store(1);
  return control;
}

std::shared_ptr<const AccessPolicy> AccessControl::Current() const {
  absl::MutexLock lock(&mutex_);
  return policy_;
}

absl::Status AccessControl::Reload() {
  if (path_.empty()) return absl::OkStatus();
  auto loaded = AccessPolicy::Load(path_);
  if (!loaded.ok()) {
    if (Current() != nullptr) {
      LG_LOG(kError) << "access file not reloaded; the previous one stays in force: "
                     << loaded.status().message();
    }
    return loaded.status();
  }
  {
    absl::MutexLock lock(&mutex_);
    policy_ = std::make_shared<const AccessPolicy>(*std::move(loaded));
  }
  generation_.fetch_add(1, std::memory_order_acq_rel);
  return absl::OkStatus();
}

absl::Status AccessControl::MayCallTool(std::string_view principal, std::string_view tool,
                                        bool read_only_tool) const {
  auto policy = Current();
  return policy ? policy->MayCallTool(principal, tool, read_only_tool) : absl::OkStatus();
}

absl::Status AccessControl::MayUseBench(std::string_view principal, std::string_view bench) const {
  auto policy = Current();
  return policy ? policy->MayUseBench(principal, bench) : absl::OkStatus();
}

absl::Status AccessControl::MayUsePort(std::string_view principal, std::string_view port) const {
  auto policy = Current();
  return policy ? policy->MayUsePort(principal, port) : absl::OkStatus();
}

absl::Status AccessControl::MayChangePort(std::string_view principal, std::string_view port) const {
  auto policy = Current();
  return policy ? policy->MayChangePort(principal, port) : absl::OkStatus();
}

absl::Status AccessControl::MayApprove(std::string_view principal, std::string_view rule) const {
  auto policy = Current();
  return policy ? policy->MayApprove(principal, rule) : absl::OkStatus();
}

bool AccessControl::SomeoneMayApprove(std::string_view rule, std::string_view bench,
                                      std::string_view port) const {
  auto policy = Current();
  return policy == nullptr || policy->SomeoneMayApprove(rule, bench, port);
}

absl::Status AccessControl::MayAct(std::string_view principal) const {
  auto policy = Current();
  return policy ? policy->MayAct(principal) : absl::OkStatus();
}

std::string AccessControl::RoleOf(std::string_view principal) const {
  auto policy = Current();
  return policy ? policy->RoleOf(principal) : "unrestricted";
}

}  // namespace labgate::access
