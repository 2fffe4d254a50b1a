#include "gateway/conformance/conformance_fixtures.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <condition_variable>
#include <future>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

namespace labgate::gateway {
namespace {

using nlohmann::json;
using ::testing::Contains;
using ::testing::ElementsAre;

// Records what a fixture does with its request; answers client requests with `reply`.
// With `stateless_era` set it plays labgate's 2026 era instead: AskClient answers from
// `answers` at once, or records the question in `pending` (the request then ends as
// input_required) or the undeclared capability in `missing` (it then ends as -32021).
class FakeContext : public RequestContext {
 public:
  struct ClientCall {
    std::string method;
    json params;
  };

  const std::string& owner() const override { return owner_; }
  const json& client_capabilities() const override { return capabilities; }
  bool cancelled() const override { return false; }
  void OnCancel(std::function<void()>) override {}
  void Progress(double progress, std::optional<double> total, const std::string&) override {
    std::lock_guard<std::mutex> lock(mutex);
    progress_seen.push_back({progress, total.value_or(-1)});
  }
  void Log(McpLogLevel level, const std::string&, const json& data) override {
    std::lock_guard<std::mutex> lock(mutex);
    logs.push_back({McpLogLevelName(level), data});
  }
  void RequestClient(const std::string& method, const json& params, std::chrono::milliseconds,
                     JsonDone done) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      client_calls.push_back({method, params});
    }
    done(reply);
  }
  void AskClient(const std::string& key, const std::string& method, const json& params,
                 std::chrono::milliseconds timeout, JsonDone done) override {
    if (!stateless_era) return RequestClient(method, params, timeout, std::move(done));
    static const std::map<std::string, std::string> kCapabilityFor = {
        {"sampling/createMessage", "sampling"},
        {"elicitation/create", "elicitation"},
        {"roots/list", "roots"}};
    absl::StatusOr<json> outcome = absl::UnavailableError(kInputRequiredMessage);
    {
      std::lock_guard<std::mutex> lock(mutex);
      asked.push_back(key);
      const std::string& capability = kCapabilityFor.at(method);
      if (answers.contains(key)) {
        outcome = answers[key];
      } else if (!capabilities.contains(capability)) {
        missing.push_back(capability);
        outcome = absl::FailedPreconditionError("capability not declared");
      } else {
        pending[key] = {{"method", method}, {"params", params}};
      }
    }
    done(std::move(outcome));  // outside the lock: the fixture may ask again from here
  }
  bool stateless() const override { return stateless_era; }
  std::shared_ptr<void> HoldForPrincipal(const std::string&,
                                         const std::function<std::shared_ptr<void>()>&) override {
    return nullptr;
  }

  std::mutex mutex;
  std::vector<std::pair<double, double>> progress_seen;
  std::vector<std::pair<std::string, json>> logs;
  std::vector<ClientCall> client_calls;
  absl::StatusOr<json> reply = json::object();
  json capabilities = {{"sampling", json::object()}, {"elicitation", json::object()}};

  // The 2026 era.
  bool stateless_era = false;
  json answers = json::object();  // inputResponses plus those carried in requestState
  json pending = json::object();  // what the input_required result would ask
  std::vector<std::string> missing;
  std::vector<std::string> asked;

 private:
  std::string owner_ = "test-owner";
};

// What the conformance harness declares in _meta clientCapabilities.
json HarnessCapabilities() {
  return {{"sampling", json::object()},
          {"elicitation", json::object()},
          {"roots", {{"listChanged", true}}}};
}

// One round of a 2026-era request as labgate ends it.
struct Round {
  absl::StatusOr<json> outcome;      // the handler's own answer
  json input_requests;               // non-empty: the reply is input_required with these
  std::vector<std::string> missing;  // non-empty: the reply is -32021
  json state;                        // the answers the next round's requestState carries
  bool input_required() const { return missing.empty() && !input_requests.empty(); }
  // A complete result: the handler's answer stands and it is not an error.
  bool complete() const { return missing.empty() && input_requests.empty() && outcome.ok(); }
  std::string text() const {
    return complete() ? outcome->at("content").at(0).value("text", "") : "";
  }
};

