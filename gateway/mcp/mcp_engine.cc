#include "gateway/mcp/mcp_engine.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/status_map.h"
#include "gateway/core/gateway_metrics.h"
#include "gateway/mcp/invalid_params.h"
#include "gateway/mcp/resource_access.h"

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

// One page of `items` under `field`, with nextCursor when more remain; false on a bad cursor.
bool Page(std::vector<json> items, const json& params, const std::string& field, size_t page_size,
          json* page) {
  size_t offset = 0;
  if (params.is_object() && params.contains("cursor") && !params["cursor"].is_null()) {
    if (!DecodeCursor(params["cursor"], field, &offset) || offset > items.size()) return false;
  }
  size_t end = std::min(items.size(), offset + std::max<size_t>(1, page_size));
  json list = json::array();
  for (size_t i = offset; i < end; ++i) list.push_back(std::move(items[i]));
  *page = {{field, std::move(list)}};
  if (end < items.size()) (*page)["nextCursor"] = EncodeCursor(field, end);
  return true;
}

void AnswerPage(std::vector<json> items, const json& params, const std::string& field,
                size_t page_size, ReplyOnce reply) {
  json page;
  if (!Page(std::move(items), params, field, page_size, &page)) {
    return InvalidParams(reply, "cursor", "invalid cursor");
  }
  reply.Result(std::move(page));
}

// Only tools a provider has are counted, so the tool label stays within the catalog.
// A serialized result (StructuredResult) is always a success.
void CountToolCall(const std::string& tool, const absl::StatusOr<ToolResult>& outcome,
                   std::chrono::steady_clock::time_point started) {
  std::string result = "ok";
  if (!outcome.ok()) {
    const std::string_view code = StatusCodeName(outcome.status().code());
    result = absl::AsciiStrToLower(absl::string_view(code.data(), code.size()));
  } else if (!outcome->serialized() && outcome->json().is_object() &&
             outcome->json().value("isError", false)) {
    result = "tool_error";
  }
  GatewayMetrics& families = GatewayMetrics::Get();
  families.tool_calls.With({tool, result}).Increment();
  families.tool_call_seconds.With({tool}).Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
}

// -32021: the request needs the tasks extension, which its client did not declare.
void MissingTasksCapability(ReplyOnce& reply, const std::string& why) {
  reply.Error(
      code::kMissingClientCapability,
      absl::StrCat(why, ": declare the ", kTasksExtension, " extension in the client capabilities"),
      {{"requiredCapabilities", {{"extensions", {{kTasksExtension, json::object()}}}}}});
}

}  // namespace

std::string StringParam(const json& params, const char* name) {
  if (!params.is_object() || !params.contains(name) || !params[name].is_string()) return "";
  return params[name].get<std::string>();
}

bool IsMcpMethod(std::string_view method) {
  static const std::set<std::string_view> kMethods = {"initialize",
                                                      "ping",
                                                      "tools/list",
                                                      "tools/call",
                                                      "resources/list",
                                                      "resources/read",
                                                      "resources/templates/list",
                                                      "resources/subscribe",
                                                      "resources/unsubscribe",
                                                      "prompts/list",
                                                      "prompts/get",
                                                      "completion/complete",
                                                      "logging/setLevel",
                                                      "server/discover",
                                                      "subscriptions/listen",
                                                      "tasks/get",
                                                      "tasks/update",
                                                      "tasks/cancel"};
  return kMethods.contains(method);
}

std::string TracedTool(const std::string& method, const json& params) {
  return method == "tools/call" ? StringParam(params, "name") : std::string();
}

json McpEngine::ServerCapabilities() const {
  json capabilities = {
      {"tools", {{"listChanged", true}}},
      {"resources", {{"subscribe", true}, {"listChanged", true}}},
      {"prompts", {{"listChanged", true}}},
      {"logging", json::object()},
      {"completions", json::object()},
  };
  if (server_->tasks != nullptr) {
    capabilities["extensions"] = {{kTasksExtension, json::object()}};
  }
  return capabilities;
}

