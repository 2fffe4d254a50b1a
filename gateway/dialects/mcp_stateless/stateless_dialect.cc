#include "gateway/dialects/mcp_stateless/stateless_dialect.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/synchronization/mutex.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/core/cancel_signal.h"
#include "gateway/dialects/mcp_stateless/listen_gate.h"
#include "gateway/mcp/invalid_params.h"
#include "gateway/mcp/list_changed.h"
#include "gateway/mcp/resource_access.h"
#include "gateway/mcp/tool_access.h"

namespace labgate::gateway::stateless {

using nlohmann::json;
namespace code = labgate::jsonrpc_code;

namespace {

// How long an input_required exchange may take before its requestState lapses.
constexpr int64_t kStateLifetimeMs = 10 * 60 * 1000;

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Methods that the 2026 era removed.
bool IsRemovedMethod(const std::string& method) {
  return method == "ping" || method == "logging/setLevel" || method == "resources/subscribe" ||
         method == "resources/unsubscribe" || method == "initialize";
}

bool IsListMethod(const std::string& method) {
  return method == "tools/list" || method == "prompts/list" || method == "resources/templates/list";
}

// What names the target of a request that may ask for input: its tool, prompt or URI.
std::string TargetOf(const json& params) {
  for (const char* field : {"name", "uri"}) {
    std::string value = StringParam(params, field);
    if (!value.empty()) return value;
  }
  return "";
}

// A key for an input request that stays the same across retries of the same request.
std::string InputKey(const std::string& method, const json& params) {
  std::string text = absl::StrCat(method, "|", params.dump());
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
  std::string kind = method.substr(0, method.find('/'));
  return absl::StrFormat("%s-%08x", kind, static_cast<uint32_t>(hash ^ (hash >> 32)));
}

}  // namespace

class StatelessCalls::Call : public CancelSignal {};

void StatelessCalls::Add(const std::string& key, std::shared_ptr<Call> call) {
  absl::MutexLock lock(&mutex_);
  calls_[key] = std::move(call);
}

void StatelessCalls::Remove(const std::string& key, const Call* call) {
  absl::MutexLock lock(&mutex_);
  auto it = calls_.find(key);
  if (it != calls_.end() && it->second.get() == call) calls_.erase(it);
}

void StatelessCalls::Cancel(const std::string& key) {
  std::shared_ptr<Call> call;
  {
    absl::MutexLock lock(&mutex_);
    auto it = calls_.find(key);
    if (it == calls_.end()) return;
    call = std::move(it->second);
    calls_.erase(it);
  }
  call->Cancel();
}

void StatelessCalls::CancelAll() {
  std::map<std::string, std::shared_ptr<Call>> calls;
  {
    absl::MutexLock lock(&mutex_);
    calls.swap(calls_);
  }
  for (auto& [key, call] : calls) call->Cancel();
}

size_t StatelessCalls::size() const {
  absl::MutexLock lock(&mutex_);
  return calls_.size();
}

// The context of one request that may run provider code. It answers RequestClient from the
// client's inputResponses (and those carried in requestState), and remembers what it still
// has to ask; the reply then becomes input_required.
class StatelessDialect::Context final : public RequestContext {
 public:
  struct Sender {
    std::shared_ptr<Outbound> outbound;
    std::string key;
    Framing framing;
    void Notify(const std::string& method, const json& params) const {
      OutboundMessage message;
      message.payload = jsonrpc::MakeNotification(method, params);
      message.related_request = key;
      message.framing = framing;
      outbound->Send(std::move(message));
    }
  };

  Context(RequestMeta meta, std::shared_ptr<Principal> principal,
          std::shared_ptr<StatelessCalls::Call> call, Sender sender, json answers)
      : meta_(std::move(meta)),
        principal_(std::move(principal)),
        call_(std::move(call)),
        sender_(std::move(sender)),
        answers_(std::move(answers)) {}

