#include "gateway/mcp/mcp_session.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <mutex>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/mcp/protocol_version.h"

namespace labgate::gateway {

using nlohmann::json;
namespace code = labgate::jsonrpc_code;

namespace {

std::string EncodeCursor(const std::string& kind, size_t offset) {
  return absl::Base64Escape(absl::StrCat(kind, ":", offset));
}

bool DecodeCursor(const json& cursor, const std::string& kind, size_t* offset) {
  if (!cursor.is_string()) return false;
  std::string decoded;
  if (!absl::Base64Unescape(cursor.get<std::string>(), &decoded)) return false;
  std::string prefix = kind + ":";
  if (!absl::StartsWith(decoded, prefix)) return false;
  return absl::SimpleAtoi(decoded.substr(prefix.size()), offset);
}

// One page of `items` under `field`, with nextCursor when more remain.
absl::StatusOr<json> Page(std::vector<json> items, const json& params, const std::string& field,
                          size_t page_size) {
  size_t offset = 0;
  if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
    if (!DecodeCursor(params["cursor"], field, &offset) || offset > items.size()) {
      return absl::InvalidArgumentError("invalid cursor");
    }
  }
  size_t end = std::min(items.size(), offset + std::max<size_t>(1, page_size));
  json list = json::array();
  for (size_t i = offset; i < end; ++i) list.push_back(std::move(items[i]));
  json result = {{field, std::move(list)}};
  if (end < items.size()) result["nextCursor"] = EncodeCursor(field, end);
  return result;
}

const char* ListChangedMethod(ListKind kind) {
  switch (kind) {
    case ListKind::kTools:
      return "notifications/tools/list_changed";
    case ListKind::kResources:
      return "notifications/resources/list_changed";
    case ListKind::kPrompts:
      return "notifications/prompts/list_changed";
  }
  return "";
}

std::string StringParam(const json& params, const char* name) {
  if (!params.is_object() || !params.contains(name) || !params[name].is_string()) return "";
  return params[name].get<std::string>();
}

}  // namespace

// The RequestContext handed to providers for one client request.
class McpSession::Context final : public RequestContext {
 public:
  Context(std::weak_ptr<McpSession> session, boost::asio::any_io_executor strand, std::string key,
          json progress_token, std::string owner, json capabilities)
      : session_(std::move(session)),
        strand_(std::move(strand)),
        key_(std::move(key)),
        progress_token_(std::move(progress_token)),
        owner_(std::move(owner)),
        capabilities_(std::move(capabilities)) {}

  const std::string& owner() const override { return owner_; }
  const json& client_capabilities() const override { return capabilities_; }
  bool cancelled() const override { return cancelled_.load(); }

  void OnCancel(std::function<void()> handler) override {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cancelled_.load()) {
      lock.unlock();
      handler();
      return;
    }
    on_cancel_ = std::move(handler);
  }

  void Cancel() {
    std::function<void()> handler;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (cancelled_.exchange(true)) return;
      handler = std::move(on_cancel_);
    }
    if (handler) handler();
  }

  void Progress(double progress, std::optional<double> total, const std::string& message) override {
    if (progress_token_.is_null()) return;
    json params = {{"progressToken", progress_token_}, {"progress", progress}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = message;
    OnStrand([key = key_, params = std::move(params)](McpSession& session) {
      if (session.IsInFlight(key)) session.SendNotification("notifications/progress", params, key);
    });
  }

  void Log(McpLogLevel level, const std::string& logger, const json& data) override {
    OnStrand([key = key_, level, logger, data](McpSession& session) {
      session.SendLog(level, logger, data, session.IsInFlight(key) ? key : "");
    });
  }

  void CloseStream() override {
    OnStrand([key = key_](McpSession& session) {
      if (!session.IsInFlight(key)) return;
      Outbound close;
      close.related_request = key;
      close.close_stream = true;
      session.send_(std::move(close));
    });
  }

  void RequestClient(const std::string& method, const json& params,
                     std::chrono::milliseconds timeout, JsonDone done) override {
    auto session = session_.lock();
    if (!session) return done(absl::CancelledError("the connection is closed"));
    boost::asio::post(
        strand_, [session, key = key_, method, params, timeout, done = std::move(done)]() mutable {
          session->SendClientRequest(method, params, key, timeout, std::move(done));
        });
  }

  void HoldForConnection(const std::string& key,
                         const std::function<std::shared_ptr<void>()>& make) override {
    auto session = session_.lock();
    if (!session || session->closed_) return;
    if (session->held_.count(key) == 0) session->held_[key] = make();
  }

 private:
  void OnStrand(std::function<void(McpSession&)> fn) {
    auto session = session_.lock();
    if (!session) return;
    boost::asio::post(strand_, [session, fn = std::move(fn)]() {
      if (!session->closed_) fn(*session);
    });
  }

  std::weak_ptr<McpSession> session_;
  boost::asio::any_io_executor strand_;
  std::string key_;
  json progress_token_;
  std::string owner_;
  json capabilities_;
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::function<void()> on_cancel_;
};

