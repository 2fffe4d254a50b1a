// The stateless MCP dialect (2026-07-28): every request stands alone, with its protocol
// version and client capabilities in _meta. Nothing about the client is kept between
// requests; what a connection keeps (StatelessCalls) is only what is in flight, so that
// notifications/cancelled can reach it, and its subscriptions/listen streams.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "gateway/core/in_flight.h"
#include "gateway/core/outbound.h"
#include "gateway/dialects/mcp_stateless/request_meta.h"
#include "gateway/dialects/mcp_stateless/request_state.h"
#include "gateway/jsonrpc/message.h"
#include "gateway/mcp/mcp_engine.h"
#include "gateway/principals/principal.h"

namespace labgate::gateway::stateless {

// How long clients may cache each kind of result, and who may share the cache.
struct CachePolicy {
  int64_t discover_ttl_ms = 300000;
  int64_t list_ttl_ms = 30000;  // tools, prompts, templates: change when a backend connects
  std::string scope = "public";
};

// What one connection (a stdio stream, or one HTTP POST) has in flight in this era.
class StatelessCalls {
 public:
  // One request in flight; cancelling it runs what its handler registered.
  class Call;
  // Cancels request `key` if it is in flight (its reply is then suppressed).
  void Cancel(const std::string& key);
  // Cancels everything: the connection is gone.
  void CancelAll();
  size_t size() const;

  void Add(const std::string& key, std::shared_ptr<Call> call);
  void Remove(const std::string& key, const Call* call);

 private:
  mutable absl::Mutex mutex_;
  std::map<std::string, std::shared_ptr<Call>> calls_ ABSL_GUARDED_BY(mutex_);
};

class StatelessDialect {
 public:
  StatelessDialect(const McpServer* server, RequestStateCodec state_codec, CachePolicy cache = {});

  // Handles one message of this era. Requests are answered through `outbound` (with
  // `framing`); notifications/cancelled cancels a call in `calls`. `in_flight` (optional)
  // counts the request until it is answered.
  void Handle(const jsonrpc::IncomingMessage& message, Framing framing,
              const std::shared_ptr<Outbound>& outbound,
              const std::shared_ptr<Principal>& principal,
              const std::shared_ptr<StatelessCalls>& calls,
              const std::shared_ptr<InFlightCounter>& in_flight = nullptr);

  // The server/discover result (without the reply decorations).
  nlohmann::json DiscoverResult() const;
  const McpEngine& engine() const { return engine_; }

 private:
  class Context;

  void Listen(const nlohmann::json& params, ReplyOnce reply, const std::string& key,
              const std::string& raw_id, Framing framing, const std::shared_ptr<Outbound>& outbound,
              const std::shared_ptr<StatelessCalls::Call>& call, const std::string& owner,
              const std::string& principal_name);

  const McpServer* server_;
  McpEngine engine_;
  RequestStateCodec state_codec_;
  CachePolicy cache_;
};

}  // namespace labgate::gateway::stateless