json McpEngine::ServerInfo() const {
  return {
      {"name", "labgate"}, {"title", "labgate lab gateway"}, {"version", server_->config.version}};
}

bool McpEngine::Handle(const std::string& method, const json& params, ReplyOnce& reply,
                       const std::function<std::shared_ptr<RequestContext>()>& make_context,
                       const EraRules& rules) const {
  if (method == "tools/list") {
    if (server_->access != nullptr && server_->access->enabled()) {
      return ListToolsFor(params, std::move(reply), make_context()->principal_name()), true;
    }
    return ListTools(params, std::move(reply)), true;
  }
  if (method == "tools/call") return CallTool(params, std::move(reply), make_context()), true;
  if (method == "resources/list") {
    const bool filtered = server_->access != nullptr && server_->access->enabled();
    return ListResources(params, std::move(reply),
                         filtered ? std::optional<std::string>(make_context()->principal_name())
                                  : std::nullopt),
           true;
  }
  if (method == "resources/templates/list") {
    return ListResourceTemplates(params, std::move(reply)), true;
  }
  if (method == "resources/read") {
    return ReadResource(params, std::move(reply), make_context(), rules), true;
  }
  if (method == "prompts/list") return ListPrompts(params, std::move(reply)), true;
  if (method == "prompts/get") return GetPrompt(params, std::move(reply), make_context()), true;
  if (method == "completion/complete") return Complete(params, std::move(reply)), true;
  if (server_->tasks != nullptr &&
      (method == "tasks/get" || method == "tasks/update" || method == "tasks/cancel")) {
    return TaskMethod(method, params, std::move(reply), make_context()), true;
  }
  return false;
}

void McpEngine::ListTools(const json& params, ReplyOnce reply) const {
  // The list is the same for every client until it changes: serve the cached text.
  std::string cursor;
  if (params.is_object() && params.contains("cursor") && params["cursor"].is_string()) {
    cursor = params["cursor"].get<std::string>();
  }
  const ToolListCache::Version generation{server_->tools_generation->load(), 0};
  if (auto cached = server_->tools_cache->Find(cursor, generation)) {
    return reply.ResultText(std::move(cached));
  }
  std::vector<json> tools;
  for (ToolProvider* provider : server_->tools) {
    for (json& tool : provider->ListTools()) tools.push_back(std::move(tool));
  }
  // The order is deterministic (providers in a fixed order, each in its own), which lets
  // clients cache the list.
  json page;
  if (!Page(std::move(tools), params, "tools", server_->config.page_size, &page)) {
    return InvalidParams(reply, "cursor", "invalid cursor");
  }
  auto text = std::make_shared<const std::string>(
      page.dump(-1, ' ', false, json::error_handler_t::replace));
  server_->tools_cache->Store(cursor, generation, text);
  reply.ResultText(std::move(text));
}

void McpEngine::ListToolsFor(const json& params, ReplyOnce reply,
                             const std::string& principal) const {
  // Each principal sees its own list, cached under its name until the tools or the access
  // file change.
  std::string key = principal;
  key.push_back('\0');
  if (params.is_object() && params.contains("cursor") && params["cursor"].is_string()) {
    key += params["cursor"].get<std::string>();
  }
  const ToolListCache::Version version{server_->tools_generation->load(),
                                       server_->access->control().generation()};
  if (auto cached = server_->principal_tools_cache->Find(key, version)) {
    return reply.ResultText(std::move(cached));
  }
  std::vector<json> tools;
  for (ToolProvider* provider : server_->tools) {
    for (json& tool : provider->ListTools()) tools.push_back(std::move(tool));
  }
  json page;
  if (!Page(server_->access->Visible(std::move(tools), principal), params, "tools",
            server_->config.page_size, &page)) {
    return InvalidParams(reply, "cursor", "invalid cursor");
  }
  auto text = std::make_shared<const std::string>(
      page.dump(-1, ' ', false, json::error_handler_t::replace));
  server_->principal_tools_cache->Store(key, version, text);
  reply.ResultText(std::move(text));
}

