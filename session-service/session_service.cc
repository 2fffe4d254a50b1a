#include "session-service/session_service.h"

#include <utility>

#include "session-service/store/sqlite_session_store.h"

namespace labgate::session {

absl::StatusOr<std::unique_ptr<SessionGrpcService>> CreateSessionService(
    const SessionServiceOptions& options) {
  SqliteSessionStoreOptions store_options;
  store_options.data_dir = options.data_dir;
  store_options.busy_timeout_ms = options.busy_timeout_ms;
  store_options.reader_threads = options.reader_threads;
  absl::StatusOr<std::unique_ptr<SqliteSessionStore>> store =
      SqliteSessionStore::Open(store_options);
  if (!store.ok()) return store.status();
  return std::make_unique<SessionGrpcService>(std::move(*store));
}

absl::StatusOr<std::unique_ptr<ReservationGrpcService>> CreateReservationService(
    SessionGrpcService& sessions, CallerAuthOptions auth, std::set<std::string> operators,
    ReservationLimits limits) {
  ReservationDeskOptions options;
  options.limits = limits;
  absl::StatusOr<std::unique_ptr<ReservationDesk>> desk =
      ReservationDesk::Open(&sessions.store(), std::move(options));
  if (!desk.ok()) return desk.status();
  return std::make_unique<ReservationGrpcService>(*std::move(desk), std::move(auth),
                                                  std::move(operators));
}

absl::StatusOr<std::unique_ptr<TaskGrpcService>> CreateTaskService(SessionGrpcService& sessions,
                                                                   CallerAuthOptions auth) {
  absl::StatusOr<std::unique_ptr<TaskDesk>> desk = TaskDesk::Open(&sessions.store(), {});
  if (!desk.ok()) return desk.status();
  return std::make_unique<TaskGrpcService>(*std::move(desk), std::move(auth));
}

}  // namespace labgate::session
