#include "gateway/actions/action_tools.h"

#include <grpcpp/client_context.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/grpc_callback.h"
#include "common/grpc_status.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/backends/unreachable.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/tools/call_notices.h"

namespace labgate::gateway {

using labgate::actions::v1::ActionContract;
using labgate::actions::v1::InvokeActionRequest;
using labgate::actions::v1::InvokeActionResponse;
using labgate::actions::v1::ListActionsRequest;
using labgate::actions::v1::ListActionsResponse;
using nlohmann::json;

namespace {

// Clients compile schemas with their own default dialect; a nested "$schema" would make
// some refuse the whole tool, so it is dropped.
json WithoutDialect(json schema) {
  if (schema.is_object()) schema.erase("$schema");
  return schema;
}

json ToolFor(const ActionContract& contract) {
  json input = WithoutDialect(json::parse(contract.input_schema_json(), nullptr, false));
  json output = WithoutDialect(json::parse(contract.output_schema_json(), nullptr, false));
  if (input.is_discarded()) input = {{"type", "object"}};
  if (output.is_discarded()) output = {{"type", "object"}};
  json tool = {
      {"name", contract.action()},
      {"description",
       absl::StrCat(contract.description(), " Boundary: ", contract.boundary_notice())},
      {"inputSchema", std::move(input)},
      {"outputSchema",
       {{"type", "object"},
        {"properties",
         {{"action", {{"type", "string"}}},
          {"boundaryNotice", {{"type", "string"}}},
          {"uncertainty", {{"type", "string"}, {"enum", {"low", "medium", "high"}}}},
          {"assumptions", {{"type", "array"}, {"items", {{"type", "string"}}}}},
          {"output", std::move(output)}}},
        {"required", {"action", "boundaryNotice", "uncertainty", "assumptions", "output"}}}},
      {"annotations",
       {{"readOnlyHint", true},
        {"destructiveHint", false},
        {"idempotentHint", true},
        {"openWorldHint", false}}},
  };
  if (!contract.title().empty()) {
    tool["title"] = contract.title();
    tool["annotations"]["title"] = contract.title();
  }
  return tool;
}

nlohmann::ordered_json OrderBySchema(const json& value, const nlohmann::ordered_json& schema) {
  if (value.is_array()) {
    nlohmann::ordered_json items = nlohmann::ordered_json::array();
    const auto& item_schema =
        schema.is_object() && schema.contains("items") ? schema["items"] : nlohmann::ordered_json();
    for (const json& item : value) items.push_back(OrderBySchema(item, item_schema));
    return items;
  }
  if (!value.is_object()) return nlohmann::ordered_json(value);
  nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
  nlohmann::ordered_json properties = schema.is_object() && schema.contains("properties")
                                          ? schema["properties"]
                                          : nlohmann::ordered_json::object();
  for (const auto& [key, subschema] : properties.items()) {
    if (auto it = value.find(key); it != value.end()) ordered[key] = OrderBySchema(*it, subschema);
  }
  for (const auto& [key, item] : value.items()) {
    if (!ordered.contains(key)) ordered[key] = OrderBySchema(item, nlohmann::ordered_json());
  }
  return ordered;
}

}  // namespace

json ActionResultJson(const absl::StatusOr<json>& outcome) {
  if (outcome.ok()) {
    return {
        {"content",
         json::array({{{"type", "text"},
                       {"text", outcome->dump(-1, ' ', false, json::error_handler_t::replace)}}})},
        {"structuredContent", *outcome},
        {"isError", false}};
  }
  absl::StatusCode code = outcome.status().code();
  std::string text =
      code == absl::StatusCode::kInvalidArgument || code == absl::StatusCode::kNotFound
          ? std::string(outcome.status().message())
          : ToolErrorText(outcome.status());
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}, {"isError", true}};
}