// The harness's mock answers.
json Accept(json content) { return {{"action", "accept"}, {"content", std::move(content)}}; }
json Sampled(const std::string& text) {
  return {{"role", "assistant"},
          {"content", {{"type", "text"}, {"text", text}}},
          {"model", "test-model"},
          {"stopReason", "endTurn"}};
}
json MockRoots() {
  return json::parse(R"({"roots":[{"uri":"file:///test/root","name":"Test Root"}]})");
}

// Runs an io_context on a thread for the fixtures' timers.
class FixturesTest : public ::testing::Test {
 protected:
  FixturesTest() : work_(boost::asio::make_work_guard(io_)), thread_([this] { io_.run(); }) {}
  ~FixturesTest() override {
    fixtures_.reset();
    work_.reset();
    io_.stop();
    thread_.join();
  }

  ConformanceFixtures& Make(FixtureTimings timings = Fast()) {
    fixtures_ = std::make_unique<ConformanceFixtures>(io_, timings, [this](ListKind kind) {
      std::lock_guard<std::mutex> lock(mutex_);
      changes_.push_back(kind);
      changed_.notify_all();
    });
    return *fixtures_;
  }

  static FixtureTimings Fast() {
    FixtureTimings timings;
    timings.dynamic_delay = std::chrono::milliseconds(1);
    timings.watch_interval = std::chrono::milliseconds(2);
    timings.step_delay = std::chrono::milliseconds(1);
    return timings;
  }

  // Calls a tool and waits for its result (the wait bounds a hang, it asserts no timing).
  absl::StatusOr<json> Call(const std::string& name, const json& arguments,
                            std::shared_ptr<FakeContext> context = nullptr) {
    if (!context) context = std::make_shared<FakeContext>();
    return Await(
        [&](JsonDone done) { fixtures_->CallTool(name, arguments, context, AsToolDone(done)); });
  }

  // A 2026-era round of tools/call (or, with `prompt`, prompts/get) of `name`: `state` is
  // what the echoed requestState carries, `responses` the round's inputResponses.
  Round Round2026(const std::string& name, const json& state = json::object(),
                  const json& responses = json::object(),
                  const json& capabilities = HarnessCapabilities(), bool prompt = false) {
    auto context = std::make_shared<FakeContext>();
    context->stateless_era = true;
    context->capabilities = capabilities;
    context->answers = state;
    for (const auto& [key, answer] : responses.items()) context->answers[key] = answer;
    Round round;
    round.outcome = Await([&](JsonDone done) {
      if (prompt) return fixtures_->GetPrompt(name, json::object(), context, done);
      fixtures_->CallTool(name, json::object(), context, AsToolDone(done));
    });
    round.input_requests = context->pending;
    round.missing = context->missing;
    round.state = context->answers;
    return round;
  }

  absl::StatusOr<json> Read(const std::string& uri) {
    return Await([&](JsonDone done) {
      fixtures_->ReadResource(uri, std::make_shared<FakeContext>(), done);
    });
  }

  absl::StatusOr<json> Get(const std::string& name, const json& arguments) {
    return Await([&](JsonDone done) {
      fixtures_->GetPrompt(name, arguments, std::make_shared<FakeContext>(), done);
    });
  }

  static ToolDone AsToolDone(JsonDone done) {
    return [done = std::move(done)](absl::StatusOr<ToolResult> result) {
      if (!result.ok()) return done(result.status());
      done(result->AsJson());
    };
  }

  absl::StatusOr<json> Await(const std::function<void(JsonDone)>& start) {
    auto promise = std::make_shared<std::promise<absl::StatusOr<json>>>();
    auto future = promise->get_future();
    start([promise](absl::StatusOr<json> result) { promise->set_value(std::move(result)); });
    if (future.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
      return absl::DeadlineExceededError("no answer");
    }
    return future.get();
  }

  // Waits until `pred` holds (under mutex_); false if it never does.
  bool WaitFor(const std::function<bool()>& pred) {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(30), pred);
  }

  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  std::unique_ptr<ConformanceFixtures> fixtures_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<ListKind> changes_;
};

std::vector<std::string> Names(const std::vector<json>& items, const char* key = "name") {
  std::vector<std::string> names;
  for (const json& item : items) names.push_back(item.at(key).get<std::string>());
  return names;
}

TEST_F(FixturesTest, ListsEveryToolTheSuiteCallsWithADescriptionAndSchema) {
  auto& fixtures = Make();
  auto tools = fixtures.ListTools();
  for (const char* name :
       {"test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
        "test_multiple_content_types", "test_tool_with_logging", "test_tool_with_progress",
        "test_error_handling", "test_sampling", "test_elicitation",
        "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums",
        "json_schema_2020_12_tool"}) {
    EXPECT_THAT(Names(tools), Contains(name));
    EXPECT_TRUE(fixtures.HasTool(name)) << name;
  }
  for (const json& tool : tools) {
    EXPECT_FALSE(tool.value("description", "").empty()) << tool.dump();
    EXPECT_EQ(tool.at("inputSchema").at("type"), "object") << tool.dump();
  }
  EXPECT_FALSE(fixtures.HasTool("no_such_tool"));
}

TEST_F(FixturesTest, JsonSchema2020ToolKeepsItsKeywords) {
  auto& fixtures = Make();
  for (const json& tool : fixtures.ListTools()) {
    if (tool["name"] != "json_schema_2020_12_tool") continue;
    const json& schema = tool["inputSchema"];
    EXPECT_EQ(schema["$schema"], "https://json-schema.org/draft/2020-12/schema");
    EXPECT_EQ(schema["$defs"]["address"]["$anchor"], "addressDef");
    EXPECT_EQ(schema["additionalProperties"], false);
    EXPECT_TRUE(schema["allOf"][0].contains("anyOf"));
    EXPECT_TRUE(schema.contains("if") && schema.contains("then") && schema.contains("else"));
    return;
  }
  ADD_FAILURE() << "json_schema_2020_12_tool is not listed";
}

TEST_F(FixturesTest, StaticToolsReturnTheExpectedContent) {
  Make();
  auto text = Call("test_simple_text", json::object());
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, json::parse(R"({"content":[{"type":"text",
            "text":"This is a simple text response for testing."}]})"));

  auto image = Call("test_image_content", json::object());
  ASSERT_TRUE(image.ok());
  EXPECT_EQ((*image)["content"][0]["type"], "image");
  EXPECT_EQ((*image)["content"][0]["mimeType"], "image/png");
  EXPECT_FALSE((*image)["content"][0]["data"].get<std::string>().empty());

  auto audio = Call("test_audio_content", json::object());
  ASSERT_TRUE(audio.ok());
  EXPECT_EQ((*audio)["content"][0]["type"], "audio");
  EXPECT_EQ((*audio)["content"][0]["mimeType"], "audio/wav");

  auto embedded = Call("test_embedded_resource", json::object());
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ((*embedded)["content"][0]["resource"],
            json::parse(R"({"uri":"test://embedded-resource","mimeType":"text/plain",
                            "text":"This is an embedded resource content."})"));

  auto mixed = Call("test_multiple_content_types", json::object());
  ASSERT_TRUE(mixed.ok());
  std::vector<std::string> types;
  for (const json& block : (*mixed)["content"]) types.push_back(block["type"]);
  EXPECT_THAT(types, ElementsAre("text", "image", "resource"));
  EXPECT_EQ((*mixed)["content"][2]["resource"]["text"], R"({"test":"data","value":123})");
}

