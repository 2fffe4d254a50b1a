// The access file's view of the tools: which a principal may see in tools/list and call.
// A tool is read-only when its annotations say readOnlyHint: true; the hints are indexed
// once per tool-list generation, so a check is a lookup and a few glob matches.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "common/access/access_control.h"
#include "nlohmann/json.hpp"

namespace labgate::gateway {

struct McpServer;

class ToolAccess {
 public:
  explicit ToolAccess(std::shared_ptr<const access::AccessControl> control);

  bool enabled() const { return control_ != nullptr && control_->enabled(); }
  const access::AccessControl& control() const { return *control_; }
  // OK, or PERMISSION_DENIED naming the missing permission.
  absl::Status MayCall(const McpServer& server, const std::string& principal,
                       const std::string& tool) const ABSL_LOCKS_EXCLUDED(mutex_);
  // The tools of `tools` (tools/list entries) that `principal` may call.
  std::vector<nlohmann::json> Visible(std::vector<nlohmann::json> tools,
                                      const std::string& principal) const;

 private:
  struct ReadOnlyIndex {
    uint64_t generation = 0;
    std::unordered_map<std::string, bool> read_only;
  };
  bool ReadOnly(const McpServer& server, const std::string& tool) const ABSL_LOCKS_EXCLUDED(mutex_);

  std::shared_ptr<const access::AccessControl> control_;
  mutable absl::Mutex mutex_;
  mutable std::shared_ptr<const ReadOnlyIndex> index_ ABSL_GUARDED_BY(mutex_);
};

// A tools/list entry's readOnlyHint (false when absent).
bool ToolIsReadOnly(const nlohmann::json& tool);

}  // namespace labgate::gateway
