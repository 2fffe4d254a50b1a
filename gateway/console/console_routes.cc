#include "gateway/console/console_routes.h"

namespace labgate::gateway::console {
namespace {

constexpr std::string_view kConsole = "/console";
constexpr std::string_view kApi = "/console/api/";
constexpr std::string_view kPortsPrefix = "/console/api/ports/";
constexpr std::string_view kSessionsPrefix = "/console/api/sessions/";
constexpr std::string_view kPrincipalsPrefix = "/console/api/principals/";
constexpr std::string_view kApprovalsPrefix = "/console/api/approvals/";
constexpr std::string_view kReservationsPrefix = "/console/api/reservations/";

bool ConsumeSuffix(std::string_view* text, std::string_view suffix) {
  if (text->size() <= suffix.size() || text->substr(text->size() - suffix.size()) != suffix) {
    return false;
  }
  text->remove_suffix(suffix.size());
  return true;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool IsConsolePath(std::string_view path) {
  return path == kConsole || path.substr(0, kConsole.size() + 1) == "/console/";
}

bool IsApiPath(std::string_view path) { return path.substr(0, kApi.size()) == kApi; }

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int high = HexValue(text[i + 1]);
      const int low = HexValue(text[i + 2]);
      if (high >= 0 && low >= 0) {
        out += static_cast<char>(high * 16 + low);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

Route ParseRoute(std::string_view path) {
  Route route;
  if (path == kConsole || path == "/console/") {
    route.endpoint = Endpoint::kPage;
  } else if (path == "/console/api/whoami") {
    route.endpoint = Endpoint::kWhoami;
  } else if (path == "/console/api/ports") {
    route.endpoint = Endpoint::kPorts;
  } else if (path == "/console/api/sessions") {
    route.endpoint = Endpoint::kSessions;
  } else if (path == "/console/api/backends") {
    route.endpoint = Endpoint::kBackends;
  } else if (path == "/console/api/replays") {
    route.endpoint = Endpoint::kReplays;
  } else if (path == "/console/api/reservations") {
    route.endpoint = Endpoint::kReservations;
  } else if (path == "/console/api/tasks") {
    route.endpoint = Endpoint::kTasks;
  } else if (path.substr(0, kReservationsPrefix.size()) == kReservationsPrefix) {
    std::string_view rest = path.substr(kReservationsPrefix.size());
    if (ConsumeSuffix(&rest, "/end") && !rest.empty() && rest.find('/') == std::string_view::npos) {
      route.endpoint = Endpoint::kReservationEnd;
      route.reservation_id = PercentDecode(rest);
    }
  } else if (path == "/console/api/approvals") {
    route.endpoint = Endpoint::kApprovals;
  } else if (path.substr(0, kApprovalsPrefix.size()) == kApprovalsPrefix) {
    std::string_view rest = path.substr(kApprovalsPrefix.size());
    const char* decision = ConsumeSuffix(&rest, "/approve")   ? "accept"
                           : ConsumeSuffix(&rest, "/decline") ? "decline"
                                                              : nullptr;
    if (decision != nullptr && !rest.empty() && rest.find('/') == std::string_view::npos) {
      route.endpoint = Endpoint::kApprovalAnswer;
      route.approval_id = PercentDecode(rest);
      route.decision = decision;
    }
  } else if (path.substr(0, kPrincipalsPrefix.size()) == kPrincipalsPrefix) {
    std::string_view rest = path.substr(kPrincipalsPrefix.size());
    if (ConsumeSuffix(&rest, "/revoke") && rest.find('/') == std::string_view::npos) {
      route.endpoint = Endpoint::kRevoke;
      route.principal = PercentDecode(rest);
    }
  } else if (path.substr(0, kPortsPrefix.size()) == kPortsPrefix) {
    // A port name has slashes (loop://x, /dev/ttyUSB0); the page encodes them, but a raw
    // one is taken as part of the name too.
    std::string_view rest = path.substr(kPortsPrefix.size());
    route.endpoint = ConsumeSuffix(&rest, "/events")  ? Endpoint::kPortEvents
                     : ConsumeSuffix(&rest, "/close") ? Endpoint::kPortClose
                                                      : Endpoint::kPort;
    route.port = PercentDecode(rest);
    if (route.port.empty()) route.endpoint = Endpoint::kUnknown;
  } else if (path.substr(0, kSessionsPrefix.size()) == kSessionsPrefix) {
    std::string_view rest = path.substr(kSessionsPrefix.size());
    route.endpoint = Endpoint::kSession;
    if (ConsumeSuffix(&rest, "/export")) {
      route.endpoint = Endpoint::kSessionExport;
    } else if (ConsumeSuffix(&rest, "/events")) {
      route.endpoint = Endpoint::kSessionEvents;
    }
    route.session_id = PercentDecode(rest);
    if (route.session_id.empty() || route.session_id.find('/') != std::string::npos) {
      route.endpoint = Endpoint::kUnknown;
      route.session_id.clear();
    }
  }
  return route;
}

std::map<std::string, std::string> ParseQuery(std::string_view target) {
  std::map<std::string, std::string> query;
  const size_t mark = target.find('?');
  if (mark == std::string_view::npos) return query;
  target.remove_prefix(mark + 1);
  while (!target.empty()) {
    const size_t amp = target.find('&');
    std::string_view pair = target.substr(0, amp);
    target.remove_prefix(amp == std::string_view::npos ? target.size() : amp + 1);
    if (pair.empty()) continue;
    const size_t eq = pair.find('=');
    std::string key = PercentDecode(pair.substr(0, eq), true);
    std::string value =
        eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
    query[std::move(key)] = std::move(value);
  }
  return query;
}

}  // namespace labgate::gateway::console
