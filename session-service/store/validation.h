// Argument checks shared by every SessionStore implementation. They run before a
// request is queued, so a bad request never reaches the database.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

absl::Status ValidateSessionId(const std::string& session_id);
absl::Status ValidateCreate(const CreateSessionParams& params);
absl::Status ValidateAppend(const AppendParams& params);

// A message query's cursor: after_message_id may not be negative.
absl::Status ValidateQuery(const MessageQuery& query);

// 0 means kDefaultLimit; larger than kMaxLimit is clamped; negative is refused.
absl::StatusOr<int32_t> EffectiveLimit(int32_t limit);

// Applies the defaults an append gets: role "tool", normalised features, occurred_at in UTC
// with milliseconds, and empty optional strings treated as absent.
AppendParams NormaliseAppend(AppendParams params);

}  // namespace labgate::session
