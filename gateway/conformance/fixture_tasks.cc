#include "gateway/conformance/fixture_tasks.h"

#include <atomic>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <mutex>
#include <utility>

#include "absl/strings/str_cat.h"

namespace labgate::gateway {

using nlohmann::json;

namespace {

json Text(const std::string& text) {
  return {{"content", json::array({{{"type", "text"}, {"text", text}}})}};
}

json Tool(const std::string& name, const std::string& description, json properties,
          TaskSupport support) {
  json tool = {{"name", name},
               {"description", description},
               {"inputSchema", {{"type", "object"}, {"properties", std::move(properties)}}}};
  if (support != TaskSupport::kForbidden) {
    tool["execution"] = {{"taskSupport", TaskSupportName(support)}};
  }
  return tool;
}

json Confirmation(const std::string& message, const char* field, const char* type) {
  return {{"message", message},
          {"requestedSchema",
           {{"type", "object"},
            {"properties", {{field, {{"type", type}}}}},
            {"required", json::array({field})}}}};
}

// The accepted content of an elicitation answer, or null.
json AcceptedContent(const json& answer) {
  if (!answer.is_object() || answer.value("action", "") != "accept") return nullptr;
  return answer.value("content", json::object());
}

}  // namespace

std::vector<json> TaskFixtures::ListTools() const {
  return {
      Tool("greet", "Greets someone; never a task", {{"name", {{"type", "string"}}}},
           TaskSupport::kForbidden),
      Tool("slow_compute", "Waits `seconds`, then answers; a task when the client allows",
           {{"seconds", {{"type", "number"}}}, {"label", {{"type", "string"}}}},
           TaskSupport::kOptional),
      Tool("failing_job", "A task whose tool result is an error", json::object(),
           TaskSupport::kRequired),
      Tool("protocol_error_job", "A task that fails with a protocol error", json::object(),
           TaskSupport::kRequired),
      Tool("confirm_delete", "Asks the person to confirm before it deletes (a task)",
           {{"filename", {{"type", "string"}}}}, TaskSupport::kRequired),
      Tool("multi_input", "Asks two questions at once (a task)", json::object(),
           TaskSupport::kRequired),
      Tool("test_tool_with_task", "Asks for user_name in the request, then runs as a task",
           json::object(), TaskSupport::kRequired),
  };
}

bool TaskFixtures::HasTool(const std::string& name) const {
  for (const json& tool : ListTools()) {
    if (tool["name"] == name) return true;
  }
  return false;
}

TaskSupport TaskFixtures::TaskSupportOf(const std::string& name) const {
  if (name == "greet") return TaskSupport::kForbidden;
  if (name == "slow_compute") return TaskSupport::kOptional;
  return TaskSupport::kRequired;
}

bool TaskFixtures::RunsLong(const std::string& name, const json& arguments) const {
  // An instant computation is answered at once, as labgate answers short calls.
  return name == "slow_compute" && arguments.value("seconds", 0.0) > 0;
}

void TaskFixtures::BeforeTask(const std::string& name, const json& arguments,
                              const std::shared_ptr<RequestContext>& context,
                              const JsonDone& done) {
  if (name != "test_tool_with_task") return done(arguments);
  // Asked within the request (input_required), before any task exists.
  context->AskClient(
      "user_name", "elicitation/create", Confirmation("What is your name?", "name", "string"),
      std::chrono::seconds(60), [arguments, done](absl::StatusOr<json> answer) {
        if (!answer.ok()) return done(answer.status());
        json with_name = arguments;
        const json content = AcceptedContent(*answer);
        with_name["name"] =
            content.is_object() ? content.value("name", content.value("user_name", "")) : "";
        done(with_name);
      });
}

void TaskFixtures::After(std::chrono::milliseconds delay,
                         const std::shared_ptr<RequestContext>& context, const json& result,
                         ToolDone done) {
  struct Pending {
    explicit Pending(boost::asio::io_context& io) : timer(io) {}
    boost::asio::steady_timer timer;
    std::once_flag answered;
  };
  auto pending = std::make_shared<Pending>(io_);
  auto finish = [pending, done](absl::StatusOr<ToolResult> outcome) {
    std::call_once(pending->answered, [&] { done(std::move(outcome)); });
  };
  context->OnCancel([pending, finish] {
    boost::asio::post(pending->timer.get_executor(), [pending] { pending->timer.cancel(); });
    finish(absl::CancelledError("cancelled"));
  });
  pending->timer.expires_after(delay);
  pending->timer.async_wait([finish, result](const boost::system::error_code& error) {
    if (!error) finish(ToolResult(result));
  });
}

void TaskFixtures::CallTool(const std::string& name, const json& arguments,
                            std::shared_ptr<RequestContext> context, ToolDone done) {
  if (name == "greet") {
    return done(ToolResult(Text(absl::StrCat("Hello, ", arguments.value("name", "World"), "!"))));
  }
  if (name == "slow_compute") {
    const double seconds = arguments.value("seconds", 0.0);
    json result =
        Text(absl::StrCat("computed '", arguments.value("label", ""), "' in ", seconds, " s"));
    if (seconds <= 0) return done(ToolResult(std::move(result)));
    return After(std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)), context, result,
                 std::move(done));
  }
  if (name == "failing_job") {
    json result = Text("the job failed: the instrument did not answer");
    result["isError"] = true;
    return After(std::chrono::milliseconds(200), context, result, std::move(done));
  }
  if (name == "protocol_error_job") {
    return done(absl::InternalError("the job failed with a protocol error"));
  }
  if (name == "test_tool_with_task") {
    return done(ToolResult(Text(absl::StrCat("Hello, ", arguments.value("name", ""), "!"))));
  }
  if (name == "confirm_delete") {
    const std::string filename = arguments.value("filename", "");
    return context->AskClient(
        "confirm", "elicitation/create",
        Confirmation(absl::StrCat("Delete ", filename, "?"), "confirm", "boolean"),
        std::chrono::seconds(60), [filename, done](absl::StatusOr<json> answer) {
          if (!answer.ok()) return done(answer.status());
          const json content = AcceptedContent(*answer);
          const bool confirmed = content.is_object() && content.value("confirm", false);
          done(ToolResult(
              Text(confirmed ? absl::StrCat("deleted ", filename) : "nothing was deleted")));
        });
  }
  if (name == "multi_input") {
    // Both questions are outstanding together; the answer comes once both are in.
    struct Answers {
      std::mutex mutex;
      int pending = 2;
      json names = json::array();
    };
    auto answers = std::make_shared<Answers>();
    for (const char* key : {"first", "second"}) {
      context->AskClient(
          key, "elicitation/create",
          Confirmation(absl::StrCat("The ", key, " name?"), "name", "string"),
          std::chrono::seconds(60), [answers, done](absl::StatusOr<json> answer) {
            std::lock_guard<std::mutex> lock(answers->mutex);
            if (answers->pending <= 0) return;
            if (!answer.ok()) {
              answers->pending = 0;
              return done(answer.status());
            }
            const json content = AcceptedContent(*answer);
            answers->names.push_back(content.is_object() ? content.value("name", "") : "");
            if (--answers->pending == 0) {
              done(ToolResult(Text(absl::StrCat("got ", answers->names.dump()))));
            }
          });
    }
    return;
  }
  done(absl::NotFoundError(absl::StrCat("Unknown tool: ", name)));
}

}  // namespace labgate::gateway