void McpEngine::CallTool(const json& params, ReplyOnce reply,
                         std::shared_ptr<RequestContext> context) const {
  std::string name = StringParam(params, "name");
  if (name.empty()) return InvalidParams(reply, "name", "tools/call needs params.name (a string)");
  static const json kNoArguments = json::object();
  const json* arguments = &kNoArguments;
  if (auto it = params.find("arguments"); it != params.end() && !it->is_null()) {
    if (!it->is_object()) {
      return InvalidParams(reply, "arguments", "tools/call params.arguments must be an object");
    }
    arguments = &*it;
  }
  for (ToolProvider* provider : server_->tools) {
    if (provider->HasTool(name)) {
      if (server_->access != nullptr) {
        if (absl::Status allowed =
                server_->access->MayCall(*server_, context->principal_name(), name);
            !allowed.ok()) {
          return reply.Fail(allowed);
        }
      }
      const TaskSupport support = provider->TaskSupportOf(name);
      if (server_->tasks != nullptr && support != TaskSupport::kForbidden) {
        const bool declared = DeclaresTasks(context->client_capabilities());
        if (support == TaskSupport::kRequired && !declared) {
          return MissingTasksCapability(reply,
                                        absl::StrCat("the tool ", name, " runs only as a task"));
        }
        if (declared &&
            (support == TaskSupport::kRequired || provider->RunsLong(name, *arguments))) {
          return CallAsTask(provider, name, *arguments, std::move(reply), context);
        }
      }
      auto shared = Share(std::move(reply));
      const auto started = std::chrono::steady_clock::now();
      return provider->CallTool(name, *arguments, std::move(context),
                                [shared, name, started](absl::StatusOr<ToolResult> outcome) {
                                  if (!*shared) return;
                                  CountToolCall(name, outcome, started);
                                  if (!outcome.ok()) return shared->Fail(outcome.status());
                                  if (outcome->serialized()) {
                                    return shared->ResultText(outcome->text());
                                  }
                                  shared->Result(std::move(outcome->json()));
                                });
    }
  }
  InvalidParams(reply, "name", absl::StrCat("Unknown tool: ", name));
}

void McpEngine::ListResources(const json& params, ReplyOnce reply,
                              const std::optional<std::string>& principal) const {
  // Providers answer asynchronously; the last one to answer builds the page.
  struct Gather {
    explicit Gather(size_t providers) : parts(providers), remaining(providers) {}
    absl::Mutex mutex;
    std::vector<std::vector<json>> parts ABSL_GUARDED_BY(mutex);
    size_t remaining ABSL_GUARDED_BY(mutex);
  };
  const size_t providers = server_->resources.size();
  auto gather = std::make_shared<Gather>(providers);
  auto shared = Share(std::move(reply));
  auto finish = [this, shared, params, principal,
                 page_size = server_->config.page_size](std::vector<std::vector<json>> parts) {
    std::vector<json> all;
    for (auto& part : parts) {
      for (json& item : part) {
        if (principal.has_value() &&
            !MayReadResource(*server_, *principal, item.value("uri", "")).ok()) {
          continue;
        }
        all.push_back(std::move(item));
      }
    }
    AnswerPage(std::move(all), params, "resources", page_size, std::move(*shared));
  };
  if (providers == 0) return finish({});
  for (size_t i = 0; i < providers; ++i) {
    server_->resources[i]->ListResources([gather, i, finish](std::vector<json> items) {
      std::optional<std::vector<std::vector<json>>> all;  // once every provider answered
      {
        absl::MutexLock lock(&gather->mutex);
        gather->parts[i] = std::move(items);
        if (--gather->remaining == 0) all = std::move(gather->parts);
      }
      if (all) finish(*std::move(all));
    });
  }
}

