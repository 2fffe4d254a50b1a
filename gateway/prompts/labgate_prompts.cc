#include "gateway/prompts/labgate_prompts.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace labgate::gateway {

using nlohmann::json;

namespace {

constexpr char kInstrumentSession[] = "instrument_session";
constexpr char kTranscriptSummary[] = "transcript_summary";

json UserText(const std::string& text) {
  return {{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}};
}

// A string argument: absent is "", a non-string is an error naming it.
absl::StatusOr<std::string> StringArgument(const json& arguments, const std::string& name,
                                           bool required) {
  auto it = arguments.find(name);
  if (it == arguments.end() || it->is_null() ||
      (it->is_string() && it->get<std::string>().empty())) {
    if (required)
      return absl::InvalidArgumentError(absl::StrCat("missing required argument '", name, "'"));
    return std::string();
  }
  if (!it->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("argument '", name, "' must be a string"));
  }
  return it->get<std::string>();
}

}  // namespace

std::vector<json> LabgatePrompts::ListPrompts() const {
  return {
      {{"name", kInstrumentSession},
       {"title", "Guided instrument session"},
       {"description",
        "Open a serial port, identify the instrument with *IDN?, and log every exchange to a "
        "new session transcript."},
       {"arguments",
        {{{"name", "port_name"},
          {"description", "Serial port, e.g. /dev/ttyUSB0 or loop://"},
          {"required", true}},
         {{"name", "baud_rate"}, {"description", "Baud rate (default 9600)"}, {"required", false}},
         {{"name", "device_id"},
          {"description", "Name to file the transcript under"},
          {"required", false}}}}},
      {{"name", kTranscriptSummary},
       {"title", "Summarize a transcript"},
       {"description",
        "Summarize what happened in one session: commands, replies, errors, timing."},
       {"arguments",
        {{{"name", "session_id"}, {"description", "Session UUID"}, {"required", true}}}}},
  };
}

bool LabgatePrompts::HasPrompt(const std::string& name) const {
  return name == kInstrumentSession || name == kTranscriptSummary;
}

void LabgatePrompts::GetPrompt(const std::string& name, const json& arguments,
                               std::shared_ptr<RequestContext> context, JsonDone done) {
  if (name == kInstrumentSession) {
    auto port = StringArgument(arguments, "port_name", true);
    if (!port.ok()) return done(port.status());
    auto baud_text = StringArgument(arguments, "baud_rate", false);
    if (!baud_text.ok()) return done(baud_text.status());
    int baud = 9600;
    if (!baud_text->empty() &&
        (!absl::SimpleAtoi(*baud_text, &baud) || baud < 1 || baud > 4000000)) {
      return done(absl::InvalidArgumentError(
          "argument 'baud_rate' must be a whole number from 1 to 4000000"));
    }
    auto device = StringArgument(arguments, "device_id", false);
    if (!device.ok()) return done(device.status());
    std::string device_id = device->empty() ? *port : *device;
    std::string text = absl::StrCat(
        "Work with the instrument on serial port ", *port, " and keep a transcript.\n",
        "1. create_session {device_id: \"", device_id, "\", port_name: \"", *port, "\"}.\n",
        "2. open_port {port_name: \"", *port, "\", baud_rate: ", baud,
        ", terminator: \"\\n\", timeout_ms: 1000}.\n",
        "3. write {data: \"*IDN?\"} then read {}; append both to the session "
        "(role user / device, direction tx / rx, features \"scpi,idn\").\n",
        "4. Tell me what instrument answered, then wait for my instructions. Log every further "
        "command and reply the same way; if a read times out, say so rather than guessing.\n",
        "5. When I am done: close the port and close_session.");
    return done(json{{"description", absl::StrCat("Guided session on ", *port)},
                     {"messages", json::array({UserText(text)})}});
  }
  auto session_id = StringArgument(arguments, "session_id", true);
  if (!session_id.ok()) return done(session_id.status());
  std::string uri = absl::StrCat("labgate://sessions/", *session_id);
  resources_->ReadResource(
      uri, std::move(context),
      [uri, id = *session_id, done = std::move(done)](absl::StatusOr<json> read) {
        if (!read.ok()) {
          if (read.status().code() == absl::StatusCode::kNotFound) {
            return done(absl::InvalidArgumentError(absl::StrCat("no session '", id, "'")));
          }
          return done(read.status());
        }
        json resource = (*read)["contents"][0];
        done(json{{"description", absl::StrCat("Summary of session ", id)},
                  {"messages",
                   json::array({UserText("Summarize this lab session transcript: the device, what "
                                         "was asked and answered, any errors or timeouts, and "
                                         "anything left unfinished. Quote message ids."),
                                {{"role", "user"},
                                 {"content", {{"type", "resource"}, {"resource", resource}}}}})}});
      });
}

void LabgatePrompts::CompletePromptArgument(const std::string& prompt, const std::string& argument,
                                            const std::string& value, const json& context_arguments,
                                            StringsDone done) {
  if ((prompt == kTranscriptSummary && argument == "session_id") ||
      (prompt == kInstrumentSession && argument == "port_name")) {
    return resources_->CompleteResourceArgument("", argument, value, context_arguments,
                                                std::move(done));
  }
  if (prompt == kInstrumentSession && argument == "baud_rate") {
    std::vector<std::string> rates;
    for (const char* rate :
         {"9600", "19200", "38400", "57600", "115200", "230400", "460800", "921600"}) {
      if (std::string(rate).rfind(value, 0) == 0) rates.push_back(rate);
    }
    return done(rates);
  }
  done({});
}

}  // namespace labgate::gateway