McpSession::McpSession(const McpServer* server, boost::asio::any_io_executor strand,
                       OutboundFn send, std::string owner_id)
    : server_(server),
      strand_(std::move(strand)),
      send_(std::move(send)),
      owner_id_(std::move(owner_id)) {}

McpSession::~McpSession() = default;

void McpSession::Register() { server_->hub->Add(shared_from_this()); }

void McpSession::Reply::Result(const json& result) const {
  Finish(jsonrpc::MakeResult(raw_id_, result));
}

void McpSession::Reply::Error(int error_code, const std::string& message, const json& data) const {
  Finish(jsonrpc::MakeError(raw_id_, error_code, message, data));
}

void McpSession::Reply::Fail(const absl::Status& status) const {
  Error(MappingFor(status.code()).jsonrpc_code, std::string(status.message()));
}

void McpSession::Reply::SendResultText(const std::string& result_text) const {
  Finish(absl::StrCat("{\"jsonrpc\":\"2.0\",\"id\":", raw_id_, ",\"result\":", result_text, "}"));
}

std::string McpSession::Reply::Serialize(const absl::StatusOr<json>& outcome) const {
  if (outcome.ok()) return jsonrpc::MakeResult(raw_id_, *outcome);
  return jsonrpc::MakeError(raw_id_, MappingFor(outcome.status().code()).jsonrpc_code,
                            std::string(outcome.status().message()));
}

void McpSession::Reply::Finish(std::string payload) const {
  auto session = session_.lock();
  if (!session) return;
  auto it = session->in_flight_.find(key_);
  if (it == session->in_flight_.end()) return;  // already answered
  bool cancelled = it->second.cancelled;
  session->in_flight_.erase(it);
  session->in_flight_count_.store(session->in_flight_.size(), std::memory_order_relaxed);
  if (cancelled || session->closed_) return;
  session->send_(Outbound{std::move(payload), key_, /*is_response=*/true});
}

// The reply is serialized on the completing thread; only the send runs on the strand.
JsonDone McpSession::ReplyOnStrand(const Reply& reply) {
  return [self = shared_from_this(), reply](absl::StatusOr<json> outcome) {
    boost::asio::post(self->strand_, [reply, payload = reply.Serialize(outcome)]() mutable {
      reply.Send(std::move(payload));
    });
  };
}

void McpSession::Handle(jsonrpc::IncomingMessage message) {
  if (closed_) return;
  using Kind = jsonrpc::IncomingMessage::Kind;
  switch (message.kind) {
    case Kind::kInvalid:
      send_(Outbound{jsonrpc::MakeError(message.raw_id, message.error_code, message.error_message),
                     "", true});
      return;
    case Kind::kRequest:
      return HandleRequest(message);
    case Kind::kNotification:
      return HandleNotification(message);
    case Kind::kResponse:
      return HandleResponse(message);
    case Kind::kLegacy:
      // Connections that speak the legacy envelope are routed before they get here.
      send_(
          Outbound{jsonrpc::MakeError("null", code::kInvalidRequest,
                                      "legacy envelope messages are not served on this transport"),
                   "", true});
      return;
  }
}