void McpEngine::ListResourceTemplates(const json& params, ReplyOnce reply) const {
  std::vector<json> templates;
  for (ResourceProvider* provider : server_->resources) {
    for (json& item : provider->ListResourceTemplates()) templates.push_back(std::move(item));
  }
  AnswerPage(std::move(templates), params, "resourceTemplates", server_->config.page_size,
             std::move(reply));
}

ResourceProvider* McpEngine::FindResourceProvider(const std::string& uri) const {
  for (ResourceProvider* provider : server_->resources) {
    if (provider->HandlesUri(uri)) return provider;
  }
  return nullptr;
}

void McpEngine::ReadResource(const json& params, ReplyOnce reply,
                             std::shared_ptr<RequestContext> context, const EraRules& rules) const {
  std::string uri = StringParam(params, "uri");
  if (uri.empty()) return InvalidParams(reply, "uri", "resources/read needs params.uri");
  if (absl::Status may = MayReadResource(*server_, context->principal_name(), uri); !may.ok()) {
    return reply.Fail(may);
  }
  ResourceProvider* provider = FindResourceProvider(uri);
  if (provider == nullptr) {
    return reply.Error(rules.resource_not_found_code, absl::StrCat("Resource not found: ", uri),
                       {{"uri", uri}});
  }
  auto shared = Share(std::move(reply));
  const int not_found = rules.resource_not_found_code;
  provider->ReadResource(
      uri, std::move(context), [shared, not_found, uri](absl::StatusOr<json> outcome) {
        if (!*shared) return;
        if (outcome.status().code() == absl::StatusCode::kNotFound) {
          return shared->Error(not_found, outcome.status().message(), {{"uri", uri}});
        }
        shared->Finish(std::move(outcome));
      });
}

void McpEngine::ListPrompts(const json& params, ReplyOnce reply) const {
  std::vector<json> prompts;
  for (PromptProvider* provider : server_->prompts) {
    for (json& prompt : provider->ListPrompts()) prompts.push_back(std::move(prompt));
  }
  AnswerPage(std::move(prompts), params, "prompts", server_->config.page_size, std::move(reply));
}

void McpEngine::GetPrompt(const json& params, ReplyOnce reply,
                          std::shared_ptr<RequestContext> context) const {
  std::string name = StringParam(params, "name");
  if (name.empty()) return InvalidParams(reply, "name", "prompts/get needs params.name");
  json arguments = params.value("arguments", json::object());
  if (!arguments.is_object()) {
    return InvalidParams(reply, "arguments", "prompts/get params.arguments must be an object");
  }
  for (PromptProvider* provider : server_->prompts) {
    if (provider->HasPrompt(name)) {
      auto shared = Share(std::move(reply));
      return provider->GetPrompt(
          name, arguments, std::move(context), [shared](absl::StatusOr<json> outcome) {
            if (!*shared) return;
            // A bad prompt argument names the field: arguments.<name> when it is quoted.
            if (outcome.status().code() == absl::StatusCode::kInvalidArgument) {
              const std::string reason(outcome.status().message());
              std::string field = "arguments";
              if (size_t open = reason.find('\''); open != std::string::npos) {
                size_t close = reason.find('\'', open + 1);
                if (close != std::string::npos) {
                  field += "." + reason.substr(open + 1, close - open - 1);
                }
              }
              return InvalidParams(*shared, field, reason);
            }
            shared->Finish(std::move(outcome));
          });
    }
  }
  InvalidParams(reply, "name", absl::StrCat("Unknown prompt: ", name));
}