TEST_F(FixturesTest, ErrorToolFailsInsideItsResult) {
  Make();
  auto result = Call("test_error_handling", json::object());
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["isError"], true);
  EXPECT_EQ((*result)["content"][0]["text"],
            "This tool intentionally returns an error for testing");
}

TEST_F(FixturesTest, UnknownToolIsAProtocolError) {
  Make();
  auto result = Call("no_such_tool", json::object());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FixturesTest, ProgressToolReportsZeroFiftyHundredThenAnswers) {
  Make();
  auto context = std::make_shared<FakeContext>();
  auto result = Call("test_tool_with_progress", json::object(), context);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["content"][0]["text"], "Tool with progress executed successfully");
  using P = std::pair<double, double>;
  EXPECT_THAT(context->progress_seen, ElementsAre(P{0, 100}, P{50, 100}, P{100, 100}));
}

TEST_F(FixturesTest, LoggingToolSendsThreeInfoMessagesInOrder) {
  Make();
  auto context = std::make_shared<FakeContext>();
  auto result = Call("test_tool_with_logging", json::object(), context);
  ASSERT_TRUE(result.ok());
  ASSERT_EQ(context->logs.size(), 3u);
  EXPECT_EQ(context->logs[0], std::make_pair(std::string("info"), json("Tool execution started")));
  EXPECT_EQ(context->logs[1], std::make_pair(std::string("info"), json("Tool processing data")));
  EXPECT_EQ(context->logs[2],
            std::make_pair(std::string("info"), json("Tool execution completed")));
}

TEST_F(FixturesTest, SamplingAsksTheClientAndQuotesItsAnswer) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = json::parse(R"({"role":"assistant","model":"m","stopReason":"endTurn",
      "content":{"type":"text","text":"Hello from the model"}})");
  auto result = Call("test_sampling", {{"prompt", "Say hello"}}, context);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["content"][0]["text"], "LLM response: Hello from the model");
  ASSERT_EQ(context->client_calls.size(), 1u);
  EXPECT_EQ(context->client_calls[0].method, "sampling/createMessage");
  EXPECT_EQ(context->client_calls[0].params,
            json::parse(R"({"messages":[{"role":"user","content":{"type":"text",
                "text":"Say hello"}}],"maxTokens":100})"));
}

TEST_F(FixturesTest, SamplingFailureIsAToolError) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = absl::FailedPreconditionError("the client did not declare 'sampling'");
  auto result = Call("test_sampling", {{"prompt", "Say hello"}}, context);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["isError"], true);
  auto missing = Call("test_sampling", json::object(), context);
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ((*missing)["isError"], true);
}

TEST_F(FixturesTest, ElicitationSendsTheFormAndReportsTheAnswer) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = json::parse(R"({"action":"accept","content":{"username":"u","email":"e"}})");
  auto result = Call("test_elicitation", {{"message", "Who are you?"}}, context);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["content"][0]["text"],
            R"(User response: action=accept, content={"email":"e","username":"u"})");
  ASSERT_EQ(context->client_calls.size(), 1u);
  EXPECT_EQ(context->client_calls[0].method, "elicitation/create");
  EXPECT_EQ(context->client_calls[0].params["message"], "Who are you?");
  EXPECT_EQ(context->client_calls[0].params["requestedSchema"]["required"],
            json::parse(R"(["username","email"])"));
}

TEST_F(FixturesTest, Sep1034FormCarriesADefaultForEveryPrimitiveType) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = json::parse(R"({"action":"decline"})");
  auto result = Call("test_elicitation_sep1034_defaults", json::object(), context);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["content"][0]["text"], "Elicitation completed: action=decline, content={}");
  ASSERT_EQ(context->client_calls.size(), 1u);
  const json& properties = context->client_calls[0].params["requestedSchema"]["properties"];
  EXPECT_EQ(properties["name"]["default"], "John Doe");
  EXPECT_EQ(properties["age"]["type"], "integer");
  EXPECT_EQ(properties["age"]["default"], 30);
  EXPECT_EQ(properties["score"]["default"], 95.5);
  EXPECT_EQ(properties["status"]["default"], "active");
  EXPECT_EQ(properties["status"]["enum"], json::parse(R"(["active","inactive","pending"])"));
  EXPECT_EQ(properties["verified"]["default"], true);
}

TEST_F(FixturesTest, Sep1330FormHasEveryEnumVariant) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = json::parse(R"({"action":"cancel"})");
  ASSERT_TRUE(Call("test_elicitation_sep1330_enums", json::object(), context).ok());
  ASSERT_EQ(context->client_calls.size(), 1u);
  const json& p = context->client_calls[0].params["requestedSchema"]["properties"];
  EXPECT_TRUE(p["untitledSingle"].contains("enum"));
  EXPECT_FALSE(p["untitledSingle"].contains("oneOf"));
  EXPECT_EQ(p["titledSingle"]["oneOf"][0],
            json::parse(R"({"const":"value1","title":"First Option"})"));
  EXPECT_EQ(p["legacyEnum"]["enumNames"].size(), p["legacyEnum"]["enum"].size());
  EXPECT_EQ(p["untitledMulti"]["items"]["type"], "string");
  EXPECT_EQ(p["titledMulti"]["type"], "array");
  EXPECT_EQ(p["titledMulti"]["items"]["anyOf"][1]["title"], "Second Choice");
}

