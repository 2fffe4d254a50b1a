// The fixture prompts: a plain one, one with arguments, one embedding a resource, one
// with an image, and the dynamic prompt; plus argument completion. The prompt that asks
// the client for context is in fixture_input_required.cc.
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

using conformance::TextBlock;
using nlohmann::json;

constexpr char kDynamicPrompt[] = "test_dynamic_prompt";

json Argument(const std::string& name, const std::string& description) {
  return {{"name", name}, {"description", description}, {"required", true}};
}

json Prompt(const std::string& name, const std::string& description, json arguments) {
  json prompt = {{"name", name}, {"description", description}};
  if (!arguments.empty()) prompt["arguments"] = std::move(arguments);
  return prompt;
}

const std::vector<json>& StaticPrompts() {
  static const std::vector<json> prompts = {
      Prompt("test_simple_prompt", "A simple prompt without arguments", json::array()),
      Prompt("test_prompt_with_arguments", "A prompt that substitutes two arguments",
             json::array({Argument("arg1", "First test argument"),
                          Argument("arg2", "Second test argument")})),
      // json::array: a braced list of one json is that json itself under clang.
      Prompt("test_prompt_with_embedded_resource", "A prompt that embeds a resource",
             json::array({Argument("resourceUri", "URI of the resource to embed")})),
      Prompt("test_prompt_with_image", "A prompt that includes an image", json::array()),
  };
  return prompts;
}

json UserMessage(json content) { return {{"role", "user"}, {"content", std::move(content)}}; }

json Messages(std::initializer_list<json> contents, const std::string& description = "") {
  json messages = json::array();
  for (const json& content : contents) messages.push_back(UserMessage(content));
  json result = {{"messages", std::move(messages)}};
  if (!description.empty()) result["description"] = description;
  return result;
}

// The string argument `name`, or an InvalidArgument status naming what is missing.
absl::StatusOr<std::string> RequiredString(const std::string& prompt, const json& arguments,
                                           const std::string& name) {
  if (!arguments.contains(name) || !arguments[name].is_string()) {
    return absl::InvalidArgumentError(
        absl::StrCat("prompt ", prompt, " needs the argument '", name, "' (a string)"));
  }
  return arguments[name].get<std::string>();
}

}  // namespace

std::vector<json> ConformanceFixtures::ListPrompts() const {
  std::vector<json> prompts = StaticPrompts();
  for (const json& prompt : conformance::InputRequiredPrompts()) prompts.push_back(prompt);
  if (state_->dynamic_ready.load()) {
    prompts.push_back(
        Prompt(kDynamicPrompt, "A prompt that appears a moment after start", json::array()));
  }
  return prompts;
}

bool ConformanceFixtures::HasPrompt(const std::string& name) const {
  if (name == kDynamicPrompt) return state_->dynamic_ready.load();
  for (const json& prompt : StaticPrompts()) {
    if (prompt["name"] == name) return true;
  }
  for (const json& prompt : conformance::InputRequiredPrompts()) {
    if (prompt["name"] == name) return true;
  }
  return false;
}

void ConformanceFixtures::GetPrompt(const std::string& name, const json& arguments,
                                    std::shared_ptr<RequestContext> context, JsonDone done) {
  if (name == "test_simple_prompt") {
    return done(Messages({TextBlock("This is a simple prompt for testing.")}));
  }
  if (name == "test_prompt_with_arguments") {
    auto arg1 = RequiredString(name, arguments, "arg1");
    if (!arg1.ok()) return done(arg1.status());
    auto arg2 = RequiredString(name, arguments, "arg2");
    if (!arg2.ok()) return done(arg2.status());
    return done(Messages({TextBlock(
        absl::StrCat("Prompt with arguments: arg1='", *arg1, "', arg2='", *arg2, "'"))}));
  }
  if (name == "test_prompt_with_embedded_resource") {
    auto uri = RequiredString(name, arguments, "resourceUri");
    if (!uri.ok()) return done(uri.status());
    return done(Messages({conformance::EmbeddedTextResource(
                              *uri, "text/plain", "Embedded resource content for testing."),
                          TextBlock("Please process the embedded resource above.")}));
  }
  if (name == "test_prompt_with_image") {
    return done(Messages({conformance::ImageBlock(conformance::kRedPixelPng, "image/png"),
                          TextBlock("Please analyze the image above.")}));
  }
  if (name == kDynamicPrompt && state_->dynamic_ready.load()) {
    return done(Messages({TextBlock("This is a dynamically added prompt.")}));
  }
  if (conformance::GetInputRequiredPrompt(name, context, timings_.client_timeout, done)) return;
  done(absl::InvalidArgumentError(absl::StrCat("Unknown prompt: ", name)));
}

void ConformanceFixtures::CompletePromptArgument(const std::string& prompt,
                                                 const std::string& argument,
                                                 const std::string& value,
                                                 const json& context_arguments, StringsDone done) {
  (void)context_arguments;
  if (prompt == "test_prompt_with_arguments" && argument == "arg1") {
    return done(conformance::CompleteFrom({"paris", "park", "party", "test", "testValue1"}, value));
  }
  if (prompt == "test_prompt_with_arguments" && argument == "arg2") {
    return done(conformance::CompleteFrom({"testValue2", "value", "valuable"}, value));
  }
  if (prompt == "test_prompt_with_embedded_resource" && argument == "resourceUri") {
    return done(conformance::CompleteFrom(
        {"test://static-text", "test://static-binary", "test://watched-resource"}, value));
  }
  done({});
}

}  // namespace labgate::gateway
