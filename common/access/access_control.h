// The access file in force. Without --access-file there is none and everyone may do
// everything (labgate's behaviour before access files). Reload() (SIGHUP) reads the file
// again; a file that no longer loads is reported and the one in force stays. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/access/access_policy.h"

namespace labgate::access {

class AccessControl {
 public:
  // None: every check passes.
  AccessControl() = default;
  // Loads `path` (empty: none).
  static absl::StatusOr<std::shared_ptr<AccessControl>> FromFile(const std::string& path);
  // In force from the start, with nothing to reload (tests and benchmarks).
  static std::shared_ptr<AccessControl> ForTesting(AccessPolicy policy);

  bool enabled() const { return enabled_; }
  // Null without an access file.
  std::shared_ptr<const AccessPolicy> Current() const ABSL_LOCKS_EXCLUDED(mutex_);
  // Changes with every successful reload (caches of filtered lists key on it).
  uint64_t generation() const { return generation_.load(std::memory_order_acquire); }
  absl::Status Reload() ABSL_LOCKS_EXCLUDED(mutex_);

  // The checks of AccessPolicy, passing without an access file.
  absl::Status MayCallTool(std::string_view principal, std::string_view tool,
                           bool read_only_tool) const;
  absl::Status MayUseBench(std::string_view principal, std::string_view bench) const;
  absl::Status MayUsePort(std::string_view principal, std::string_view port) const;
  absl::Status MayChangePort(std::string_view principal, std::string_view port) const;
  absl::Status MayApprove(std::string_view principal, std::string_view rule) const;
  bool SomeoneMayApprove(std::string_view rule, std::string_view bench = "",
                         std::string_view port = "") const;
  absl::Status MayAct(std::string_view principal) const;
  // "viewer", "operator", "admin", "none"; "unrestricted" without an access file.
  std::string RoleOf(std::string_view principal) const;

 private:
  bool enabled_ = false;
  std::string path_;  // empty: nothing to reload
  mutable absl::Mutex mutex_;
  std::shared_ptr<const AccessPolicy> policy_ ABSL_GUARDED_BY(mutex_);
  std::atomic<uint64_t> generation_{0};
};

}  // namespace labgate::access