void McpSession::HandleRequest(const jsonrpc::IncomingMessage& message) {
  std::string key = RequestKey(message.body["id"]);
  if (in_flight_.count(key) != 0) {
    send_(Outbound{
        jsonrpc::MakeError(message.raw_id, code::kInvalidRequest,
                           absl::StrCat("request id ", message.raw_id, " is already in use")),
        key, true});
    return;
  }
  const json* params_ptr = nullptr;
  if (auto it = message.body.find("params"); it != message.body.end()) params_ptr = &*it;
  static const json kNoParams = json::object();
  const json& params = params_ptr != nullptr ? *params_ptr : kNoParams;
  auto& entry = in_flight_.emplace(key, InFlight{}).first->second;
  in_flight_count_.store(in_flight_.size(), std::memory_order_relaxed);
  Reply reply(weak_from_this(), message.raw_id, key);
  // Only handlers that run provider code get a context (it copies per-request state).
  auto context = [&]() {
    json progress_token;
    if (params.is_object() && params.contains("_meta") && params["_meta"].is_object()) {
      progress_token = params["_meta"].value("progressToken", json());
    }
    entry.context = std::make_shared<Context>(weak_from_this(), strand_, key, progress_token,
                                              owner_id_, client_capabilities_);
    return entry.context;
  };

  const std::string& method = message.method;
  if (method == "ping") return reply.Result(json::object());
  if (method == "initialize") return Initialize(params, reply);
  if (!initialized_) {
    return reply.Error(code::kInvalidRequest,
                       absl::StrCat("'", method, "' before initialize: send initialize first"));
  }
  if (method == "tools/list") return ListTools(params, reply);
  if (method == "tools/call") return CallTool(params, reply, context());
  if (method == "resources/list") return ListResources(params, reply);
  if (method == "resources/templates/list") return ListResourceTemplates(params, reply);
  if (method == "resources/read") return ReadResource(params, reply, context());
  if (method == "resources/subscribe") return Subscribe(params, reply);
  if (method == "resources/unsubscribe") return Unsubscribe(params, reply);
  if (method == "prompts/list") return ListPrompts(params, reply);
  if (method == "prompts/get") return GetPrompt(params, reply, context());
  if (method == "logging/setLevel") return SetLogLevel(params, reply);
  if (method == "completion/complete") return Complete(params, reply);
  reply.Error(code::kMethodNotFound, absl::StrCat("Method not found: ", method));
}

void McpSession::HandleNotification(const jsonrpc::IncomingMessage& message) {
  if (message.method == "notifications/cancelled") {
    auto params = message.body.value("params", json::object());
    if (!params.is_object() || !params.contains("requestId")) return;
    auto it = in_flight_.find(RequestKey(params["requestId"]));
    if (it == in_flight_.end()) return;  // finished already, or never existed
    it->second.cancelled = true;
    LG_LOG(kDebug) << "request " << it->first << " cancelled by the client";
    if (it->second.context) it->second.context->Cancel();
    return;
  }
  // notifications/initialized, roots/list_changed, progress: nothing to answer.
}

void McpSession::HandleResponse(const jsonrpc::IncomingMessage& message) {
  auto it = client_requests_.find(RequestKey(message.body["id"]));
  if (it == client_requests_.end()) {
    LG_LOG(kDebug) << "ignoring a response to no request of ours: id " << message.raw_id;
    return;
  }
  ClientRequest request = std::move(it->second);
  client_requests_.erase(it);
  if (request.timer) request.timer->cancel();
  if (message.body.contains("error")) {
    const json& error = message.body["error"];
    std::string text = error.is_object() ? error.value("message", std::string("error")) : "error";
    int error_code = error.is_object() ? error.value("code", 0) : 0;
    return request.done(
        absl::AbortedError(absl::StrCat("the client answered error ", error_code, ": ", text)));
  }
  request.done(message.body.value("result", json::object()));
}

void McpSession::Initialize(const json& params, const Reply& reply) {
  if (!params.is_object() || !params.contains("protocolVersion") ||
      !params["protocolVersion"].is_string()) {
    return reply.Error(code::kInvalidParams, "initialize needs params.protocolVersion (a string)");
  }
  protocol_version_ = NegotiateProtocolVersion(params["protocolVersion"].get<std::string>());
  if (params.contains("capabilities") && params["capabilities"].is_object()) {
    client_capabilities_ = params["capabilities"];
  }
  initialized_ = true;
  json capabilities = {
      {"tools", {{"listChanged", true}}},
      {"resources", {{"subscribe", true}, {"listChanged", true}}},
      {"prompts", {{"listChanged", true}}},
      {"logging", json::object()},
      {"completions", json::object()},
  };
  reply.Result({
      {"protocolVersion", protocol_version_},
      {"capabilities", std::move(capabilities)},
      {"serverInfo",
       {{"name", "labgate"},
        {"title", "labgate lab gateway"},
        {"version", server_->config.version}}},
      {"instructions", server_->config.instructions},
  });
}