void ActionTools::CallTool(const std::string& name, const json& arguments,
                           std::shared_ptr<RequestContext> context, ToolDone done) {
  const auto started = std::chrono::steady_clock::now();
  auto call = Invoke(
      name, arguments,
      [name, started, context, done = std::move(done)](absl::StatusOr<json> outcome) {
        // Logged as proto tool calls are: debug duration, error on failure.
        const CallNotices notices =
            NoticesForCall(name, labgate::actions::v1::ActionsService::service_full_name(),
                           json::object(), outcome,
                           std::chrono::duration_cast<std::chrono::microseconds>(
                               std::chrono::steady_clock::now() - started),
                           context->WouldLog(McpLogLevel::kDebug));
        for (const LogNotice& log : notices.logs) {
          context->Log(log.level, log.logger, log.data);
        }
        done(outcome.ok() ? StructuredResult(*outcome) : ToolResult(ActionResultJson(outcome)));
      });
  if (call) context->OnCancel(std::move(call));
}

json ActionResponseJson(const InvokeActionResponse& response) {
  json assumptions = json::array();
  for (const std::string& assumption : response.assumptions()) assumptions.push_back(assumption);
  return {{"action", response.action()},
          {"boundaryNotice", response.boundary_notice()},
          {"uncertainty", response.uncertainty()},
          {"assumptions", std::move(assumptions)},
          {"output", response.has_output() ? ProtoToJson(response.output()) : json::object()}};
}

ActionTools::ActionTools(std::shared_ptr<grpc::Channel> channel,
                         std::chrono::milliseconds call_deadline)
    : channel_(std::move(channel)),
      stub_(labgate::actions::v1::ActionsService::NewStub(channel_)),
      call_deadline_(call_deadline) {}

ActionTools::~ActionTools() { Stop(); }

void ActionTools::Start(bool watch_connectivity) {
  if (auto refreshed = Refresh(); !refreshed.ok()) {
    LG_LOG(kWarning) << "actions service not reachable yet ("
                     << std::string(refreshed.status().message())
                     << "); action tools appear once it is";
  }
  if (watch_connectivity) watcher_ = std::thread([this] { Watch(); });
}

void ActionTools::Stop() {
  stopping_.store(true);
  if (watcher_.joinable()) watcher_.join();
}

absl::StatusOr<bool> ActionTools::Refresh() {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  ListActionsResponse response;
  grpc::Status status = stub_->ListActions(&context, ListActionsRequest(), &response);
  if (!status.ok()) return FromGrpcStatus(status);
  std::map<std::string, json> fresh;
  std::map<std::string, nlohmann::ordered_json> output_schemas;
  for (const ActionContract& contract : response.actions()) {
    fresh[contract.action()] = ToolFor(contract);
    output_schemas[contract.action()] =
        nlohmann::ordered_json::parse(contract.output_schema_json(), nullptr, false);
  }
  std::vector<std::function<void()>> listeners;
  {
    absl::MutexLock lock(&mutex_);
    output_schemas_ = std::move(output_schemas);
    if (fresh == tools_) return false;
    tools_ = std::move(fresh);
    listeners = listeners_;
  }
  LG_LOG(kInfo) << "action tools refreshed: " << response.actions_size() << " actions";
  for (auto& listener : listeners) listener();
  return true;
}

// Runs on its own thread: waiting on channel state is blocking by design.
void ActionTools::Watch() {
  bool need_refresh = false;
  grpc_connectivity_state last = channel_->GetState(false);
  while (!stopping_.load()) {
    auto deadline = std::chrono::system_clock::now() + std::chrono::milliseconds(200);
    if (channel_->WaitForStateChange(last, deadline)) {
      grpc_connectivity_state now = channel_->GetState(false);
      if (now != GRPC_CHANNEL_READY && now != GRPC_CHANNEL_IDLE) need_refresh = true;
      last = now;
    }
    bool empty;
    {
      absl::MutexLock lock(&mutex_);
      empty = tools_.empty();
    }
    // Reconnects after a break, and a service that was down at startup, both refetch.
    if (need_refresh || empty) {
      grpc_connectivity_state state = channel_->GetState(/*try_to_connect=*/true);
      if (state == GRPC_CHANNEL_READY || (empty && state == GRPC_CHANNEL_IDLE)) {
        if (Refresh().ok()) need_refresh = false;
      }
    }
  }
}

