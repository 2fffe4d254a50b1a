// Entry point for hosting the session service: the standalone labgate-session binary
// and the gateway's embedded mode both build it through CreateSessionService().
#pragma once

#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "common/caller_auth.h"
#include "session-service/reservations/reservation_grpc_service.h"
#include "session-service/session_grpc_service.h"
#include "session-service/tasks/task_grpc_service.h"

namespace labgate::session {

// The name grpc.health.v1 reports the service under.
inline constexpr char kSessionServiceName[] = "labgate.session.v1.SessionService";

struct SessionServiceOptions {
  std::string data_dir;  // holds sessions.db; created if missing
  int busy_timeout_ms = 5000;
  int reader_threads = 2;
};

// Opens (and migrates) <data_dir>/sessions.db. Register the result on a server, then
// at exit: FinishWatchStreams(), shut the server down, and call Shutdown().
absl::StatusOr<std::unique_ptr<SessionGrpcService>> CreateSessionService(
    const SessionServiceOptions& options);

// The bench reservations API (issue 32) over the session service's store, its waiting and
// granted reservations restored. `sessions` must outlive it: destroy it after the server has
// stopped and before sessions->Shutdown(). `auth` says who callers are: a reservation's holder.
// `operators` may end anyone's reservation; `limits` bound what a reservation may ask for.
absl::StatusOr<std::unique_ptr<ReservationGrpcService>> CreateReservationService(
    SessionGrpcService& sessions, CallerAuthOptions auth, std::set<std::string> operators = {},
    ReservationLimits limits = {});

// The MCP tasks API (issue 34) over the same store, its live tasks restored; the same lifetime
// rules as CreateReservationService. `auth` says who callers are: a task's owner.
absl::StatusOr<std::unique_ptr<TaskGrpcService>> CreateTaskService(SessionGrpcService& sessions,
                                                                   CallerAuthOptions auth);

}  // namespace labgate::session