void McpSession::ListTools(const json& params, const Reply& reply) {
  // The list is the same for every client until it changes: serve the cached text.
  std::string cursor;
  if (params.is_object() && params.contains("cursor") && params["cursor"].is_string()) {
    cursor = params["cursor"].get<std::string>();
  }
  const uint64_t generation = server_->tools_generation->load();
  if (std::string cached = server_->tools_cache->Find(cursor, generation); !cached.empty()) {
    return reply.SendResultText(cached);
  }
  std::vector<json> tools;
  for (ToolProvider* provider : server_->tools) {
    for (json& tool : provider->ListTools()) tools.push_back(std::move(tool));
  }
  auto page = Page(std::move(tools), params, "tools", server_->config.page_size);
  if (!page.ok()) return reply.Fail(page.status());
  std::string text = page->dump(-1, ' ', false, json::error_handler_t::replace);
  server_->tools_cache->Store(cursor, generation, text);
  reply.SendResultText(text);
}

void McpSession::CallTool(const json& params, const Reply& reply,
                          std::shared_ptr<Context> context) {
  std::string name = StringParam(params, "name");
  if (name.empty())
    return reply.Error(code::kInvalidParams, "tools/call needs params.name (a string)");
  json arguments = json::object();
  if (params.contains("arguments") && !params["arguments"].is_null()) {
    arguments = params["arguments"];
    if (!arguments.is_object()) {
      return reply.Error(code::kInvalidParams, "tools/call params.arguments must be an object");
    }
  }
  for (ToolProvider* provider : server_->tools) {
    if (provider->HasTool(name)) {
      return provider->CallTool(name, arguments, std::move(context), ReplyOnStrand(reply));
    }
  }
  reply.Error(code::kInvalidParams, absl::StrCat("Unknown tool: ", name));
}

void McpSession::ListResources(const json& params, const Reply& reply) {
  // Providers answer asynchronously; the last one to answer builds the page.
  struct Gather {
    std::mutex mutex;
    std::vector<std::vector<json>> parts;
    size_t remaining;
  };
  auto gather = std::make_shared<Gather>();
  gather->parts.resize(server_->resources.size());
  gather->remaining = server_->resources.size();
  auto finish = [self = shared_from_this(), reply, params, gather]() {
    std::vector<json> all;
    for (auto& part : gather->parts) {
      for (json& item : part) all.push_back(std::move(item));
    }
    boost::asio::post(self->strand_, [self, reply, params, all = std::move(all)]() mutable {
      auto page = Page(std::move(all), params, "resources", self->server_->config.page_size);
      if (!page.ok()) return reply.Fail(page.status());
      reply.Result(*page);
    });
  };
  if (gather->remaining == 0) return finish();
  for (size_t i = 0; i < server_->resources.size(); ++i) {
    server_->resources[i]->ListResources([gather, i, finish](std::vector<json> items) {
      bool last;
      {
        std::lock_guard<std::mutex> lock(gather->mutex);
        gather->parts[i] = std::move(items);
        last = --gather->remaining == 0;
      }
      if (last) finish();
    });
  }
}

void McpSession::ListResourceTemplates(const json& params, const Reply& reply) {
  std::vector<json> templates;
  for (ResourceProvider* provider : server_->resources) {
    for (json& item : provider->ListResourceTemplates()) templates.push_back(std::move(item));
  }
  auto page = Page(std::move(templates), params, "resourceTemplates", server_->config.page_size);
  if (!page.ok()) return reply.Fail(page.status());
  reply.Result(*page);
}

ResourceProvider* McpSession::FindResourceProvider(const std::string& uri) const {
  for (ResourceProvider* provider : server_->resources) {
    if (provider->HandlesUri(uri)) return provider;
  }
  return nullptr;
}