std::vector<json> ActionTools::ListTools() const {
  absl::MutexLock lock(&mutex_);
  std::vector<json> tools;
  tools.reserve(tools_.size());
  for (const auto& [name, tool] : tools_) {
    (void)name;
    tools.push_back(tool);
  }
  return tools;
}

bool ActionTools::HasTool(const std::string& name) const {
  absl::MutexLock lock(&mutex_);
  return tools_.contains(name);
}

nlohmann::ordered_json ActionTools::OrderedOutput(const std::string& action,
                                                  const json& output) const {
  absl::MutexLock lock(&mutex_);
  auto it = output_schemas_.find(action);
  return OrderBySchema(output, it == output_schemas_.end() ? nlohmann::ordered_json() : it->second);
}

void ActionTools::OnChanged(std::function<void()> listener) {
  absl::MutexLock lock(&mutex_);
  listeners_.push_back(std::move(listener));
}

std::function<void()> ActionTools::Invoke(const std::string& action, const json& input, Done done) {
  auto request = std::make_unique<InvokeActionRequest>();
  request->set_action(action);
  if (absl::Status status = JsonToProto(input, request->mutable_input()); !status.ok()) {
    done(status);
    return nullptr;
  }
  if (local_calls_ != nullptr) {
    static const std::string kPath = LocalMethods::Path(
        labgate::actions::v1::ActionsService::service_full_name(), "InvokeAction");
    const LocalMethods::Method* method = local_calls_->methods().Find(kPath);
    LocalCallOptions options;
    options.deadline = absl::Now() + absl::FromChrono(call_deadline_);
    std::shared_ptr<LocalCall> call = local_calls_->Start(
        *method, std::move(options), std::move(request),
        [done = std::move(done)](const absl::Status& status,
                                 const std::shared_ptr<const google::protobuf::Message>& response) {
          if (!status.ok()) return done(status);
          done(ActionResponseJson(*static_cast<const InvokeActionResponse*>(response.get())));
        });
    if (call->ended()) return nullptr;
    return [call] { call->Cancel(); };
  }
  auto context = std::make_shared<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + call_deadline_);
  std::shared_ptr<InvokeActionRequest> shared_request = std::move(request);
  auto response = std::make_shared<InvokeActionResponse>();
  auto finish = [context, shared_request, response, channel = channel_, address = address_,
                 done = std::move(done)](const grpc::Status& status) {
    if (!status.ok()) {
      return done(BackendCallStatus(status, channel.get(),
                                    labgate::actions::v1::ActionsService::service_full_name(),
                                    address));
    }
    NoteBackendAnswered(labgate::actions::v1::ActionsService::service_full_name(), address);
    done(ActionResponseJson(*response));
  };
  stub_->async()->InvokeAction(context.get(), shared_request.get(), response.get(),
                               OncePointerCallback(std::move(finish)));
  return [context] { context->TryCancel(); };
}

void ActionTools::List(std::function<void(absl::StatusOr<ListActionsResponse>)> done) {
  auto context = std::make_shared<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + call_deadline_);
  auto request = std::make_shared<ListActionsRequest>();
  auto response = std::make_shared<ListActionsResponse>();
  stub_->async()->ListActions(
      context.get(), request.get(), response.get(),
      OncePointerCallback(
          [context, request, response, done = std::move(done)](const grpc::Status& status) {
            if (!status.ok()) return done(FromGrpcStatus(status));
            done(*response);
          }));
}

}  // namespace labgate::gateway