  const std::string& owner() const override { return principal_->owner_id(); }
  const std::string& principal_name() const override { return principal_->name(); }
  const json& client_capabilities() const override { return meta_.client_capabilities; }
  bool cancelled() const override { return call_->cancelled(); }
  void OnCancel(std::function<void()> handler) override { call_->OnCancel(std::move(handler)); }

  void Progress(double progress, std::optional<double> total, const std::string& message) override {
    if (meta_.progress_token.is_null() || cancelled()) return;
    json params = {{"progressToken", meta_.progress_token}, {"progress", progress}};
    if (total) params["total"] = *total;
    if (!message.empty()) params["message"] = message;
    sender_.Notify("notifications/progress", params);
  }

  bool WouldLog(McpLogLevel level) const override {
    // Without a logLevel in _meta the client gets no log messages at all.
    return meta_.log_level && level >= *meta_.log_level && !cancelled();
  }

  void Log(McpLogLevel level, const std::string& logger, const json& data) override {
    if (!WouldLog(level)) return;
    json params = {{"level", McpLogLevelName(level)}, {"data", data}};
    if (!logger.empty()) params["logger"] = logger;
    sender_.Notify("notifications/message", params);
  }

  bool stateless() const override { return true; }

  void RequestClient(const std::string& method, const json& params,
                     std::chrono::milliseconds timeout, JsonDone done) override {
    AskClient(InputKey(method, params), method, params, timeout, std::move(done));
  }

  void AskClient(const std::string& key, const std::string& method, const json& params,
                 std::chrono::milliseconds timeout, JsonDone done) override {
    (void)timeout;
    const std::string capability = ClientCapabilityFor(method);
    if (capability.empty()) {
      return done(absl::InvalidArgumentError(absl::StrCat("cannot ask the client ", method)));
    }
    std::optional<json> answer;
    {
      absl::MutexLock lock(&mutex_);
      if (answers_.is_object() && answers_.contains(key)) {
        answer = answers_[key];
      } else if (!meta_.client_capabilities.contains(capability)) {
        missing_capabilities_[capability] = json::object();
      } else {
        json request = {{"method", method}};
        if (!params.is_null()) request["params"] = params;
        pending_[key] = std::move(request);
      }
    }
    // The handler runs on from here, and its reply locks this context: never under the lock.
    if (answer) return done(std::move(*answer));
    if (!meta_.client_capabilities.contains(capability)) {
      return done(absl::FailedPreconditionError(
          absl::StrCat("the client did not declare the '", capability, "' capability")));
    }
    done(absl::UnavailableError(kInputRequiredMessage));
  }

  std::shared_ptr<void> HoldForPrincipal(
      const std::string& key, const std::function<std::shared_ptr<void>()>& make) override {
    return principal_->Hold(key, make);
  }
  std::shared_ptr<void> KeepPrincipalBusy() override { return principal_->Busy(); }

  // The answer to send instead of the handler's, if it still needs something from the
  // client: a -32021 error or an input_required result. Empty: the handler's answer stands.
  // `outcome` says what the replacement is.
  std::string Override(const std::string& raw_id, const RequestStateCodec& codec,
                       const std::string& method, const std::string& target,
                       const json& server_info, RequestOutcome* outcome) {
    absl::MutexLock lock(&mutex_);
    if (!missing_capabilities_.empty()) {
      *outcome = RequestOutcome::Error(jsonrpc_code::kMissingClientCapability);
      std::string names;
      for (const auto& [name, value] : missing_capabilities_.items()) {
        (void)value;
        absl::StrAppend(&names, names.empty() ? "" : ", ", name);
      }
      return jsonrpc::MakeError(raw_id, jsonrpc_code::kMissingClientCapability,
                                absl::StrCat("this request needs the client capability: ", names),
                                {{"requiredCapabilities", missing_capabilities_}});
    }
    if (pending_.empty()) return "";
    *outcome = RequestOutcome::InputRequired();
    json answers = answers_.is_object() ? answers_ : json::object();
    json state = {{"v", 1},      {"p", principal_->owner_id()},       {"m", method},
                  {"t", target}, {"exp", NowMs() + kStateLifetimeMs}, {"a", std::move(answers)}};
    json result = {{"resultType", "input_required"},
                   {"inputRequests", pending_},
                   {"requestState", codec.Seal(state)},
                   {"_meta", {{kServerInfoKey, server_info}}}};
    return jsonrpc::MakeResult(raw_id, result);
  }