void McpSession::ReadResource(const json& params, const Reply& reply,
                              std::shared_ptr<Context> context) {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) return reply.Error(code::kInvalidParams, "resources/read needs params.uri");
  ResourceProvider* provider = FindResourceProvider(uri);
  if (provider == nullptr) {
    return reply.Error(code::kResourceNotFound, absl::StrCat("Resource not found: ", uri),
                       {{"uri", uri}});
  }
  provider->ReadResource(uri, std::move(context), ReplyOnStrand(reply));
}

void McpSession::Subscribe(const json& params, const Reply& reply) {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) return reply.Error(code::kInvalidParams, "resources/subscribe needs params.uri");
  ResourceProvider* provider = FindResourceProvider(uri);
  if (provider == nullptr) {
    return reply.Error(code::kResourceNotFound, absl::StrCat("Resource not found: ", uri),
                       {{"uri", uri}});
  }
  if (subscriptions_.count(uri) == 0) {
    std::weak_ptr<McpSession> weak = weak_from_this();
    auto strand = strand_;
    auto handle = provider->SubscribeResource(uri, [weak, strand, uri]() {
      auto session = weak.lock();
      if (!session) return;
      boost::asio::post(strand, [session, uri]() {
        if (session->closed_ || session->subscriptions_.count(uri) == 0) return;
        session->SendNotification("notifications/resources/updated", {{"uri", uri}});
      });
    });
    if (!handle) {
      return reply.Error(code::kInvalidParams,
                         absl::StrCat("Resource cannot be subscribed to: ", uri));
    }
    subscriptions_[uri] = std::move(handle);
  }
  reply.Result(json::object());
}

void McpSession::Unsubscribe(const json& params, const Reply& reply) {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) {
    return reply.Error(code::kInvalidParams, "resources/unsubscribe needs params.uri");
  }
  subscriptions_.erase(uri);
  reply.Result(json::object());
}

void McpSession::ListPrompts(const json& params, const Reply& reply) {
  std::vector<json> prompts;
  for (PromptProvider* provider : server_->prompts) {
    for (json& prompt : provider->ListPrompts()) prompts.push_back(std::move(prompt));
  }
  auto page = Page(std::move(prompts), params, "prompts", server_->config.page_size);
  if (!page.ok()) return reply.Fail(page.status());
  reply.Result(*page);
}

void McpSession::GetPrompt(const json& params, const Reply& reply,
                           std::shared_ptr<Context> context) {
  std::string name = StringParam(params, "name");
  if (name.empty()) return reply.Error(code::kInvalidParams, "prompts/get needs params.name");
  json arguments = params.value("arguments", json::object());
  if (!arguments.is_object()) {
    return reply.Error(code::kInvalidParams, "prompts/get params.arguments must be an object");
  }
  for (PromptProvider* provider : server_->prompts) {
    if (provider->HasPrompt(name)) {
      return provider->GetPrompt(name, arguments, std::move(context), ReplyOnStrand(reply));
    }
  }
  reply.Error(code::kInvalidParams, absl::StrCat("Unknown prompt: ", name));
}

void McpSession::SetLogLevel(const json& params, const Reply& reply) {
  McpLogLevel level;
  if (!ParseMcpLogLevel(StringParam(params, "level"), &level)) {
    return reply.Error(code::kInvalidParams,
                       "logging/setLevel needs params.level: one of debug, info, notice, warning, "
                       "error, critical, alert, emergency");
  }
  log_level_ = level;
  reply.Result(json::object());
}