TEST_F(FixturesTest, ReadsStaticTemplateAndUnknownResources) {
  Make();
  auto text = Read("test://static-text");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, json::parse(R"({"contents":[{"uri":"test://static-text","mimeType":"text/plain",
            "text":"This is the content of the static text resource."}]})"));

  auto binary = Read("test://static-binary");
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ((*binary)["contents"][0]["mimeType"], "image/png");
  EXPECT_FALSE((*binary)["contents"][0]["blob"].get<std::string>().empty());

  auto templated = Read("test://template/123/data");
  ASSERT_TRUE(templated.ok());
  EXPECT_EQ((*templated)["contents"][0]["uri"], "test://template/123/data");
  EXPECT_EQ((*templated)["contents"][0]["text"],
            R"({"id":"123","templateTest":true,"data":"Data for ID: 123"})");

  EXPECT_FALSE(fixtures_->HandlesUri("test://template//data"));
  EXPECT_FALSE(fixtures_->HandlesUri("test://template/1/2/data"));
  EXPECT_FALSE(fixtures_->HandlesUri("test://nonexistent-resource-for-conformance-testing"));
  EXPECT_EQ(Read("test://nope").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(FixturesTest, ListsResourcesAndTheTemplate) {
  auto& fixtures = Make();
  std::vector<json> resources;
  fixtures.ListResources([&](std::vector<json> items) { resources = std::move(items); });
  EXPECT_THAT(Names(resources, "uri"),
              ElementsAre("test://static-text", "test://static-binary", "test://watched-resource",
                          "test://stateless-static-text"));
  for (const json& resource : resources) EXPECT_FALSE(resource.value("name", "").empty());
  EXPECT_THAT(Names(fixtures.ListResourceTemplates(), "uriTemplate"),
              ElementsAre("test://template/{id}/data"));
}

TEST_F(FixturesTest, WatchedResourceNotifiesSubscribersUntilReleased) {
  auto& fixtures = Make();
  int updates = 0;
  auto handle = fixtures.SubscribeResource("test://watched-resource", [this, &updates] {
    std::lock_guard<std::mutex> lock(mutex_);
    ++updates;
    changed_.notify_all();
  });
  ASSERT_NE(handle, nullptr);
  fixtures.Start();
  ASSERT_TRUE(WaitFor([&] { return updates >= 2; }));

  auto read = Read("test://watched-resource");
  ASSERT_TRUE(read.ok());
  EXPECT_THAT((*read)["contents"][0]["text"].get<std::string>(),
              ::testing::HasSubstr("Watched resource content, revision "));

  handle.reset();
  // Updates run one at a time; once the next one starts, none can still reach the
  // released subscriber.
  const int revision = fixtures.watched_revision();
  while (fixtures.watched_revision() < revision + 1) std::this_thread::yield();
  int after_release;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    after_release = updates;
  }
  // Two more changes happen; the released subscriber hears of neither.
  while (fixtures.watched_revision() < revision + 3) std::this_thread::yield();
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_EQ(updates, after_release);
}

TEST_F(FixturesTest, StaticResourcesAcceptQuietSubscriptions) {
  auto& fixtures = Make();
  EXPECT_NE(fixtures.SubscribeResource("test://static-text", [] {}), nullptr);
  EXPECT_EQ(fixtures.SubscribeResource("test://nope", [] {}), nullptr);
}

TEST_F(FixturesTest, DynamicFixturesAppearWithListChangedNotices) {
  FixtureTimings timings = Fast();
  timings.watch_interval = std::chrono::hours(1);
  auto& fixtures = Make(timings);
  EXPECT_FALSE(fixtures.HasTool("test_dynamic_tool"));
  EXPECT_FALSE(fixtures.HasPrompt("test_dynamic_prompt"));
  EXPECT_FALSE(fixtures.HandlesUri("test://dynamic-resource"));

  fixtures.Start();
  ASSERT_TRUE(WaitFor([&] { return changes_.size() == 3; }));
  EXPECT_THAT(changes_, ElementsAre(ListKind::kTools, ListKind::kResources, ListKind::kPrompts));
  EXPECT_TRUE(fixtures.dynamic_ready());
  EXPECT_THAT(Names(fixtures.ListTools()), Contains("test_dynamic_tool"));
  EXPECT_THAT(Names(fixtures.ListPrompts()), Contains("test_dynamic_prompt"));
  std::vector<json> resources;
  fixtures.ListResources([&](std::vector<json> items) { resources = std::move(items); });
  EXPECT_THAT(Names(resources, "uri"), Contains("test://dynamic-resource"));

  auto result = Call("test_dynamic_tool", json::object());
  ASSERT_TRUE(result.ok());
  EXPECT_TRUE((*result)["content"][0]["text"].is_string());
  EXPECT_TRUE(Read("test://dynamic-resource").ok());
  EXPECT_TRUE(Get("test_dynamic_prompt", json::object()).ok());
}