void McpEngine::Complete(const json& params, ReplyOnce reply) const {
  const json ref = params.is_object() ? params.value("ref", json()) : json();
  const json argument = params.is_object() ? params.value("argument", json()) : json();
  if (!ref.is_object()) return InvalidParams(reply, "ref", "completion/complete needs params.ref");
  if (!argument.is_object() || !argument.contains("name") || !argument["name"].is_string()) {
    return InvalidParams(reply, "argument",
                         "completion/complete needs params.argument.name (a string)");
  }
  std::string argument_name = argument["name"].get<std::string>();
  std::string value = argument.value("value", std::string());
  json context_arguments = json::object();
  if (params.contains("context") && params["context"].is_object()) {
    context_arguments = params["context"].value("arguments", json::object());
  }
  auto shared = Share(std::move(reply));
  auto answer = [shared](std::vector<std::string> values) {
    json shown = json::array();
    for (size_t i = 0; i < values.size() && i < 100; ++i) shown.push_back(values[i]);
    shared->Result({{"completion",
                     {{"values", std::move(shown)},
                      {"total", values.size()},
                      {"hasMore", values.size() > 100}}}});
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
    return InvalidParams(*shared, "ref", absl::StrCat("Unknown prompt: ", name));
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
    return InvalidParams(*shared, "ref", absl::StrCat("Unknown resource template: ", uri));
  }
  InvalidParams(*shared, "ref", "params.ref.type must be ref/prompt or ref/resource");
}

void McpEngine::CallAsTask(ToolProvider* provider, const std::string& name, const json& arguments,
                           ReplyOnce reply, const std::shared_ptr<RequestContext>& context) const {
  auto shared = Share(std::move(reply));
  TaskHost* tasks = server_->tasks;
  provider->BeforeTask(
      name, arguments, context,
      [shared, provider, name, tasks, context](absl::StatusOr<json> task_arguments) {
        if (!*shared) return;
        if (!task_arguments.ok()) return shared->Fail(task_arguments.status());
        TaskHost::Work work = [provider, name, task_arguments = *std::move(task_arguments)](
                                  std::shared_ptr<RequestContext> task_context,
                                  const ToolDone& done) {
          const auto started = std::chrono::steady_clock::now();
          provider->CallTool(name, task_arguments, std::move(task_context),
                             [name, started, done](absl::StatusOr<ToolResult> outcome) {
                               CountToolCall(name, outcome, started);
                               done(std::move(outcome));
                             });
        };
        tasks->Start(context, absl::StrCat("tools/call ", name), std::move(work),
                     [shared, tasks, context](absl::StatusOr<json> created) {
                       if (!*shared) return;
                       if (!created.ok()) return shared->Fail(created.status());
                       FollowTask(tasks, *context, created->value("taskId", ""));
                       shared->Result(*std::move(created));
                     });
      });
}

void McpEngine::TaskMethod(const std::string& method, const json& params, ReplyOnce reply,
                           const std::shared_ptr<RequestContext>& context) const {
  // The capability comes first: a client that did not declare the extension learns nothing of
  // any task, not even whether an id exists.
  if (!DeclaresTasks(context->client_capabilities())) {
    return MissingTasksCapability(reply, absl::StrCat(method, " is part of the tasks extension"));
  }
  const std::string id = StringParam(params, "taskId");
  if (id.empty()) {
    return InvalidParams(reply, "taskId", absl::StrCat(method, " needs params.taskId (a string)"));
  }
  auto shared = Share(std::move(reply));
  JsonDone answer = [shared](absl::StatusOr<json> outcome) {
    if (!*shared) return;
    if (!outcome.ok()) {
      // Unknown, expired and another's ids all read as unknown.
      if (outcome.status().code() == absl::StatusCode::kNotFound) {
        return InvalidParams(*shared, "taskId", std::string(outcome.status().message()));
      }
      return shared->Fail(outcome.status());
    }
    shared->Result(*std::move(outcome));
  };
  if (method == "tasks/get") return server_->tasks->Get(context->owner(), id, std::move(answer));
  if (method == "tasks/cancel") {
    return server_->tasks->Cancel(context->owner(), id, std::move(answer));
  }
  const json responses =
      params.is_object() ? params.value("inputResponses", json::object()) : json::object();
  if (!responses.is_object()) {
    return InvalidParams(*shared, "inputResponses", "tasks/update inputResponses is an object");
  }
  server_->tasks->Update(context->owner(), id, responses, std::move(answer));
}

}  // namespace labgate::gateway
