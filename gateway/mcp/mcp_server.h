// What every MCP connection shares: server identity, the providers of tools, resources
// and prompts, and the hub of live sessions that list-changed notices go out to.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/mcp/providers.h"
#include "gateway/mcp/task_host.h"
#include "gateway/mcp/tool_access.h"

namespace labgate::gateway {

struct ServerConfig {
  std::string version = "0.1.0";
  std::string instructions;
  size_t page_size = 100;  // items per tools/resources/prompts list page
  std::chrono::milliseconds call_deadline{30000};
  std::chrono::milliseconds client_request_timeout{60000};  // sampling, elicitation, roots
};

// Thread-safe registry of who hears list changes: stateful sessions, and 2026-era
// subscriptions/listen streams.
class ListChangeHub {
 public:
  using Listener = std::function<void(ListKind)>;
  // `listener` is called (on the notifying thread) until the handle is released.
  std::shared_ptr<void> Listen(Listener listener);
  void Broadcast(ListKind kind);
  size_t listeners();

 private:
  absl::Mutex mutex_;
  std::vector<std::weak_ptr<Listener>> listeners_ ABSL_GUARDED_BY(mutex_);
};

// Serialized tools/list pages, valid until the tool set (or the access file) changes.
class ToolListCache {
 public:
  struct Version {
    uint64_t tools = 0;   // McpServer::tools_generation
    uint64_t access = 0;  // the access file's generation, for lists filtered by it
    bool operator==(const Version& other) const {
      return tools == other.tools && access == other.access;
    }
  };
  // The cached result text under `key` (a cursor, or a principal and a cursor) at `version`,
  // or null when absent. Shared, not copied: a page of the tool list is tens of kilobytes.
  std::shared_ptr<const std::string> Find(const std::string& key, Version version);
  void Store(const std::string& key, Version version,
             std::shared_ptr<const std::string> result_text);

 private:
  absl::Mutex mutex_;
  Version version_ ABSL_GUARDED_BY(mutex_);
  std::map<std::string, std::shared_ptr<const std::string>> pages_ ABSL_GUARDED_BY(mutex_);
};

struct McpServer {
  ServerConfig config;
  std::vector<ToolProvider*> tools;
  std::vector<ResourceProvider*> resources;
  std::vector<PromptProvider*> prompts;
  // Long calls as MCP tasks; null: no call becomes one, and the extension is not offered.
  TaskHost* tasks = nullptr;
  // Who may see and call which tool (--access-file); null or disabled: everyone, every tool.
  std::shared_ptr<const ToolAccess> access;
  std::shared_ptr<ListChangeHub> hub = std::make_shared<ListChangeHub>();
  // Bumped by NotifyListChanged(kTools); tools/list pages are cached per generation.
  std::shared_ptr<std::atomic<uint64_t>> tools_generation =
      std::make_shared<std::atomic<uint64_t>>(0);
  std::shared_ptr<ToolListCache> tools_cache = std::make_shared<ToolListCache>();
  // The lists filtered per principal by the access file, cached under the principal's name.
  std::shared_ptr<ToolListCache> principal_tools_cache = std::make_shared<ToolListCache>();

  // Tells every initialized session and every listening subscription that a list changed.
  void NotifyListChanged(ListKind kind) const;
};

// The default `instructions` text returned by initialize.
std::string DefaultInstructions();

// A fresh owner id for one connection, e.g. "stdio-3f9c2a1b7d4e8f60".
std::string NewOwnerId(const std::string& transport);

}  // namespace labgate::gateway