TEST_F(FixturesTest, PromptsListWithDescriptionsAndArguments) {
  auto& fixtures = Make();
  auto prompts = fixtures.ListPrompts();
  EXPECT_THAT(Names(prompts),
              ElementsAre("test_simple_prompt", "test_prompt_with_arguments",
                          "test_prompt_with_embedded_resource", "test_prompt_with_image",
                          "test_input_required_result_prompt"));
  for (const json& prompt : prompts) EXPECT_FALSE(prompt.value("description", "").empty());
  EXPECT_THAT(Names(prompts[1]["arguments"].get<std::vector<json>>()), ElementsAre("arg1", "arg2"));
  EXPECT_FALSE(fixtures.HasPrompt("test_dynamic_prompt"));
}

TEST_F(FixturesTest, PromptsSubstituteEmbedAndShowImages) {
  Make();
  auto simple = Get("test_simple_prompt", json::object());
  ASSERT_TRUE(simple.ok());
  EXPECT_EQ((*simple)["messages"][0]["role"], "user");
  EXPECT_EQ((*simple)["messages"][0]["content"]["type"], "text");

  auto with_args = Get("test_prompt_with_arguments", {{"arg1", "alpha"}, {"arg2", "beta"}});
  ASSERT_TRUE(with_args.ok());
  EXPECT_EQ((*with_args)["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='alpha', arg2='beta'");
  EXPECT_EQ(Get("test_prompt_with_arguments", {{"arg1", "alpha"}}).status().code(),
            absl::StatusCode::kInvalidArgument);

  auto embedded = Get("test_prompt_with_embedded_resource", {{"resourceUri", "test://x"}});
  ASSERT_TRUE(embedded.ok());
  EXPECT_EQ((*embedded)["messages"][0]["content"]["type"], "resource");
  EXPECT_EQ((*embedded)["messages"][0]["content"]["resource"]["uri"], "test://x");

  auto image = Get("test_prompt_with_image", json::object());
  ASSERT_TRUE(image.ok());
  EXPECT_EQ((*image)["messages"][0]["content"]["type"], "image");
  EXPECT_EQ((*image)["messages"][0]["content"]["mimeType"], "image/png");

  EXPECT_EQ(Get("no_such_prompt", json::object()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(FixturesTest, CompletesPromptArgumentsAndTemplateVariablesByPrefix) {
  auto& fixtures = Make();
  std::vector<std::string> values;
  fixtures.CompletePromptArgument("test_prompt_with_arguments", "arg1", "PAR", json::object(),
                                  [&](std::vector<std::string> v) { values = std::move(v); });
  EXPECT_THAT(values, ElementsAre("paris", "park", "party"));
  fixtures.CompletePromptArgument("test_prompt_with_arguments", "arg9", "", json::object(),
                                  [&](std::vector<std::string> v) { values = std::move(v); });
  EXPECT_TRUE(values.empty());
  fixtures.CompleteResourceArgument("test://template/{id}/data", "id", "1", json::object(),
                                    [&](std::vector<std::string> v) { values = std::move(v); });
  EXPECT_THAT(values, ElementsAre("1", "123"));
}

// ---- The 2026-07-28 fixtures ----

std::set<std::string> Keys(const json& object) {
  std::set<std::string> keys;
  for (const auto& [key, value] : object.items()) {
    (void)value;
    keys.insert(key);
  }
  return keys;
}

TEST_F(FixturesTest, Lists2026ToolsWithDescriptionsAndValidNames) {
  auto& fixtures = Make();
  const auto tools = fixtures.ListTools();
  for (const char* name :
       {"test_missing_capability", "test_input_required_result_elicitation",
        "test_input_required_result_sampling", "test_input_required_result_list_roots",
        "test_input_required_result_request_state", "test_input_required_result_multiple_inputs",
        "test_input_required_result_multi_round", "test_input_required_result_tampered_state",
        "test_input_required_result_capabilities", "test_streaming_elicitation",
        "test_logging_tool", "test_header_param"}) {
    EXPECT_THAT(Names(tools), Contains(name));
    EXPECT_TRUE(fixtures.HasTool(name)) << name;
  }
  const std::regex valid_name("[A-Za-z0-9_.-]{1,128}");
  for (const json& tool : tools) {
    EXPECT_TRUE(std::regex_match(tool.at("name").get<std::string>(), valid_name)) << tool.dump();
    EXPECT_FALSE(tool.value("description", "").empty()) << tool.dump();
  }
  // The same order every time (tools-list-deterministic-order).
  EXPECT_EQ(Names(fixtures.ListTools()), Names(tools));
}

TEST_F(FixturesTest, TriggerToolsAreCallableButNotListed) {
  auto& fixtures = Make();
  for (const char* name : {"test_trigger_tool_change", "test_trigger_prompt_change"}) {
    EXPECT_THAT(Names(fixtures.ListTools()), ::testing::Not(Contains(name)));
    EXPECT_TRUE(fixtures.HasTool(name)) << name;
  }
}

TEST_F(FixturesTest, TriggerToolsReportTheirListChange) {
  Make();
  // Called with empty capabilities, as the suite does: they ask the client nothing.
  auto context = std::make_shared<FakeContext>();
  context->capabilities = json::object();
  auto tools = Call("test_trigger_tool_change", json::object(), context);
  ASSERT_TRUE(tools.ok());
  EXPECT_EQ((*tools)["content"][0]["text"], "Mutation triggered");
  {
    std::lock_guard<std::mutex> lock(mutex_);
    EXPECT_THAT(changes_, ElementsAre(ListKind::kTools));
  }
  auto prompts = Call("test_trigger_prompt_change", json::object(), context);
  ASSERT_TRUE(prompts.ok());
  EXPECT_EQ((*prompts)["content"][0]["text"], "Mutation triggered");
  std::lock_guard<std::mutex> lock(mutex_);
  EXPECT_THAT(changes_, ElementsAre(ListKind::kTools, ListKind::kPrompts));
  EXPECT_TRUE(context->client_calls.empty());
}

TEST_F(FixturesTest, ElicitationRoundTripUsesTheUserNameKey) {
  Make();
  Round r1 = Round2026("test_input_required_result_elicitation");
  ASSERT_TRUE(r1.input_required());
  EXPECT_TRUE(IsInputRequired(r1.outcome.status()));  // the handler finished
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("user_name"));
  EXPECT_EQ(r1.input_requests["user_name"]["method"], "elicitation/create");
  const json& params = r1.input_requests["user_name"]["params"];
  EXPECT_EQ(params["message"], "What is your name?");
  EXPECT_EQ(params["requestedSchema"]["type"], "object");
  EXPECT_EQ(params["requestedSchema"]["properties"]["name"]["type"], "string");
  EXPECT_EQ(params["requestedSchema"]["required"], json::array({"name"}));

  Round r2 = Round2026("test_input_required_result_elicitation", r1.state,
                       {{"user_name", Accept({{"name", "Alice"}})}});
  ASSERT_TRUE(r2.complete()) << r2.outcome.status();
  EXPECT_EQ(r2.text(), "Hello, Alice!");
}

TEST_F(FixturesTest, ElicitationNeedsNoRequestStateAndIgnoresExtraAnswers) {
  Make();
  Round round = Round2026("test_input_required_result_elicitation", json::object(),
                          {{"user_name", Accept({{"name", "Alice"}})},
                           {"unknown_extra_key", Accept({{"foo", "bar"}})},
                           {"another_unexpected", Accept({{"baz", 123}})}});
  ASSERT_TRUE(round.complete()) << round.outcome.status();
  EXPECT_EQ(round.text(), "Hello, Alice!");
}

TEST_F(FixturesTest, ElicitationAsksAgainWhenTheAnswerIsUnderAnotherKey) {
  Make();
  Round round = Round2026("test_input_required_result_elicitation", json::object(),
                          {{"wrong_key", Accept({{"data", "wrong"}})}});
  ASSERT_TRUE(round.input_required());
  EXPECT_THAT(Keys(round.input_requests), ElementsAre("user_name"));
}

TEST_F(FixturesTest, ElicitationRejectsMalformedAnswersAsInvalidParams) {
  Make();
  for (const json& answer :
       {json(12345), json(nullptr), json("Alice"), json::parse(R"({"action":"maybe"})"),
        json::parse(R"({"content":{"name":"Alice"}})"), json::parse(R"({"action":"accept"})"),
        json::parse(R"({"action":"accept","content":{}})"),
        json::parse(R"({"action":"accept","content":{"name":5}})")}) {
    Round round = Round2026("test_input_required_result_elicitation", json::object(),
                            {{"user_name", answer}});
    EXPECT_FALSE(round.complete()) << answer.dump();
    EXPECT_FALSE(round.input_required()) << answer.dump();
    EXPECT_EQ(round.outcome.status().code(), absl::StatusCode::kInvalidArgument) << answer.dump();
  }
}

TEST_F(FixturesTest, ElicitationDeclinedIsAToolError) {
  Make();
  Round round = Round2026("test_input_required_result_elicitation", json::object(),
                          {{"user_name", {{"action", "decline"}}}});
  ASSERT_TRUE(round.complete());
  EXPECT_EQ((*round.outcome)["isError"], true);
}

TEST_F(FixturesTest, SamplingRoundTrip) {
  Make();
  Round r1 = Round2026("test_input_required_result_sampling");
  ASSERT_TRUE(r1.input_required());
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("sample_request"));
  EXPECT_EQ(r1.input_requests["sample_request"]["method"], "sampling/createMessage");
  EXPECT_EQ(r1.input_requests["sample_request"]["params"],
            json::parse(R"({"messages":[{"role":"user","content":{"type":"text",
                "text":"What is the capital of France?"}}],"maxTokens":100})"));

  Round r2 = Round2026("test_input_required_result_sampling", r1.state,
                       {{"sample_request", Sampled("The capital of France is Paris.")}});
  ASSERT_TRUE(r2.complete()) << r2.outcome.status();
  EXPECT_EQ(r2.text(), "Sampling result: The capital of France is Paris.");

  Round bad = Round2026("test_input_required_result_sampling", json::object(),
                        {{"sample_request", {{"content", "Paris"}}}});
  EXPECT_EQ(bad.outcome.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FixturesTest, ListRootsRoundTrip) {
  Make();
  Round r1 = Round2026("test_input_required_result_list_roots");
  ASSERT_TRUE(r1.input_required());
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("roots_request"));
  EXPECT_EQ(r1.input_requests["roots_request"]["method"], "roots/list");
  EXPECT_EQ(r1.input_requests["roots_request"]["params"], json::object());

  Round r2 = Round2026("test_input_required_result_list_roots", r1.state,
                       {{"roots_request", MockRoots()}});
  ASSERT_TRUE(r2.complete()) << r2.outcome.status();
  EXPECT_EQ(r2.text(), "Found 1 root(s)");

  Round bad = Round2026("test_input_required_result_list_roots", json::object(),
                        {{"roots_request", json::parse(R"({"roots":[{"name":"no uri"}]})")}});
  EXPECT_EQ(bad.outcome.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FixturesTest, RequestStateAndTamperedStateToolsConfirm) {
  Make();
  for (const auto& [tool, text] : std::vector<std::pair<std::string, std::string>>{
           {"test_input_required_result_request_state", "state-ok: requestState validated"},
           {"test_input_required_result_tampered_state", "integrity-ok: state verified"}}) {
    Round r1 = Round2026(tool);
    ASSERT_TRUE(r1.input_required()) << tool;
    EXPECT_THAT(Keys(r1.input_requests), ElementsAre("confirm"));
    EXPECT_EQ(r1.input_requests["confirm"]["params"]["requestedSchema"]["properties"]["ok"]["type"],
              "boolean");
    Round r2 = Round2026(tool, r1.state, {{"confirm", Accept({{"ok", true}})}});
    ASSERT_TRUE(r2.complete()) << tool << r2.outcome.status();
    EXPECT_EQ(r2.text(), text);
    Round no = Round2026(tool, r1.state, {{"confirm", Accept({{"ok", false}})}});
    ASSERT_TRUE(no.complete()) << tool;
    EXPECT_EQ((*no.outcome)["isError"], true);
    Round bad = Round2026(tool, r1.state, {{"confirm", Accept({{"ok", "yes"}})}});
    EXPECT_EQ(bad.outcome.status().code(), absl::StatusCode::kInvalidArgument) << tool;
  }
}

