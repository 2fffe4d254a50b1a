// The input-asking fixtures: one elicitation, sampling or roots question, several questions
// at once, two rounds in a row, a capability-aware question, a tool that needs sampling,
// and a prompt that needs context. They keep no state of their own: in the 2026 era the
// answers of earlier rounds come back through labgate's signed requestState, so a fixture
// simply asks again and gets the earlier answer at once.
#include "gateway/conformance/fixture_input_required.h"

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gateway/conformance/fixture_content.h"

namespace labgate::gateway::conformance {

namespace {

using nlohmann::json;

constexpr char kElicit[] = "elicitation/create";
constexpr char kSample[] = "sampling/createMessage";
constexpr char kRoots[] = "roots/list";

json Tool(const std::string& name, const std::string& description) {
  return {{"name", name},
          {"description", description},
          {"inputSchema", {{"type", "object"}, {"properties", json::object()}}}};
}

// One question for the client.
struct Question {
  std::string key;     // its inputRequests key, unique within the request
  std::string method;  // kElicit, kSample or kRoots
  json params;
};

json ElicitParams(const std::string& message, const std::string& field, const std::string& type) {
  return {{"message", message},
          {"requestedSchema",
           {{"type", "object"},
            {"properties", {{field, {{"type", type}}}}},
            {"required", json::array({field})}}}};
}

json SampleParams(const std::string& text, int max_tokens) {
  return {{"messages", json::array({{{"role", "user"}, {"content", TextBlock(text)}}})},
          {"maxTokens", max_tokens}};
}

// The client's answer (or why there is none) to each question, by key.
using Answers = std::map<std::string, absl::StatusOr<json>>;

// Collects the answers to questions asked together; `then` runs once all are in.
class Gather {
 public:
  Gather(size_t questions, std::function<void(Answers)> then)
      : remaining_(questions + 1), then_(std::move(then)) {}

  void Answer(const std::string& key, absl::StatusOr<json> answer) {
    {
      absl::MutexLock lock(&mutex_);
      // A second answer to the same question would count twice; it is dropped.
      if (!answers_.emplace(key, std::move(answer)).second) return;
    }
    Arrive();
  }
  // Once every question has been asked (answers may come before, inside AskClient).
  void Asked() { Arrive(); }

 private:
  void Arrive() {
    std::function<void(Answers)> then;
    Answers answers;
    {
      absl::MutexLock lock(&mutex_);
      if (--remaining_ != 0) return;
      then = std::move(then_);
      answers = std::move(answers_);
    }
    then(std::move(answers));
  }

