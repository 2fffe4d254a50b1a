// A request's right to one reply, as in clangd's ReplyOnce. Move-only: whoever holds it owes
// the client an answer, and tells the request's trace (if any) how it ended. Answering twice is a
// bug (a debug assertion; in release the second answer is dropped). A handle dropped unanswered
// answers -32603, so no request stays in flight forever. Any thread may answer; the dialect's
// delivery decides where it goes.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "absl/functional/any_invocable.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "gateway/core/message_text.h"
#include "gateway/core/request_trace.h"

namespace labgate::gateway {

class ReplyOnce {
 public:
  // Takes one serialized JSON-RPC response; called at most once. It comes in pieces only
  // from ResultText with a shared text.
  using Deliver = absl::AnyInvocable<void(MessageText payload)>;

  ReplyOnce() = default;
  ReplyOnce(std::string raw_id, Deliver deliver);
  ReplyOnce(ReplyOnce&& other) noexcept;
  ReplyOnce& operator=(ReplyOnce&& other) noexcept;
  ReplyOnce(const ReplyOnce&) = delete;
  ReplyOnce& operator=(const ReplyOnce&) = delete;
  ~ReplyOnce();

  // Members merged into every object result (e.g. the 2026 era's resultType and _meta).
  // Existing members win, `_meta` objects are merged, and an input_required result gets no
  // caching hints (ttlMs, cacheScope).
  void SetResultExtras(nlohmann::json extras);
  // The request's trace: told the outcome of the answer, whichever way it goes.
  void SetTrace(SharedTrace trace) { trace_ = std::move(trace); }

  void Result(nlohmann::json result);
  // A result whose JSON object text is already serialized, by labgate itself: its top level
  // has none of the extras' keys, which are spliced in without parsing it again.
  void ResultText(absl::string_view result_text);
  // The same for a text that a cache keeps (not null): without extras the reply shares it rather
  // than copying it (a tool list page is tens of kilobytes).
  void ResultText(std::shared_ptr<const std::string> result_text);
  // "data" is omitted when null.
  void Error(int code, absl::string_view message, const nlohmann::json& data = nullptr);
  // An error coded through common/status_map.
  void Fail(const absl::Status& status);
  // Result or Fail.
  void Finish(absl::StatusOr<nlohmann::json> outcome);

  const std::string& raw_id() const { return raw_id_; }
  bool answered() const { return !deliver_; }
  // True for a live, unanswered handle.
  explicit operator bool() const { return static_cast<bool>(deliver_); }

 private:
  void Send(std::string payload, RequestOutcome outcome);
  void Send(MessageText payload, RequestOutcome outcome);
  void Merge(nlohmann::json& result) const;

  std::string raw_id_ = "null";
  Deliver deliver_;
  nlohmann::json extras_;  // null: none
  SharedTrace trace_;
};

// A ReplyOnce shared by copyable callbacks (std::function); the last copy to go answers
// -32603 if nobody replied.
using SharedReply = std::shared_ptr<ReplyOnce>;
inline SharedReply Share(ReplyOnce reply) { return std::make_shared<ReplyOnce>(std::move(reply)); }

}  // namespace labgate::gateway
