#include "gateway/mcp/mcp_server.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <random>

#include "absl/synchronization/mutex.h"

namespace labgate::gateway {

namespace {
constexpr std::array<const char*, 8> kLevelNames = {"debug", "info",     "notice", "warning",
                                                    "error", "critical", "alert",  "emergency"};
}

bool ParseMcpLogLevel(const std::string& text, McpLogLevel* level) {
  for (size_t i = 0; i < kLevelNames.size(); ++i) {
    if (text == kLevelNames[i]) {
      *level = static_cast<McpLogLevel>(i);
      return true;
    }
  }
  return false;
}

const char* McpLogLevelName(McpLogLevel level) { return kLevelNames[static_cast<size_t>(level)]; }

std::string ClientCapabilityFor(const std::string& method) {
  if (method == "sampling/createMessage") return "sampling";
  if (method == "elicitation/create") return "elicitation";
  if (method == "roots/list") return "roots";
  return "";
}

const char* TaskSupportName(TaskSupport support) {
  switch (support) {
    case TaskSupport::kOptional:
      return "optional";
    case TaskSupport::kRequired:
      return "required";
    case TaskSupport::kForbidden:
      break;
  }
  return "forbidden";
}

bool DeclaresTasks(const nlohmann::json& capabilities) {
  if (!capabilities.is_object()) return false;
  auto extensions = capabilities.find("extensions");
  return extensions != capabilities.end() && extensions->is_object() &&
         extensions->contains(kTasksExtension);
}

// In the stateful era the client hears of each change of the task it created on its own stream
// (notifications/tasks), until the task ends.
void FollowTask(TaskHost* tasks, RequestContext& context, const std::string& id) {
  RequestContext::NotifySink notify = context.LaterNotify();
  if (!notify || id.empty()) return;
  // The listener lets go of itself when the task ends, which may be before Listen returns.
  struct Following {
    absl::Mutex mutex;
    std::shared_ptr<void> handle ABSL_GUARDED_BY(mutex);
    bool ended ABSL_GUARDED_BY(mutex) = false;
  };
  auto following = std::make_shared<Following>();
  std::shared_ptr<void> handle =
      tasks->Listen(context.owner(), {id}, [notify, following](const nlohmann::json& task) {
        notify("notifications/tasks", task);
        const std::string status = task.value("status", "");
        if (status != "completed" && status != "failed" && status != "cancelled") return;
        std::shared_ptr<void> released;
        absl::MutexLock lock(&following->mutex);
        following->ended = true;
        released = std::move(following->handle);  // freed after the lock, at scope end
      });
  absl::MutexLock lock(&following->mutex);
  if (!following->ended) following->handle = std::move(handle);
}

std::shared_ptr<void> ListChangeHub::Listen(Listener listener) {
  auto handle = std::make_shared<Listener>(std::move(listener));
  absl::MutexLock lock(&mutex_);
  listeners_.erase(std::remove_if(listeners_.begin(), listeners_.end(),
                                  [](const std::weak_ptr<Listener>& l) { return l.expired(); }),
                   listeners_.end());
  listeners_.push_back(handle);
  return handle;
}

void ListChangeHub::Broadcast(ListKind kind) {
  std::vector<std::shared_ptr<Listener>> live;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& weak : listeners_) {
      if (auto listener = weak.lock()) live.push_back(std::move(listener));
    }
  }
  for (auto& listener : live) (*listener)(kind);
}

size_t ListChangeHub::listeners() {
  absl::MutexLock lock(&mutex_);
  return static_cast<size_t>(std::count_if(listeners_.begin(), listeners_.end(),
                                           [](const auto& l) { return !l.expired(); }));
}

std::shared_ptr<const std::string> ToolListCache::Find(const std::string& key, Version version) {
  absl::MutexLock lock(&mutex_);
  if (!(version == version_)) return nullptr;
  auto it = pages_.find(key);
  return it == pages_.end() ? nullptr : it->second;
}

void ToolListCache::Store(const std::string& key, Version version,
                          std::shared_ptr<const std::string> result_text) {
  absl::MutexLock lock(&mutex_);
  if (!(version == version_)) {
    pages_.clear();
    version_ = version;
  }
  if (pages_.size() < 64) pages_[key] = std::move(result_text);
}

void McpServer::NotifyListChanged(ListKind kind) const {
  if (kind == ListKind::kTools) tools_generation->fetch_add(1);
  hub->Broadcast(kind);
}

std::string DefaultInstructions() {
  return "labgate connects you to the lab machine's serial instruments and keeps a durable "
         "transcript of what you do. Typical flow: list_ports, open_port (port_name, baud_rate, "
         "terminator), write a command and read the reply; create_session for the device and "
         "append_message for each command sent and reply received (role, direction tx/rx, "
         "feature tags such as 'scpi,idn'); list_messages / filter_messages / export_session to "
         "review. Transcripts are also resources (labgate://sessions/{id}) you can subscribe "
         "to. Every tool returns structured JSON; failures come back as tool results with "
         "isError set and a message saying what to fix.";
}

std::string NewOwnerId(const std::string& transport) {
  static thread_local std::mt19937_64 generator(std::random_device{}());
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(generator()));
  return transport + "-" + hex;
}

}  // namespace labgate::gateway
