#include "gateway/core/reply_once.h"

#include <cassert>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "common/status_map.h"
#include "gateway/jsonrpc/message.h"

namespace labgate::gateway {

using nlohmann::json;

ReplyOnce::ReplyOnce(std::string raw_id, Deliver deliver)
    : raw_id_(raw_id.empty() ? "null" : std::move(raw_id)), deliver_(std::move(deliver)) {}

ReplyOnce::ReplyOnce(ReplyOnce&& other) noexcept
    : raw_id_(std::move(other.raw_id_)),
      deliver_(std::move(other.deliver_)),
      extras_(std::move(other.extras_)),
      trace_(std::move(other.trace_)) {
  other.deliver_ = nullptr;
}

ReplyOnce& ReplyOnce::operator=(ReplyOnce&& other) noexcept {
  if (this != &other) {
    if (deliver_) {
      Error(jsonrpc_code::kInternalError, "internal error: the request was dropped unanswered");
    }
    raw_id_ = std::move(other.raw_id_);
    deliver_ = std::move(other.deliver_);
    extras_ = std::move(other.extras_);
    trace_ = std::move(other.trace_);
    other.deliver_ = nullptr;
  }
  return *this;
}

ReplyOnce::~ReplyOnce() {
  if (deliver_) {
    LG_LOG(kWarning) << "request " << raw_id_ << " was dropped without a reply; answering -32603";
    Error(jsonrpc_code::kInternalError, "internal error: the request was dropped unanswered");
  }
}

void ReplyOnce::SetResultExtras(json extras) { extras_ = std::move(extras); }

void ReplyOnce::Merge(json& result) const {
  if (extras_.is_null() || !result.is_object()) return;
  const bool input_required = result.value("resultType", std::string()) == "input_required";
  for (const auto& [key, value] : extras_.items()) {
    if (input_required && (key == "ttlMs" || key == "cacheScope")) continue;
    if (key == "_meta" && value.is_object()) {
      json& meta = result["_meta"];
      if (!meta.is_object()) meta = json::object();
      for (const auto& [meta_key, meta_value] : value.items()) {
        if (!meta.contains(meta_key)) meta[meta_key] = meta_value;
      }
      continue;
    }
    if (!result.contains(key)) result[key] = value;
  }
}

void ReplyOnce::Result(json result) {
  Merge(result);
  RequestOutcome outcome = RequestOutcome::Ok();
  if (trace_ && result.is_object()) {
    if (auto it = result.find("isError"); it != result.end() && *it == true) {
      outcome = RequestOutcome::ToolError();
    } else if (auto kind = result.find("resultType");
               kind != result.end() && *kind == "input_required") {
      outcome = RequestOutcome::InputRequired();
    }
  }
  Send(jsonrpc::MakeResult(raw_id_, result), outcome);
}

void ReplyOnce::ResultText(absl::string_view result_text) {
  std::string payload;
  // Sized once: a cached tool list is tens of kilobytes, and growing into it copies it again.
  payload.reserve(64 + raw_id_.size() + result_text.size() + (extras_.is_null() ? 0 : 512));
  payload += "{\"jsonrpc\":\"2.0\",\"id\":";
  payload += raw_id_;
  payload += ",\"result\":";
  const size_t close = result_text.rfind('}');
  if (!extras_.is_null() && extras_.is_object() && !extras_.empty() &&
      close != absl::string_view::npos) {
    // Spliced in as text: a cached result is not parsed again just to gain a few members.
    const bool empty_object = result_text.find_first_not_of(" \t\r\n{") == close;
    payload.append(result_text.data(), close);
    bool first = empty_object;
    for (const auto& [key, value] : extras_.items()) {
      if (!first) payload += ',';
      first = false;
      payload += jsonrpc::DumpJson(json(key));
      payload += ':';
      payload += jsonrpc::DumpJson(value);
    }
    payload.append(result_text.data() + close, result_text.size() - close);
  } else {
    payload.append(result_text.data(), result_text.size());
  }
  payload += "}";
  Send(std::move(payload), RequestOutcome::Ok());
}

void ReplyOnce::ResultText(std::shared_ptr<const std::string> result_text) {
  if (!extras_.is_null()) return ResultText(absl::string_view(*result_text));
  std::string head;
  head.reserve(32 + raw_id_.size());
  head += "{\"jsonrpc\":\"2.0\",\"id\":";
  head += raw_id_;
  head += ",\"result\":";
  Send(MessageText(std::move(head), std::move(result_text), "}"), RequestOutcome::Ok());
}

void ReplyOnce::Error(int code, absl::string_view message, const json& data) {
  Send(jsonrpc::MakeError(raw_id_, code, std::string_view(message.data(), message.size()), data),
       RequestOutcome::Error(code));
}

void ReplyOnce::Fail(const absl::Status& status) {
  const int code = MappingFor(status.code()).jsonrpc_code;
  Send(jsonrpc::MakeError(raw_id_, code,
                          std::string_view(status.message().data(), status.message().size())),
       status.code() == absl::StatusCode::kCancelled ? RequestOutcome{"cancelled", code}
                                                     : RequestOutcome::Error(code));
}

void ReplyOnce::Finish(absl::StatusOr<json> outcome) {
  if (outcome.ok()) return Result(*std::move(outcome));
  Fail(outcome.status());
}

void ReplyOnce::Send(std::string payload, RequestOutcome outcome) {
  Send(MessageText(std::move(payload)), outcome);
}

void ReplyOnce::Send(MessageText payload, RequestOutcome outcome) {
  assert(deliver_ && "a request was answered twice");
  if (!deliver_) return;
  Deliver deliver = std::move(deliver_);
  deliver_ = nullptr;
  // Noted before delivery, which may override it (and holds the trace if it needs to).
  SharedTrace trace = std::move(trace_);
  if (trace) trace->Answered(outcome);
  deliver(std::move(payload));
}

}  // namespace labgate::gateway
