// A task as the session store keeps it: one JSON object, with what tasks/get never shows (its
// owner, every input key it ever issued) and its times as Unix milliseconds, so a restart
// restores it exactly.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "session-service/store/session_store.h"
#include "session-service/tasks/task_book.h"

namespace labgate::session {

std::string TaskToStoredJson(const Task& task);
// INVALID_ARGUMENT naming what is missing or malformed.
absl::StatusOr<Task> TaskFromStoredJson(const std::string& text);
// The row the store keeps for `task`: expiring at creation + ttl, or far in the future.
TaskRow TaskToRow(const Task& task);

}  // namespace labgate::session