  absl::Mutex mutex_;
  size_t remaining_ ABSL_GUARDED_BY(mutex_);
  Answers answers_ ABSL_GUARDED_BY(mutex_);
  std::function<void(Answers)> then_ ABSL_GUARDED_BY(mutex_);
};

// Asks every question before waiting for any: the 2026 era must name them all in one
// input_required result. `then` runs on the thread of the last answer, which may be this one.
void AskAll(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
            const std::vector<Question>& questions, std::function<void(Answers)> then) {
  auto gather = std::make_shared<Gather>(questions.size(), std::move(then));
  for (const Question& question : questions) {
    context->AskClient(question.key, question.method, question.params, timeout,
                       [gather, key = question.key](absl::StatusOr<json> answer) {
                         gather->Answer(key, std::move(answer));
                       });
  }
  gather->Asked();
}

// Why some question has no answer: the 2026 era's input-required status first (it must
// reach labgate unchanged, which then ends the request as input_required or -32021), else
// the first failure. Nullopt when every question was answered.
std::optional<absl::Status> Unanswered(const Answers& answers) {
  std::optional<absl::Status> failure;
  for (const auto& [key, answer] : answers) {
    if (answer.ok()) continue;
    if (IsInputRequired(answer.status())) return answer.status();
    if (!failure) {
      failure = absl::Status(
          answer.status().code(),
          absl::StrCat("The client did not answer '", key, "': ", answer.status().message()));
    }
  }
  return failure;
}

// ---- What an answer must look like. The client's answers arrive unvalidated. ----

// A checked answer.
struct Checked {
  std::string action = "accept";  // elicitation: accept, decline or cancel
  json content = json::object();  // elicitation: the accepted form's values
  std::string text;               // sampling: the sampled text
  size_t roots = 0;               // roots/list: how many roots
  bool accepted() const { return action == "accept"; }
};
using CheckedAnswers = std::map<std::string, Checked>;

const char* TypeName(const json& value) { return value.type_name(); }

absl::Status BadAnswer(const std::string& key, const std::string& problem) {
  return absl::InvalidArgumentError(absl::StrCat("the answer to '", key, "' ", problem));
}

bool HasType(const json& value, const std::string& type) {
  if (type == "string") return value.is_string();
  if (type == "boolean") return value.is_boolean();
  if (type == "number") return value.is_number();
  if (type == "integer") {
    if (value.is_number_integer()) return true;
    if (!value.is_number_float()) return false;
    const double number = value.get<double>();
    return std::isfinite(number) && std::floor(number) == number;
  }
  return true;  // the fixtures ask for primitives only
}

// An ElicitResult: action accept (with content that fits the requested schema), decline or
// cancel.
absl::Status CheckElicitation(const std::string& key, const json& answer, const json& params,
                              Checked* checked) {
  if (!answer.is_object()) {
    return BadAnswer(key, absl::StrCat("must be an elicitation result (an object with an action), "
                                       "not ",
                                       TypeName(answer)));
  }
  const auto action = answer.find("action");
  if (action == answer.end() || !action->is_string() ||
      (*action != "accept" && *action != "decline" && *action != "cancel")) {
    return BadAnswer(key, "needs an action: accept, decline or cancel");
  }
  checked->action = action->get<std::string>();
  if (!checked->accepted()) return absl::OkStatus();
  const auto content = answer.find("content");
  if (content == answer.end() || !content->is_object()) {
    return BadAnswer(key, "accepts, so it needs content (an object)");
  }
  const json& schema = params.at("requestedSchema");
  for (const json& field : schema.value("required", json::array())) {
    if (!content->contains(field.get<std::string>())) {
      return BadAnswer(key, absl::StrCat("has no content.", field.get<std::string>()));
    }
  }
  for (const auto& [field, property] : schema.at("properties").items()) {
    const auto value = content->find(field);
    const std::string type = property.value("type", "");
    if (value != content->end() && !HasType(*value, type)) {
      return BadAnswer(
          key, absl::StrCat("has content.", field, " of type ", TypeName(*value), ", not ", type));
    }
  }
  checked->content = *content;
  return absl::OkStatus();
}

// A CreateMessageResult: role and content, one block or (from 2025-11-25) an array of them.
absl::Status CheckSampling(const std::string& key, const json& answer, Checked* checked) {
  if (!answer.is_object()) {
    return BadAnswer(key, absl::StrCat("must be a sampling result (an object with role and "
                                       "content), not ",
                                       TypeName(answer)));
  }
  const auto role = answer.find("role");
  if (role == answer.end() || !role->is_string() || (*role != "assistant" && *role != "user")) {
    return BadAnswer(key, "needs a role: assistant or user");
  }
  const auto content = answer.find("content");
  if (content == answer.end() || !(content->is_object() || content->is_array()) ||
      content->empty()) {
    return BadAnswer(key, "needs content: a content block or an array of them");
  }
  const json blocks = content->is_array() ? *content : json::array({*content});
  std::optional<std::string> text;
  for (const json& block : blocks) {
    if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
      return BadAnswer(key, "has a content block without a type");
    }
    if (block["type"] != "text") continue;
    if (!block.contains("text") || !block["text"].is_string()) {
      return BadAnswer(key, "has a text block without text");
    }
    if (!text) text = block["text"].get<std::string>();
  }
  checked->text = text.value_or("(no text)");
  return absl::OkStatus();
}

// A ListRootsResult: roots, each with a uri.
absl::Status CheckRoots(const std::string& key, const json& answer, Checked* checked) {
  if (!answer.is_object() || !answer.contains("roots") || !answer["roots"].is_array()) {
    return BadAnswer(key, "must be a roots/list result (an object with a roots array)");
  }
  for (const json& root : answer["roots"]) {
    if (!root.is_object() || !root.contains("uri") || !root["uri"].is_string() ||
        root["uri"].get<std::string>().empty()) {
      return BadAnswer(key, "has a root without a uri");
    }
    if (root.contains("name") && !root["name"].is_string()) {
      return BadAnswer(key, "has a root whose name is not a string");
    }
  }
  checked->roots = answer["roots"].size();
  return absl::OkStatus();
}

absl::Status Check(const Question& question, const json& answer, Checked* checked) {
  if (question.method == kElicit) {
    return CheckElicitation(question.key, answer, question.params, checked);
  }
  if (question.method == kSample) return CheckSampling(question.key, answer, checked);
  return CheckRoots(question.key, answer, checked);
}

// ---- Asking, checking, and what a failure becomes ----

enum class Serving { kTool, kPrompt };

// What the handler answers when a question went unanswered or was answered badly.
absl::StatusOr<json> Failed(Serving serving, bool stateless, const absl::Status& status) {
  // Input required passes through: labgate replaces the answer.
  if (IsInputRequired(status) || serving == Serving::kPrompt) return status;
  // In the 2026 era the answers are this request's own params: a bad one is invalid params.
  if (stateless && status.code() == absl::StatusCode::kInvalidArgument) return status;
  // In the stateful era the client failed (or botched) a request of ours: the tool fails.
  return ToolError(std::string(status.message()));
}

using Then = std::function<void(const CheckedAnswers&, JsonDone)>;

// Asks `questions`, checks every answer, and gives `then` the checked answers.
void Ask(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
         Serving serving, std::vector<Question> questions, Then then, JsonDone done) {
  const bool stateless = context->stateless();
  AskAll(context, timeout, questions,
         [serving, stateless, questions, then = std::move(then),
          done = std::move(done)](Answers answers) {
           if (auto status = Unanswered(answers)) {
             return done(Failed(serving, stateless, *status));
           }
           CheckedAnswers checked;
           for (const Question& question : questions) {
             absl::Status status =
                 Check(question, *answers.at(question.key), &checked[question.key]);
             if (!status.ok()) return done(Failed(serving, stateless, status));
           }
           then(checked, done);
         });
}

// A tool's answer when the user declined or cancelled the question `key`.
json Declined(const std::string& key, const Checked& answer) {
  return ToolError(absl::StrCat("The user chose to ", answer.action, " the question '", key, "'"));
}

std::string ContentString(const Checked& answer, const std::string& field) {
  return answer.content.at(field).get<std::string>();
}

// ---- The tools ----

using Handler = std::function<void(const std::shared_ptr<RequestContext>&,
                                   std::chrono::milliseconds, JsonDone)>;

void MissingCapability(const std::shared_ptr<RequestContext>& context,
                       std::chrono::milliseconds timeout, JsonDone done) {
  Ask(
      context, timeout, Serving::kTool,
      {{"capability_check", kSample,
        SampleParams("Reply with one word: this checks that you can sample", 10)}},
      [](const CheckedAnswers&, JsonDone done) { done(TextResult("Success")); }, std::move(done));
}

void Elicitation(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
                 JsonDone done) {
  Ask(
      context, timeout, Serving::kTool,
      {{"user_name", kElicit, ElicitParams("What is your name?", "name", "string")}},
      [](const CheckedAnswers& answers, JsonDone done) {
        const Checked& name = answers.at("user_name");
        if (!name.accepted()) return done(Declined("user_name", name));
        done(TextResult(absl::StrCat("Hello, ", ContentString(name, "name"), "!")));
      },
      std::move(done));
}

void Sampling(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
              JsonDone done) {
  Ask(
      context, timeout, Serving::kTool,
      {{"sample_request", kSample, SampleParams("What is the capital of France?", 100)}},
      [](const CheckedAnswers& answers, JsonDone done) {
        done(TextResult(absl::StrCat("Sampling result: ", answers.at("sample_request").text)));
      },
      std::move(done));
}

void ListRoots(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
               JsonDone done) {
  Ask(
      context, timeout, Serving::kTool, {{"roots_request", kRoots, json::object()}},
      [](const CheckedAnswers& answers, JsonDone done) {
        done(TextResult(absl::StrCat("Found ", answers.at("roots_request").roots, " root(s)")));
      },
      std::move(done));
}

// Asks for a yes/no confirmation under the key "confirm"; `confirmed` is the text on yes.
void Confirm(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
             const std::string& confirmed, JsonDone done) {
  Ask(
      context, timeout, Serving::kTool,
      {{"confirm", kElicit, ElicitParams("Please confirm", "ok", "boolean")}},
      [confirmed](const CheckedAnswers& answers, JsonDone done) {
        const Checked& confirm = answers.at("confirm");
        if (!confirm.accepted()) return done(Declined("confirm", confirm));
        if (confirm.content.at("ok") != true) return done(ToolError("The user did not confirm"));
        done(TextResult(confirmed));
      },
      std::move(done));
}

void RequestState(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
                  JsonDone done) {
  // labgate carries (and signs) the requestState; the answer arriving proves it round-tripped.
  Confirm(context, timeout, "state-ok: requestState validated", std::move(done));
}

void TamperedState(const std::shared_ptr<RequestContext>& context,
                   std::chrono::milliseconds timeout, JsonDone done) {
  // A tampered requestState never gets here: labgate checks its signature first.
  Confirm(context, timeout, "integrity-ok: state verified", std::move(done));
}

void MultipleInputs(const std::shared_ptr<RequestContext>& context,
                    std::chrono::milliseconds timeout, JsonDone done) {
  Ask(
      context, timeout, Serving::kTool,
      {{"user_name", kElicit, ElicitParams("What is your name?", "name", "string")},
       {"greeting", kSample, SampleParams("Generate a greeting", 50)},
       {"client_roots", kRoots, json::object()}},
      [](const CheckedAnswers& answers, JsonDone done) {
        const Checked& name = answers.at("user_name");
        if (!name.accepted()) return done(Declined("user_name", name));
        done(TextResult(absl::StrCat("Name: ", ContentString(name, "name"),
                                     "; Greeting: ", answers.at("greeting").text,
                                     "; Roots: ", answers.at("client_roots").roots)));
      },
      std::move(done));
}

void MultiRound(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
                JsonDone done) {
  // Round two is asked only once round one is answered; in the 2026 era the retry brings
  // the round-one answer back in labgate's requestState.
  Ask(
      context, timeout, Serving::kTool,
      {{"step1", kElicit, ElicitParams("Step 1: What is your name?", "name", "string")}},
      [context, timeout](const CheckedAnswers& first, JsonDone done) {
        const Checked& step1 = first.at("step1");
        if (!step1.accepted()) return done(Declined("step1", step1));
        Ask(
            context, timeout, Serving::kTool,
            {{"step2", kElicit,
              ElicitParams("Step 2: What is your favorite color?", "color", "string")}},
            [name = ContentString(step1, "name")](const CheckedAnswers& second, JsonDone done) {
              const Checked& color = second.at("step2");
              if (!color.accepted()) return done(Declined("step2", color));
              done(TextResult(absl::StrCat("Multi-round complete for ", name, " who likes ",
                                           ContentString(color, "color"))));
            },
            std::move(done));
      },
      std::move(done));
}

void Capabilities(const std::shared_ptr<RequestContext>& context, std::chrono::milliseconds timeout,
                  JsonDone done) {
  // Only what the client declared: asking for more would fail the request (-32021).
  const json& capabilities = context->client_capabilities();
  std::vector<Question> questions;
  if (capabilities.is_object() && capabilities.contains("elicitation")) {
    questions.push_back(
        {"elicit_input", kElicit, ElicitParams("Elicitation input", "value", "string")});
  }
  if (capabilities.is_object() && capabilities.contains("sampling")) {
    questions.push_back({"sample_input", kSample, SampleParams("Sample request", 50)});
  }
  if (questions.empty()) {
    return done(TextResult("No supported capabilities declared: there is nothing to ask"));
  }
  Ask(
      context, timeout, Serving::kTool, std::move(questions),
      [](const CheckedAnswers& answers, JsonDone done) {
        std::string keys;
        for (const auto& [key, answer] : answers) {
          (void)answer;
          absl::StrAppend(&keys, keys.empty() ? "" : ",", key);
        }
        done(TextResult(absl::StrCat("capabilities-ok: received ", keys)));
      },
      std::move(done));
}

const std::map<std::string, Handler>& ToolHandlers() {
  static const std::map<std::string, Handler> handlers = {
      {"test_missing_capability", MissingCapability},
      {"test_input_required_result_elicitation", Elicitation},
      {"test_input_required_result_sampling", Sampling},
      {"test_input_required_result_list_roots", ListRoots},
      {"test_input_required_result_request_state", RequestState},
      {"test_input_required_result_multiple_inputs", MultipleInputs},
      {"test_input_required_result_multi_round", MultiRound},
      {"test_input_required_result_tampered_state", TamperedState},
      {"test_input_required_result_capabilities", Capabilities},
  };
  return handlers;
}

constexpr char kContextPrompt[] = "test_input_required_result_prompt";

}  // namespace

