// The fixture tools: static content, logging and progress over time, a tool error,
// sampling and elicitation round trips to the client, and the dynamic tool; for the
// 2026-07-28 scenarios also the diagnostic tools, a tool with an x-mcp-header parameter,
// the unlisted list-change triggers, and (fixture_input_required.cc) the tools that ask the
// client for input.
#include <boost/asio/steady_timer.hpp>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gateway/conformance/conformance_fixtures.h"
#include "gateway/conformance/fixture_content.h"
#include "gateway/conformance/fixture_input_required.h"
#include "gateway/conformance/fixture_media.h"
#include "gateway/conformance/fixture_state.h"

namespace labgate::gateway {

namespace {

using nlohmann::json;
using namespace conformance;  // NOLINT(build/namespaces): this module's own helpers

constexpr char kDynamicTool[] = "test_dynamic_tool";
// Callable but never listed: the suite calls them to make a list change.
constexpr char kTriggerToolChange[] = "test_trigger_tool_change";
constexpr char kTriggerPromptChange[] = "test_trigger_prompt_change";

json NoArguments() { return {{"type", "object"}, {"properties", json::object()}}; }

json OneStringArgument(const std::string& name, const std::string& description) {
  return {{"type", "object"},
          {"properties", {{name, {{"type", "string"}, {"description", description}}}}},
          {"required", {name}}};
}

json Tool(const std::string& name, const std::string& description, json input_schema) {
  return {{"name", name}, {"description", description}, {"inputSchema", std::move(input_schema)}};
}

// JSON Schema 2020-12 keywords that must reach the client untouched.
json JsonSchema2020Input() {
  return json::parse(R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
      "address": {
        "$anchor": "addressDef",
        "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
      }
    },
    "properties": {
      "name": {"type": "string"},
      "address": {"$ref": "#/$defs/address"},
      "contactMethod": {"type": "string", "enum": ["phone", "email"]},
      "phone": {"type": "string"},
      "email": {"type": "string"}
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": false
  })");
}

const std::vector<json>& StaticTools() {
  static const std::vector<json> tools = {
      Tool("test_simple_text", "Returns simple text content", NoArguments()),
      Tool("test_image_content", "Returns image content (a 1x1 PNG)", NoArguments()),
      Tool("test_audio_content", "Returns audio content (a short WAV)", NoArguments()),
      Tool("test_embedded_resource", "Returns an embedded text resource", NoArguments()),
      Tool("test_multiple_content_types", "Returns text, image and resource content together",
           NoArguments()),
      Tool("test_tool_with_logging", "Sends three info log messages while it runs", NoArguments()),
      Tool("test_tool_with_progress", "Reports progress 0, 50 and 100 of 100 while it runs",
           NoArguments()),
      Tool("test_error_handling", "Always fails, returning isError: true", NoArguments()),
      Tool("test_sampling", "Asks the client's LLM to answer a prompt (sampling/createMessage)",
           OneStringArgument("prompt", "The prompt to send to the LLM")),
      Tool("test_elicitation", "Asks the user for a username and email (elicitation/create)",
           OneStringArgument("message", "The message to show the user")),
      Tool("test_elicitation_sep1034_defaults",
           "Elicits a form whose string, integer, number, enum and boolean fields have defaults",
           NoArguments()),
      Tool("test_elicitation_sep1330_enums",
           "Elicits a form with every enum variant: untitled, titled, legacy, multi-select",
           NoArguments()),
      Tool("test_reconnection",
           "Closes its SSE stream mid-call, then answers (the client resumes with GET)",
           NoArguments()),
      Tool("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features",
           JsonSchema2020Input()),
  };
  return tools;
}

// A string parameter that clients also send as the Mcp-Param-Region header (SEP-2243).
json HeaderParamInput() {
  return {{"type", "object"},
          {"properties",
           {{"region",
             {{"type", "string"},
              {"description", "A region name, mirrored in the Mcp-Param-Region header"},
              {"x-mcp-header", "Region"}}}}},
          {"required", json::array({"region"})}};
}

// Tools the 2026-07-28 scenarios use that ask the client nothing.
const std::vector<json>& DiagnosticTools() {
  static const std::vector<json> tools = {
      Tool("test_streaming_elicitation", "Diagnostic tool validating response progress streams",
           NoArguments()),
      Tool("test_logging_tool", "Diagnostic logging validator tool", NoArguments()),
      Tool("test_header_param",
           "Echoes its region argument, which clients mirror in the Mcp-Param-Region header",
           HeaderParamInput()),
  };
  return tools;
}

// Every listed tool but the dynamic one, in tools/list order.
const std::vector<json>& ListedTools() {
  static const std::vector<json> tools = [] {
    std::vector<json> all = StaticTools();
    for (const auto* group : {&conformance::InputRequiredTools(), &DiagnosticTools()}) {
      all.insert(all.end(), group->begin(), group->end());
    }
    return all;
  }();
  return tools;
}

// Runs each step, pausing `delay` between steps, then calls `finish`. A cancelled
// request stops at the next step.
class StepRun : public std::enable_shared_from_this<StepRun> {
 public:
  StepRun(boost::asio::io_context& io, std::chrono::milliseconds delay,
          std::shared_ptr<RequestContext> context, std::vector<std::function<void()>> steps,
          std::function<json()> finish, JsonDone done)
      : timer_(io),
        delay_(delay),
        context_(std::move(context)),
        steps_(std::move(steps)),
        finish_(std::move(finish)),
        done_(std::move(done)) {}