TEST_F(FixturesTest, MultipleInputsAskEverythingInOneRound) {
  Make();
  Round r1 = Round2026("test_input_required_result_multiple_inputs");
  ASSERT_TRUE(r1.input_required());
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("client_roots", "greeting", "user_name"));
  EXPECT_EQ(r1.input_requests["user_name"]["method"], "elicitation/create");
  EXPECT_EQ(r1.input_requests["greeting"]["method"], "sampling/createMessage");
  EXPECT_EQ(r1.input_requests["greeting"]["params"]["maxTokens"], 50);
  EXPECT_EQ(r1.input_requests["client_roots"]["method"], "roots/list");

  // Answering part of it asks only for the rest.
  Round partial = Round2026("test_input_required_result_multiple_inputs", r1.state,
                            {{"user_name", Accept({{"name", "Alice"}})}});
  ASSERT_TRUE(partial.input_required());
  EXPECT_THAT(Keys(partial.input_requests), ElementsAre("client_roots", "greeting"));

  Round r2 = Round2026("test_input_required_result_multiple_inputs", r1.state,
                       {{"user_name", Accept({{"name", "Alice"}})},
                        {"greeting", Sampled("Hello there!")},
                        {"client_roots", MockRoots()}});
  ASSERT_TRUE(r2.complete()) << r2.outcome.status();
  EXPECT_EQ(r2.text(), "Name: Alice; Greeting: Hello there!; Roots: 1");
}

