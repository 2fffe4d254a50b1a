#include "gateway/mcp/tool_access.h"

#include <utility>

#include "gateway/mcp/mcp_server.h"

namespace labgate::gateway {

using nlohmann::json;

bool ToolIsReadOnly(const json& tool) {
  auto annotations = tool.find("annotations");
  if (annotations == tool.end() || !annotations->is_object()) return false;
  auto hint = annotations->find("readOnlyHint");
  return hint != annotations->end() && hint->is_boolean() && hint->get<bool>();
}

ToolAccess::ToolAccess(std::shared_ptr<const access::AccessControl> control)
    : control_(std::move(control)) {}

bool ToolAccess::ReadOnly(const McpServer& server, const std::string& tool) const {
  const uint64_t generation = server.tools_generation->load(std::memory_order_acquire);
  std::shared_ptr<const ReadOnlyIndex> index;
  {
    absl::MutexLock lock(&mutex_);
    index = index_;
  }
  if (index == nullptr || index->generation != generation) {
    auto built = std::make_shared<ReadOnlyIndex>();
    built->generation = generation;
    // First wins, in the order tools/call dispatches: a later provider's tool of the same
    // name is never the one called, so its hints must not stand for the one that is.
    for (ToolProvider* provider : server.tools) {
      for (const json& entry : provider->ListTools()) {
        built->read_only.try_emplace(entry.value("name", ""), ToolIsReadOnly(entry));
      }
    }
    index = built;
    absl::MutexLock lock(&mutex_);
    index_ = std::move(built);
  }
  auto found = index->read_only.find(tool);
  return found != index->read_only.end() && found->second;
}

absl::Status ToolAccess::MayCall(const McpServer& server, const std::string& principal,
                                 const std::string& tool) const {
  if (!enabled()) return absl::OkStatus();
  return control_->MayCallTool(principal, tool, ReadOnly(server, tool));
}

std::vector<json> ToolAccess::Visible(std::vector<json> tools, const std::string& principal) const {
  if (!enabled()) return tools;
  std::vector<json> visible;
  for (json& tool : tools) {
    if (control_->MayCallTool(principal, tool.value("name", ""), ToolIsReadOnly(tool)).ok()) {
      visible.push_back(std::move(tool));
    }
  }
  return visible;
}

}  // namespace labgate::gateway