  void Next() {
    if (context_->cancelled()) return done_(absl::CancelledError("the request was cancelled"));
    if (index_ == steps_.size()) return done_(finish_());
    steps_[index_++]();
    if (index_ == steps_.size()) return done_(finish_());
    timer_.expires_after(delay_);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
      if (ec) return self->done_(absl::CancelledError("the step timer was cancelled"));
      self->Next();
    });
  }

 private:
  boost::asio::steady_timer timer_;
  std::chrono::milliseconds delay_;
  std::shared_ptr<RequestContext> context_;
  std::vector<std::function<void()>> steps_;
  size_t index_ = 0;
  std::function<json()> finish_;
  JsonDone done_;
};

json MultipleContent() {
  return {{"content",
           {TextBlock("Multiple content types test:"), ImageBlock(kRedPixelPng, "image/png"),
            EmbeddedTextResource("test://mixed-content-resource", "application/json",
                                 R"({"test":"data","value":123})")}}};
}

// The text of a sampling result: content is one block or (from 2025-11-25) an array.
std::string SampledText(const json& result) {
  json content = result.value("content", json());
  if (content.is_array() && !content.empty()) content = content[0];
  if (content.is_object() && content.value("type", "") == "text") {
    return content.value("text", "");
  }
  return content.dump();
}

std::string ElicitationSummary(const json& result) {
  return absl::StrCat("action=", result.value("action", std::string("unknown")),
                      ", content=", result.value("content", json::object()).dump());
}

json Sep1034Schema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
            {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
            {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
            {"status",
             {{"type", "string"},
              {"description", "User status"},
              {"enum", {"active", "inactive", "pending"}},
              {"default", "active"}}},
            {"verified",
             {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}}}};
}

json TitledOptions(const std::vector<std::pair<std::string, std::string>>& options) {
  json list = json::array();
  for (const auto& [value, title] : options) list.push_back({{"const", value}, {"title", title}});
  return list;
}