TEST_F(FixturesTest, MultiRoundAsksStepTwoOnlyAfterStepOne) {
  Make();
  const std::string tool = "test_input_required_result_multi_round";
  Round r1 = Round2026(tool);
  ASSERT_TRUE(r1.input_required());
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("step1"));
  EXPECT_EQ(r1.input_requests["step1"]["params"]["message"], "Step 1: What is your name?");

  Round r2 = Round2026(tool, r1.state, {{"step1", Accept({{"name", "Alice"}})}});
  ASSERT_TRUE(r2.input_required());
  EXPECT_THAT(Keys(r2.input_requests), ElementsAre("step2"));
  EXPECT_EQ(r2.input_requests["step2"]["params"]["message"],
            "Step 2: What is your favorite color?");
  EXPECT_NE(r2.state, r1.state);  // the carried answers, hence the requestState, differ

  Round r3 = Round2026(tool, r2.state, {{"step2", Accept({{"color", "blue"}})}});
  ASSERT_TRUE(r3.complete()) << r3.outcome.status();
  EXPECT_EQ(r3.text(), "Multi-round complete for Alice who likes blue");

  // Without round two's state, step 1 is asked again: the round is not taken from the keys.
  Round lost = Round2026(tool, json::object(), {{"step2", Accept({{"color", "blue"}})}});
  ASSERT_TRUE(lost.input_required());
  EXPECT_THAT(Keys(lost.input_requests), ElementsAre("step1"));
}

TEST_F(FixturesTest, CapabilitiesToolAsksOnlyForWhatTheClientDeclared) {
  Make();
  const std::string tool = "test_input_required_result_capabilities";
  Round sampling_only =
      Round2026(tool, json::object(), json::object(), {{"sampling", json::object()}});
  ASSERT_TRUE(sampling_only.input_required());
  EXPECT_TRUE(sampling_only.missing.empty());
  EXPECT_THAT(Keys(sampling_only.input_requests), ElementsAre("sample_input"));
  EXPECT_EQ(sampling_only.input_requests["sample_input"]["method"], "sampling/createMessage");

  Round both = Round2026(tool);
  ASSERT_TRUE(both.input_required());
  EXPECT_THAT(Keys(both.input_requests), ElementsAre("elicit_input", "sample_input"));

  Round answered = Round2026(tool, sampling_only.state, {{"sample_input", Sampled("ok")}},
                             {{"sampling", json::object()}});
  ASSERT_TRUE(answered.complete()) << answered.outcome.status();
  EXPECT_EQ(answered.text(), "capabilities-ok: received sample_input");

  Round none = Round2026(tool, json::object(), json::object(), json::object());
  ASSERT_TRUE(none.complete());
  EXPECT_TRUE(none.input_requests.empty());
}

