#include "session-service/store/validation.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "common/time_format.h"
#include "session-service/store/feature_tags.h"

namespace labgate::session {

absl::Status ValidateSessionId(const std::string& session_id) {
  if (session_id.empty()) return absl::InvalidArgumentError("session_id is required");
  return absl::OkStatus();
}

absl::Status ValidateQuery(const MessageQuery& query) {
  if (query.after_message_id < 0) {
    return absl::InvalidArgumentError("after_message_id must be 0 or a message id, not negative");
  }
  return absl::OkStatus();
}

absl::Status ValidateCreate(const CreateSessionParams& params) {
  if (params.device_id.empty()) return absl::InvalidArgumentError("device_id is required");
  return absl::OkStatus();
}

absl::Status ValidateAppend(const AppendParams& params) {
  if (absl::Status status = ValidateSessionId(params.session_id); !status.ok()) return status;
  if (params.content.empty()) return absl::InvalidArgumentError("content is required");
  if (params.content.size() > kMaxContentBytes) {
    return absl::InvalidArgumentError(absl::StrCat("content is ", params.content.size(),
                                                   " bytes; the limit is ", kMaxContentBytes,
                                                   " bytes (1 MiB)"));
  }
  if (params.idempotency_key.has_value() &&
      params.idempotency_key->size() > kMaxIdempotencyKeyBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("idempotency_key is ", params.idempotency_key->size(), " bytes; the limit is ",
                     kMaxIdempotencyKeyBytes, " bytes"));
  }
  if (params.latency_ms.has_value() && *params.latency_ms < 0) {
    return absl::InvalidArgumentError("latency_ms must not be negative");
  }
  if (params.occurred_at.has_value() && !params.occurred_at->empty()) {
    absl::Time parsed;
    std::string why;
    if (!absl::ParseTime(absl::RFC3339_full, *params.occurred_at, &parsed, &why)) {
      return absl::InvalidArgumentError(
          absl::StrCat("occurred_at \"", *params.occurred_at, "\" is not an RFC 3339 time: ", why));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int32_t> EffectiveLimit(int32_t limit) {
  if (limit < 0) return absl::InvalidArgumentError("limit must not be negative");
  if (limit == 0) return kDefaultLimit;
  return limit > kMaxLimit ? kMaxLimit : limit;
}

AppendParams NormaliseAppend(AppendParams params) {
  if (params.role.empty()) params.role = "tool";
  if (params.direction.has_value() && params.direction->empty()) params.direction.reset();
  if (params.idempotency_key.has_value() && params.idempotency_key->empty()) {
    params.idempotency_key.reset();
  }
  if (params.occurred_at.has_value()) {
    absl::Time parsed;
    if (params.occurred_at->empty() ||
        !absl::ParseTime(absl::RFC3339_full, *params.occurred_at, &parsed, nullptr)) {
      params.occurred_at.reset();
    } else {
      params.occurred_at = FormatRfc3339(absl::ToChronoTime(parsed));
    }
  }
  if (params.features.has_value()) {
    std::string joined = JoinFeatureTags(NormaliseFeatureTags(*params.features));
    if (joined.empty()) {
      params.features.reset();
    } else {
      params.features = std::move(joined);
    }
  }
  return params;
}

}  // namespace labgate::session
