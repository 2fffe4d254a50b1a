// Forward-only schema migrations. The version lives in PRAGMA user_version; migration
// N takes the schema from version N-1 to N inside its own transaction.
#pragma once

#include "absl/status/status.h"
#include "session-service/store/sqlite_db.h"

namespace labgate::session {

// The newest schema this build knows.
int LatestSchemaVersion();

// Reads PRAGMA user_version.
absl::StatusOr<int> SchemaVersion(SqliteConnection& db);

// Applies every migration after the current version, up to `target_version`
// (LatestSchemaVersion() in production; tests pass older targets to build old
// databases). A database newer than this build is refused with FAILED_PRECONDITION.
absl::Status MigrateSchema(SqliteConnection& db, int target_version);

}  // namespace labgate::session
