// Helpers for store tests: a temporary data directory and blocking wrappers around the
// asynchronous SessionStore, so tests read top to bottom.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "session-service/store/sqlite_session_store.h"

namespace labgate::session::testing {

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "labgate-session-test-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Calls `start(done)` and waits for `done`.
template <typename T, typename Start>
absl::StatusOr<T> Await(Start&& start) {
  auto promise = std::make_shared<std::promise<absl::StatusOr<T>>>();
  std::future<absl::StatusOr<T>> future = promise->get_future();
  start([promise](absl::StatusOr<T> result) { promise->set_value(std::move(result)); });
  return future.get();
}

inline std::unique_ptr<SqliteSessionStore> OpenStore(const std::string& data_dir,
                                                     int busy_timeout_ms = 5000) {
  SqliteSessionStoreOptions options;
  options.data_dir = data_dir;
  options.busy_timeout_ms = busy_timeout_ms;
  absl::StatusOr<std::unique_ptr<SqliteSessionStore>> store = SqliteSessionStore::Open(options);
  EXPECT_TRUE(store.ok()) << store.status();
  return store.ok() ? std::move(*store) : nullptr;
}

// Blocking facade over one store.
class SyncStore {
 public:
  explicit SyncStore(SessionStore* store) : store_(store) {}

  absl::StatusOr<SessionRecord> Create(std::string device_id, std::string port_name = "") {
    return Await<SessionRecord>([&](auto done) {
      store_->CreateSession({std::move(device_id), std::move(port_name)}, done);
    });
  }
  absl::StatusOr<SessionRecord> Close(std::string id) {
    return Await<SessionRecord>([&](auto done) { store_->CloseSession(std::move(id), done); });
  }
  absl::StatusOr<SessionRecord> Get(std::string id) {
    return Await<SessionRecord>([&](auto done) { store_->GetSession(std::move(id), done); });
  }
  absl::StatusOr<MessageRecord> Append(AppendParams params) {
    return Await<MessageRecord>([&](auto done) { store_->AppendMessage(std::move(params), done); });
  }
  absl::StatusOr<MessageRecord> Append(const std::string& session_id, std::string content,
                                       std::optional<std::string> features = std::nullopt,
                                       std::string role = "") {
    AppendParams params;
    params.session_id = session_id;
    params.content = std::move(content);
    params.features = std::move(features);
    params.role = std::move(role);
    return Append(std::move(params));
  }
  absl::StatusOr<MessagePage> Query(MessageQuery query) {
    return Await<MessagePage>([&](auto done) { store_->QueryMessages(std::move(query), done); });
  }
  absl::StatusOr<MessagePage> List(const std::string& session_id, int32_t limit = 0,
                                   int64_t after = 0) {
    MessageQuery query;
    query.session_id = session_id;
    query.limit = limit;
    query.after_message_id = after;
    return Query(std::move(query));
  }
  absl::StatusOr<std::vector<SessionRecord>> Sessions(bool include_closed, int32_t limit = 0) {
    return Await<std::vector<SessionRecord>>([&](auto done) {
      store_->ListSessions({include_closed, limit}, done);
    });
  }
  absl::StatusOr<SessionExportRecord> Export(std::string id) {
    return Await<SessionExportRecord>(
        [&](auto done) { store_->ExportSession(std::move(id), done); });
  }
  absl::StatusOr<std::map<std::string, int64_t>> Features(std::string id) {
    return Await<std::map<std::string, int64_t>>(
        [&](auto done) { store_->FeatureIndex(std::move(id), done); });
  }
  absl::StatusOr<SessionStatsRecord> Stats(std::string id) {
    return Await<SessionStatsRecord>([&](auto done) { store_->SessionStats(std::move(id), done); });
  }

 private:
  SessionStore* store_;
};

}  // namespace labgate::session::testing