const std::vector<json>& InputRequiredTools() {
  static const std::vector<json> tools = {
      Tool("test_missing_capability", "Test tool requiring sampling"),
      Tool("test_input_required_result_elicitation",
           "MRTR: returns InputRequiredResult with elicitation request"),
      Tool("test_input_required_result_sampling",
           "MRTR: returns InputRequiredResult with sampling request"),
      Tool("test_input_required_result_list_roots",
           "MRTR: returns InputRequiredResult with roots/list request"),
      Tool("test_input_required_result_request_state",
           "MRTR: returns InputRequiredResult with requestState"),
      Tool("test_input_required_result_multiple_inputs",
           "MRTR: returns InputRequiredResult with multiple input requests"),
      Tool("test_input_required_result_multi_round",
           "MRTR: multi-round InputRequiredResult workflow"),
      Tool("test_input_required_result_tampered_state",
           "MRTR: HMAC-signed requestState integrity test"),
      Tool("test_input_required_result_capabilities",
           "MRTR: respects client capabilities in inputRequests"),
  };
  return tools;
}

bool CallInputRequiredTool(const std::string& name, const std::shared_ptr<RequestContext>& context,
                           std::chrono::milliseconds timeout, JsonDone& done) {
  const auto& handlers = ToolHandlers();
  auto handler = handlers.find(name);
  if (handler == handlers.end()) return false;
  handler->second(context, timeout, std::move(done));
  return true;
}

const std::vector<json>& InputRequiredPrompts() {
  static const std::vector<json> prompts = {
      {{"name", kContextPrompt}, {"description", "MRTR: prompt that requires elicitation input"}},
  };
  return prompts;
}

bool GetInputRequiredPrompt(const std::string& name, const std::shared_ptr<RequestContext>& context,
                            std::chrono::milliseconds timeout, JsonDone& done) {
  if (name != kContextPrompt) return false;
  Ask(
      context, timeout, Serving::kPrompt,
      {{"user_context", kElicit,
        ElicitParams("What context should the prompt use?", "context", "string")}},
      [](const CheckedAnswers& answers, JsonDone done) {
        const Checked& answer = answers.at("user_context");
        const std::string text =
            answer.accepted()
                ? absl::StrCat("Prompt with context: ", ContentString(answer, "context"))
                : absl::StrCat("Prompt without context (the user chose to ", answer.action, ")");
        done(json{{"messages", json::array({{{"role", "user"}, {"content", TextBlock(text)}}})}});
      },
      std::move(done));
  return true;
}

}  // namespace labgate::gateway::conformance
