// Which console endpoint a request path names, and the query of its target. Pure
// functions, so the URL rules are tested on their own.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace labgate::gateway::console {

enum class Endpoint {
  kPage,            // /console, /console/
  kWhoami,          // /console/api/whoami
  kPorts,           // /console/api/ports
  kPort,            // /console/api/ports/{port}
  kPortEvents,      // /console/api/ports/{port}/events
  kPortClose,       // /console/api/ports/{port}/close (POST: close it, whoever owns it)
  kSessions,        // /console/api/sessions
  kSession,         // /console/api/sessions/{id}
  kSessionExport,   // /console/api/sessions/{id}/export
  kSessionEvents,   // /console/api/sessions/{id}/events
  kBackends,        // /console/api/backends
  kReplays,         // /console/api/replays (POST: start one)
  kReservations,    // /console/api/reservations
  kReservationEnd,  // /console/api/reservations/{id}/end (POST: end it, whoever holds it)
  kTasks,           // /console/api/tasks
  kRevoke,          // /console/api/principals/{name}/revoke (POST: end its HTTP sessions)
  kApprovals,       // /console/api/approvals (writes waiting for a person; ?after=V long-polls)
  kApprovalAnswer,  // /console/api/approvals/{id}/approve|decline (POST)
  kUnknown,         // anything else under /console
};

struct Route {
  Endpoint endpoint = Endpoint::kUnknown;
  // kPort, kPortEvents, kPortClose: percent-decoded ("loop://x", "lab-a:/dev/ttyS0").
  std::string port;
  std::string session_id;      // kSession*
  std::string principal;       // kRevoke: percent-decoded
  std::string approval_id;     // kApprovalAnswer
  std::string reservation_id;  // kReservationEnd
  std::string decision;        // kApprovalAnswer: "accept" or "decline"
};

// True for /console and every path under /console/.
bool IsConsolePath(std::string_view path);
// True for the JSON and SSE endpoints (everything under /console/api/), which need a token
// when tokens are configured.
bool IsApiPath(std::string_view path);

// `path` is the request target without its query, still percent-encoded.
Route ParseRoute(std::string_view path);

// The query of a request target: "/x?a=1&b=x%2Fy&c" -> {a: "1", b: "x/y", c: ""}; '+' is
// a space. No '?': empty.
std::map<std::string, std::string> ParseQuery(std::string_view target);

// Percent-decoding; a malformed escape is kept as it is.
std::string PercentDecode(std::string_view text, bool plus_is_space = false);

}  // namespace labgate::gateway::console