void McpSession::Complete(const json& params, const Reply& reply) {
  const json ref = params.is_object() ? params.value("ref", json()) : json();
  const json argument = params.is_object() ? params.value("argument", json()) : json();
  if (!ref.is_object() || !argument.is_object() || !argument.contains("name") ||
      !argument["name"].is_string()) {
    return reply.Error(code::kInvalidParams,
                       "completion/complete needs params.ref and params.argument.name");
  }
  std::string argument_name = argument["name"].get<std::string>();
  std::string value = argument.value("value", std::string());
  json context_arguments = json::object();
  if (params.contains("context") && params["context"].is_object()) {
    context_arguments = params["context"].value("arguments", json::object());
  }
  auto answer = [self = shared_from_this(), reply](std::vector<std::string> values) {
    boost::asio::post(self->strand_, [reply, values = std::move(values)]() {
      json shown = json::array();
      for (size_t i = 0; i < values.size() && i < 100; ++i) shown.push_back(values[i]);
      reply.Result({{"completion",
                     {{"values", std::move(shown)},
                      {"total", values.size()},
                      {"hasMore", values.size() > 100}}}});
    });
  };
  std::string type = ref.value("type", std::string());
  if (type == "ref/prompt") {
    std::string name = ref.value("name", std::string());
    for (PromptProvider* provider : server_->prompts) {
      if (provider->HasPrompt(name)) {
        return provider->CompletePromptArgument(name, argument_name, value, context_arguments,
                                                answer);
      }
    }
    return reply.Error(code::kInvalidParams, absl::StrCat("Unknown prompt: ", name));
  }
  if (type == "ref/resource") {
    std::string uri = ref.value("uri", std::string());
    for (ResourceProvider* provider : server_->resources) {
      for (const json& item : provider->ListResourceTemplates()) {
        if (item.value("uriTemplate", std::string()) == uri) {
          return provider->CompleteResourceArgument(uri, argument_name, value, context_arguments,
                                                    answer);
        }
      }
    }
    if (FindResourceProvider(uri) != nullptr) return answer({});
    return reply.Error(code::kInvalidParams, absl::StrCat("Unknown resource template: ", uri));
  }
  reply.Error(code::kInvalidParams, "params.ref.type must be ref/prompt or ref/resource");
}

void McpSession::SendNotification(const std::string& method, const json& params,
                                  const std::string& related_request) {
  if (closed_) return;
  send_(Outbound{jsonrpc::MakeNotification(method, params), related_request, false});
}

void McpSession::SendLog(McpLogLevel level, const std::string& logger, const json& data,
                         const std::string& related_request) {
  if (level < log_level_) return;
  json params = {{"level", McpLogLevelName(level)}, {"data", data}};
  if (!logger.empty()) params["logger"] = logger;
  SendNotification("notifications/message", params, related_request);
}

void McpSession::SendClientRequest(const std::string& method, const json& params,
                                   const std::string& related_request,
                                   std::chrono::milliseconds timeout, JsonDone done) {
  if (closed_) return done(absl::CancelledError("the connection is closed"));
  static const std::map<std::string, std::string> kCapabilityFor = {
      {"sampling/createMessage", "sampling"},
      {"elicitation/create", "elicitation"},
      {"roots/list", "roots"}};
  if (auto it = kCapabilityFor.find(method);
      it != kCapabilityFor.end() && !client_capabilities_.contains(it->second)) {
    return done(absl::FailedPreconditionError(
        absl::StrCat("the client did not declare the '", it->second, "' capability")));
  }
  std::string raw_id = absl::StrCat("\"labgate-", next_client_request_++, "\"");
  std::string key = RequestKey(json::parse(raw_id));
  ClientRequest request;
  request.done = std::move(done);
  request.timer = std::make_unique<boost::asio::steady_timer>(strand_, timeout);
  request.timer->async_wait([weak = weak_from_this(), key, method](boost::system::error_code ec) {
    if (ec) return;
    auto session = weak.lock();
    if (!session) return;
    auto it = session->client_requests_.find(key);
    if (it == session->client_requests_.end()) return;
    JsonDone expired = std::move(it->second.done);
    session->client_requests_.erase(it);
    expired(absl::DeadlineExceededError(absl::StrCat("the client did not answer ", method)));
  });
  client_requests_.emplace(key, std::move(request));
  send_(Outbound{jsonrpc::MakeRequest(raw_id, method, params), related_request, false});
}

void McpSession::NotifyListChanged(ListKind kind) {
  if (!initialized_ || closed_) return;
  SendNotification(ListChangedMethod(kind), json::object());
}

void McpSession::Close() {
  if (closed_) return;
  closed_ = true;
  for (auto& [key, entry] : in_flight_) {
    (void)key;
    entry.cancelled = true;
    if (entry.context) entry.context->Cancel();
  }
  for (auto& [key, request] : client_requests_) {
    (void)key;
    if (request.timer) request.timer->cancel();
    request.done(absl::CancelledError("the connection closed"));
  }
  client_requests_.clear();
  subscriptions_.clear();
  held_.clear();
}

}  // namespace labgate::gateway