 private:
  RequestMeta meta_;
  std::shared_ptr<Principal> principal_;
  std::shared_ptr<StatelessCalls::Call> call_;
  Sender sender_;
  absl::Mutex mutex_;
  json answers_ ABSL_GUARDED_BY(mutex_);
  json pending_ ABSL_GUARDED_BY(mutex_) = json::object();
  json missing_capabilities_ ABSL_GUARDED_BY(mutex_) = json::object();
};

StatelessDialect::StatelessDialect(const McpServer* server, RequestStateCodec state_codec,
                                   CachePolicy cache)
    : server_(server),
      engine_(server),
      state_codec_(std::move(state_codec)),
      cache_(std::move(cache)) {}

json StatelessDialect::DiscoverResult() const {
  return {{"supportedVersions", AllSupportedVersions()},
          {"capabilities", engine_.ServerCapabilities()},
          {"serverInfo", engine_.ServerInfo()},
          {"instructions", server_->config.instructions}};
}

void StatelessDialect::Handle(const jsonrpc::IncomingMessage& message, Framing framing,
                              const std::shared_ptr<Outbound>& outbound,
                              const std::shared_ptr<Principal>& principal,
                              const std::shared_ptr<StatelessCalls>& calls,
                              const std::shared_ptr<InFlightCounter>& in_flight) {
  using Kind = jsonrpc::IncomingMessage::Kind;
  if (message.kind == Kind::kNotification) {
    if (message.method == "notifications/cancelled") {
      const json params = message.body.value("params", json::object());
      if (params.is_object() && params.contains("requestId")) {
        calls->Cancel(RequestKey(params["requestId"]));
      }
    }
    return;  // other notifications need no answer
  }
  if (message.kind != Kind::kRequest) return;

  const std::string key = RequestKey(message.body["id"]);
  const std::string& method = message.method;
  auto call = std::make_shared<StatelessCalls::Call>();
  calls->Add(key, call);
  auto token = std::make_shared<InFlightCounter::Token>(
      in_flight ? InFlightCounter::Enter(in_flight) : InFlightCounter::Token());
  auto busy = principal->Busy();

  // Set once a provider context exists; it may replace the handler's answer.
  auto context_slot = std::make_shared<std::shared_ptr<Context>>();
  const json params_for_state = message.body.value("params", json::object());
  const std::string target = TargetOf(params_for_state);
  const json server_info = engine_.ServerInfo();
  SharedTrace trace =
      RequestTrace::Start({"mcp-2026", principal->transport(), principal->name(), method,
                           IsMcpMethod(method), TracedTool(method, params_for_state)});
  ReplyOnce reply(message.raw_id, [this, outbound, key, framing, call, calls, token, busy,
                                   context_slot, raw_id = message.raw_id, method, target,
                                   server_info, trace](MessageText text) mutable {
    std::string payload = std::move(text).Join();
    busy.reset();  // before the answer goes: the client then finds its idle time counting
    calls->Remove(key, call.get());
    if (call->cancelled()) {  // the client said it no longer wants it
      trace->Override(RequestOutcome::Cancelled());
      return;
    }
    if (*context_slot) {
      RequestOutcome outcome;
      std::string replaced =
          (*context_slot)->Override(raw_id, state_codec_, method, target, server_info, &outcome);
      if (!replaced.empty()) {
        payload = std::move(replaced);
        trace->Override(outcome);
      }
    }
    OutboundMessage out;
    out.payload = std::move(payload);
    out.related_request = key;
    out.is_response = true;
    out.framing = framing;
    outbound->Send(std::move(out));
    token->Release();
  });
  reply.SetTrace(std::move(trace));

  static const json kNoParams = json::object();
  const json& params = message.body.contains("params") ? message.body["params"] : kNoParams;
  json extras = {{"resultType", "complete"}, {"_meta", {{kServerInfoKey, server_info}}}};

  RequestMeta meta;
  if (auto error = ParseRequestMeta(params, &meta)) {
    return reply.Error(error->code, error->message, error->data);
  }
  if (method == "server/discover") {
    extras["ttlMs"] = cache_.discover_ttl_ms;
    extras["cacheScope"] = cache_.scope;
    reply.SetResultExtras(std::move(extras));
    json result = DiscoverResult();
    result.erase("serverInfo");  // in _meta in this era
    return reply.Result(std::move(result));
  }
  if (IsRemovedMethod(method)) {
    return reply.Error(
        code::kMethodNotFound,
        absl::StrCat("Method not found: ", method, " (removed in ", meta.protocol_version, ")"));
  }
  if (method == "tools/list" && server_->access != nullptr && server_->access->enabled()) {
    // Filtered per principal by the access file, and changed by its reload: not to be shared
    // between callers, nor kept.
    extras["ttlMs"] = 0;
    extras["cacheScope"] = "private";
  } else if (IsListMethod(method)) {
    extras["ttlMs"] = cache_.list_ttl_ms;
    extras["cacheScope"] = cache_.scope;
  } else if (method == "resources/list" || method == "resources/read") {
    // Sessions and ports change all the time, and their contents are the lab's own.
    extras["ttlMs"] = 0;
    extras["cacheScope"] = "private";
  }
  reply.SetResultExtras(std::move(extras));
  if (method == "subscriptions/listen") {
    return Listen(params, std::move(reply), key, message.raw_id, framing, outbound, call,
                  principal->owner_id(), principal->name());
  }

  json answers = json::object();
  if (params.contains("requestState")) {
    const json& sealed = params["requestState"];
    auto state = sealed.is_string() ? state_codec_.Open(sealed.get<std::string>())
                                    : absl::InvalidArgumentError("requestState must be a string");
    if (state.ok() && (state->value("m", "") != method || state->value("t", "") != target ||
                       state->value("p", "") != principal->owner_id())) {
      state = absl::InvalidArgumentError("requestState belongs to another request");
    }
    if (state.ok() && state->value("exp", int64_t{0}) < NowMs()) {
      state = absl::InvalidArgumentError("requestState has expired; start the request again");
    }
    if (!state.ok())
      return InvalidParams(reply, "requestState", std::string(state.status().message()));
    answers = state->value("a", json::object());
  }
  if (params.contains("inputResponses")) {
    if (!params["inputResponses"].is_object()) {
      return InvalidParams(reply, "inputResponses", "inputResponses must be an object");
    }
    for (const auto& [input_key, response] : params["inputResponses"].items()) {
      answers[input_key] = response;
    }
  }

  auto make_context = [&]() -> std::shared_ptr<RequestContext> {
    auto context = std::make_shared<Context>(meta, principal, call,
                                             Context::Sender{outbound, key, framing}, answers);
    *context_slot = context;
    return context;
  };
  if (engine_.Handle(method, params, reply, make_context, EraRules{code::kInvalidParams})) return;
  reply.Error(code::kMethodNotFound, absl::StrCat("Method not found: ", method));
}

void StatelessDialect::Listen(const json& params, ReplyOnce reply, const std::string& key,
                              const std::string& raw_id, Framing framing,
                              const std::shared_ptr<Outbound>& outbound,
                              const std::shared_ptr<StatelessCalls::Call>& call,
                              const std::string& owner, const std::string& principal_name) {
  if (!params.contains("notifications") || !params["notifications"].is_object()) {
    return InvalidParams(reply, "notifications",
                         "subscriptions/listen needs params.notifications (an object)");
  }
  const json& filter = params["notifications"];
  const json subscription_id = json::parse(raw_id, nullptr, false);
  auto send = [outbound, key, framing, subscription_id](const std::string& method, json body) {
    body["_meta"] = {{kSubscriptionIdKey, subscription_id}};
    OutboundMessage message;
    message.payload = jsonrpc::MakeNotification(method, body);
    message.related_request = key;
    message.framing = framing;
    outbound->Send(std::move(message));
  };

  // Everything the subscription holds lives until the client cancels it or goes away.
  struct Subscription {
    ReplyOnce reply;
    std::shared_ptr<ListenGate> gate;
    std::shared_ptr<void> list_listener;
    std::vector<std::shared_ptr<void>> resources;
  };
  auto subscription = std::make_shared<Subscription>();
  subscription->reply = std::move(reply);
  auto gate = std::make_shared<ListenGate>(send);
  subscription->gate = gate;
  json acknowledged = json::object();
  for (const char* flag : {"toolsListChanged", "promptsListChanged", "resourcesListChanged"}) {
    if (filter.value(flag, false)) acknowledged[flag] = true;
  }
  // Everything is registered before the acknowledgement goes; what it reports meanwhile is
  // held by the gate and follows the acknowledgement.
  subscription->list_listener = server_->hub->Listen([gate, acknowledged](ListKind kind) {
    const char* flag = kind == ListKind::kTools     ? "toolsListChanged"
                       : kind == ListKind::kPrompts ? "promptsListChanged"
                                                    : "resourcesListChanged";
    if (acknowledged.value(flag, false)) gate->Deliver(ListChangedMethod(kind), json::object());
  });
  json resources = json::array();
  if (filter.contains("resourceSubscriptions") && filter["resourceSubscriptions"].is_array()) {
    for (const json& uri_json : filter["resourceSubscriptions"]) {
      if (!uri_json.is_string()) continue;
      std::string uri = uri_json.get<std::string>();
      ResourceProvider* provider = engine_.FindResourceProvider(uri);
      if (provider == nullptr || !MayReadResource(*server_, principal_name, uri).ok()) continue;
      std::function<void()> ready = gate->AwaitOne();
      auto handle = provider->SubscribeResourceWhenReady(
          uri,
          [gate, uri]() {
            gate->Deliver("notifications/resources/updated", {{"uri", uri}});
          },
          ready);
      if (!handle) {
        ready();  // a refused URI is left out of the acknowledgement, not waited for
        continue;
      }
      subscription->resources.push_back(std::move(handle));
      resources.push_back(uri);
    }
  }
  if (!resources.empty()) acknowledged["resourceSubscriptions"] = resources;
  // Tasks (the tasks extension): each change of the listener's own tasks named here, with the
  // task's whole state. Another principal's id is acknowledged like any, and never heard of.
  if (server_->tasks != nullptr && filter.contains("taskIds") && filter["taskIds"].is_array()) {
    std::vector<std::string> ids;
    for (const json& id : filter["taskIds"]) {
      if (id.is_string()) ids.push_back(id.get<std::string>());
    }
    if (!ids.empty()) {
      subscription->resources.push_back(server_->tasks->Listen(
          owner, ids, [gate](const json& task) { gate->Deliver("notifications/tasks", task); }));
      acknowledged["taskIds"] = ids;
    }
  }
  gate->Arm(std::move(acknowledged));
  // The subscription ends with its request: a cancel or a closed connection. Its reply is
  // then suppressed, as for any cancelled request.
  call->OnCancel([subscription]() {
    subscription->gate->Close();
    subscription->list_listener.reset();
    subscription->resources.clear();
    subscription->reply = ReplyOnce();
  });
}

}  // namespace labgate::gateway::stateless