TEST_F(FixturesTest, MissingCapabilityToolNeedsSampling) {
  Make();
  Round undeclared =
      Round2026("test_missing_capability", json::object(), json::object(), json::object());
  EXPECT_THAT(undeclared.missing, ElementsAre("sampling"));  // the request ends as -32021
  EXPECT_TRUE(undeclared.input_requests.empty());

  Round r1 = Round2026("test_missing_capability");
  ASSERT_TRUE(r1.input_required());
  ASSERT_EQ(r1.input_requests.size(), 1u);
  const std::string key = r1.input_requests.begin().key();
  Round r2 = Round2026("test_missing_capability", r1.state, {{key, Sampled("yes")}});
  ASSERT_TRUE(r2.complete()) << r2.outcome.status();
  EXPECT_EQ(r2.text(), "Success");
}

TEST_F(FixturesTest, InputRequiredPromptAsksForContext) {
  auto& fixtures = Make();
  auto prompts = fixtures.ListPrompts();
  ASSERT_THAT(Names(prompts), Contains("test_input_required_result_prompt"));
  EXPECT_TRUE(fixtures.HasPrompt("test_input_required_result_prompt"));

  Round r1 = Round2026("test_input_required_result_prompt", json::object(), json::object(),
                       HarnessCapabilities(), /*prompt=*/true);
  ASSERT_TRUE(r1.input_required());
  EXPECT_THAT(Keys(r1.input_requests), ElementsAre("user_context"));
  EXPECT_EQ(r1.input_requests["user_context"]["params"]["message"],
            "What context should the prompt use?");

  Round r2 = Round2026("test_input_required_result_prompt", r1.state,
                       {{"user_context", Accept({{"context", "test context"}})}},
                       HarnessCapabilities(), /*prompt=*/true);
  ASSERT_TRUE(r2.outcome.ok()) << r2.outcome.status();
  EXPECT_TRUE(r2.input_requests.empty());
  EXPECT_EQ((*r2.outcome)["messages"], json::parse(R"([{"role":"user","content":{"type":"text",
                "text":"Prompt with context: test context"}}])"));

  Round bad = Round2026("test_input_required_result_prompt", json::object(), {{"user_context", 7}},
                        HarnessCapabilities(), /*prompt=*/true);
  EXPECT_EQ(bad.outcome.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(FixturesTest, InputToolsAskRealClientRequestsInTheStatefulEra) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->reply = Accept({{"name", "Alice"}, {"color", "blue"}});
  auto result = Call("test_input_required_result_multi_round", json::object(), context);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ((*result)["content"][0]["text"], "Multi-round complete for Alice who likes blue");
  ASSERT_EQ(context->client_calls.size(), 2u);
  EXPECT_EQ(context->client_calls[0].params["message"], "Step 1: What is your name?");
  EXPECT_EQ(context->client_calls[1].params["message"], "Step 2: What is your favorite color?");

  // A bad or failed answer from a client fails the tool, not the request.
  context->reply = json(12345);
  auto bad = Call("test_input_required_result_elicitation", json::object(), context);
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ((*bad)["isError"], true);
  context->reply = absl::DeadlineExceededError("the client did not answer in time");
  auto failed = Call("test_input_required_result_elicitation", json::object(), context);
  ASSERT_TRUE(failed.ok());
  EXPECT_EQ((*failed)["isError"], true);
}

TEST_F(FixturesTest, StreamingAndLoggingDiagnostics) {
  Make();
  auto context = std::make_shared<FakeContext>();
  context->capabilities = {{"elicitation", json::object()}};
  auto streaming = Call("test_streaming_elicitation", json::object(), context);
  ASSERT_TRUE(streaming.ok());
  EXPECT_EQ((*streaming)["content"][0]["text"], "Streaming complete");
  EXPECT_EQ(context->progress_seen.size(), 1u);
  EXPECT_TRUE(context->client_calls.empty());

  auto logging = Call("test_logging_tool", json::object(), context);
  ASSERT_TRUE(logging.ok());
  EXPECT_EQ((*logging)["content"][0]["text"], "Logging evaluated");
  ASSERT_EQ(context->logs.size(), 1u);
  EXPECT_EQ(context->logs[0].first, "info");
}

TEST_F(FixturesTest, HeaderParamToolDeclaresAndEchoesItsHeaderParameter) {
  auto& fixtures = Make();
  json schema;
  for (const json& tool : fixtures.ListTools()) {
    if (tool["name"] == "test_header_param") schema = tool["inputSchema"];
  }
  ASSERT_TRUE(schema.is_object());
  EXPECT_EQ(schema["properties"]["region"]["type"], "string");
  EXPECT_EQ(schema["properties"]["region"]["x-mcp-header"], "Region");
  auto result = Call("test_header_param", {{"region", "us-west1"}});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ((*result)["content"][0]["text"], "Region: us-west1");
  auto missing = Call("test_header_param", json::object());
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ((*missing)["isError"], true);
}

TEST_F(FixturesTest, ReadsTheStatelessStaticText) {
  Make();
  auto text = Read("test://stateless-static-text");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, json::parse(R"({"contents":[{"uri":"test://stateless-static-text",
            "mimeType":"text/plain","text":"Static text content from the stateless draft path."}]})"));
}

TEST(CreateConformanceFixtures, RegistersAllThreeProviders) {
  boost::asio::io_context io;
  McpServer server;
  auto fixtures = CreateConformanceFixtures(&server, io);
  EXPECT_THAT(server.tools, Contains(static_cast<ToolProvider*>(fixtures.get())));
  EXPECT_THAT(server.resources, Contains(static_cast<ResourceProvider*>(fixtures.get())));
  EXPECT_THAT(server.prompts, Contains(static_cast<PromptProvider*>(fixtures.get())));
}

}  // namespace
}  // namespace labgate::gateway