json Sep1330Schema() {
  return {{"type", "object"},
          {"properties",
           {{"untitledSingle",
             {{"type", "string"},
              {"description", "Pick one option"},
              {"enum", {"option1", "option2", "option3"}}}},
            {"titledSingle",
             {{"type", "string"},
              {"description", "Pick one titled option"},
              {"oneOf", TitledOptions({{"value1", "First Option"},
                                       {"value2", "Second Option"},
                                       {"value3", "Third Option"}})}}},
            {"legacyEnum",
             {{"type", "string"},
              {"description", "Pick one option (legacy enumNames)"},
              {"enum", {"opt1", "opt2", "opt3"}},
              {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
            {"untitledMulti",
             {{"type", "array"},
              {"description", "Pick any options"},
              {"items", {{"type", "string"}, {"enum", {"option1", "option2", "option3"}}}}}},
            {"titledMulti",
             {{"type", "array"},
              {"description", "Pick any titled options"},
              {"items",
               {{"anyOf", TitledOptions({{"value1", "First Choice"},
                                         {"value2", "Second Choice"},
                                         {"value3", "Third Choice"}})}}}}}}}};
}

// Sends elicitation/create and answers the tool call with `prefix` + the outcome.
void Elicit(RequestContext& context, const std::string& message, json schema,
            std::chrono::milliseconds timeout, const std::string& prefix, JsonDone done) {
  json params = {{"message", message}, {"requestedSchema", std::move(schema)}};
  context.RequestClient(
      "elicitation/create", params, timeout,
      [prefix, done = std::move(done)](absl::StatusOr<json> result) {
        if (!result.ok()) {
          return done(ToolError(absl::StrCat("Elicitation failed: ", result.status().message())));
        }
        done(TextResult(absl::StrCat(prefix, ElicitationSummary(*result))));
      });
}

}  // namespace

std::vector<json> ConformanceFixtures::ListTools() const {
  std::vector<json> tools = ListedTools();
  if (state_->dynamic_ready.load()) {
    tools.push_back(Tool(kDynamicTool, "A tool that appears a moment after start", NoArguments()));
  }
  return tools;
}

bool ConformanceFixtures::HasTool(const std::string& name) const {
  if (name == kDynamicTool) return state_->dynamic_ready.load();
  if (name == kTriggerToolChange || name == kTriggerPromptChange) return true;
  for (const json& tool : ListedTools()) {
    if (tool["name"] == name) return true;
  }
  return false;
}

void ConformanceFixtures::CallTool(const std::string& name, const json& arguments,
                                   std::shared_ptr<RequestContext> context, ToolDone tool_done) {
  // The fixtures answer in JSON.
  JsonDone done = [tool_done = std::move(tool_done)](absl::StatusOr<json> result) {
    tool_done(std::move(result));
  };
  if (name == "test_simple_text") {
    return done(TextResult("This is a simple text response for testing."));
  }
  if (name == "test_image_content") {
    return done(json{{"content", {ImageBlock(kRedPixelPng, "image/png")}}});
  }
  if (name == "test_audio_content") {
    return done(
        json{{"content", {{{"type", "audio"}, {"data", kSilentWav}, {"mimeType", "audio/wav"}}}}});
  }
  if (name == "test_embedded_resource") {
    return done(json{{"content",
                      {EmbeddedTextResource("test://embedded-resource", "text/plain",
                                            "This is an embedded resource content.")}}});
  }
  if (name == "test_multiple_content_types") return done(MultipleContent());
  if (name == "test_error_handling") {
    return done(ToolError("This tool intentionally returns an error for testing"));
  }
  if (name == kDynamicTool) return done(TextResult("This is a dynamically added tool."));
  if (name == "json_schema_2020_12_tool") {
    return done(TextResult(absl::StrCat("Received: ", arguments.dump())));
  }
  if (name == kTriggerToolChange || name == kTriggerPromptChange) {
    if (state_->list_changed) {
      state_->list_changed(name == kTriggerToolChange ? ListKind::kTools : ListKind::kPrompts);
    }
    return done(TextResult("Mutation triggered"));
  }
  if (name == "test_streaming_elicitation") {
    // One progress notification (only if the request has a progressToken), then the result:
    // a stream that carries nothing but notifications before its response.
    context->Progress(50, 100.0, "Streaming");
    return done(TextResult("Streaming complete"));
  }
  if (name == "test_logging_tool") {
    // Reaches the client only if it asked for log messages (in the 2026 era: _meta logLevel).
    context->Log(McpLogLevel::kInfo, "conformance", "The logging tool ran");
    return done(TextResult("Logging evaluated"));
  }
  if (name == "test_header_param") {
    if (!arguments.contains("region") || !arguments["region"].is_string()) {
      return done(ToolError("test_header_param needs the argument 'region' (a string)"));
    }
    return done(TextResult(absl::StrCat("Region: ", arguments["region"].get<std::string>())));
  }
  if (conformance::CallInputRequiredTool(name, context, timings_.client_timeout, done)) return;

  if (name == "test_tool_with_logging") {
    std::vector<std::function<void()>> steps;
    for (const char* text :
         {"Tool execution started", "Tool processing data", "Tool execution completed"}) {
      steps.push_back([context, text] { context->Log(McpLogLevel::kInfo, "conformance", text); });
    }
    auto run = std::make_shared<StepRun>(
        io_, timings_.step_delay, context, std::move(steps),
        [] { return TextResult("Tool with logging executed successfully"); }, std::move(done));
    return run->Next();
  }
  if (name == "test_tool_with_progress") {
    std::vector<std::function<void()>> steps;
    for (double progress : {0.0, 50.0, 100.0}) {
      steps.push_back([context, progress] {
        context->Progress(progress, 100.0, absl::StrCat("Progress ", progress, "/100"));
      });
    }
    auto run = std::make_shared<StepRun>(
        io_, timings_.step_delay, context, std::move(steps),
        [] { return TextResult("Tool with progress executed successfully"); }, std::move(done));
    return run->Next();
  }
  if (name == "test_reconnection") {
    // Closes the POST's stream mid-call (SEP-1699 polling); the result then waits for the
    // client's GET with Last-Event-ID.
    auto run = std::make_shared<StepRun>(
        io_, timings_.step_delay, context,
        std::vector<std::function<void()>>{[context] { context->CloseStream(); }, [] {}},
        [] { return TextResult("Reconnection test completed"); }, std::move(done));
    return run->Next();
  }

  if (name == "test_sampling") {
    if (!arguments.contains("prompt") || !arguments["prompt"].is_string()) {
      return done(ToolError("test_sampling needs the argument 'prompt' (a string)"));
    }
    json params = {
        {"messages",
         {{{"role", "user"}, {"content", TextBlock(arguments["prompt"].get<std::string>())}}}},
        {"maxTokens", 100}};
    return context->RequestClient(
        "sampling/createMessage", params, timings_.client_timeout,
        [done = std::move(done)](absl::StatusOr<json> result) {
          if (!result.ok()) {
            return done(ToolError(absl::StrCat("Sampling failed: ", result.status().message())));
          }
          done(TextResult(absl::StrCat("LLM response: ", SampledText(*result))));
        });
  }
  if (name == "test_elicitation") {
    if (!arguments.contains("message") || !arguments["message"].is_string()) {
      return done(ToolError("test_elicitation needs the argument 'message' (a string)"));
    }
    json schema = {{"type", "object"},
                   {"properties",
                    {{"username", {{"type", "string"}, {"description", "User's response"}}},
                     {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                   {"required", {"username", "email"}}};
    return Elicit(*context, arguments["message"].get<std::string>(), std::move(schema),
                  timings_.client_timeout, "User response: ", std::move(done));
  }
  if (name == "test_elicitation_sep1034_defaults") {
    return Elicit(*context, "Please review and update the form fields with defaults",
                  Sep1034Schema(), timings_.client_timeout,
                  "Elicitation completed: ", std::move(done));
  }
  if (name == "test_elicitation_sep1330_enums") {
    return Elicit(*context, "Please select options from the enum fields", Sep1330Schema(),
                  timings_.client_timeout, "Elicitation completed: ", std::move(done));
  }
  done(absl::InvalidArgumentError(absl::StrCat("Unknown tool: ", name)));
}

}  // namespace labgate::gateway
