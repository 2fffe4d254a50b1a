#include "gateway/console/console.h"

#include <boost/beast/http/verb.hpp>

#include "common/log.h"
#include "gateway/console/console_access.h"
#include "gateway/console/console_page.h"
#include "gateway/console/console_replies.h"
#include "gateway/console/console_routes.h"
#include "gateway/http/grpc_health_probe.h"

namespace labgate::gateway::console {

namespace beast_http = boost::beast::http;
using nlohmann::json;

namespace {

// The page loads nothing from anywhere: its script and style are inline, and it talks
// only to this origin.
constexpr char kPageSecurityPolicy[] =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
    "frame-ancestors 'none'";

std::string Target(const http::Request& request) {
  return std::string(request.target().data(), request.target().size());
}

std::string PathOf(const std::string& target) { return target.substr(0, target.find('?')); }

// POST /console/api/replays {"session_id", "mode"?, "speed"?, "bench"?} -> the port to open:
// [bench:]replay://SESSION_ID[?mode=...&speed=...]. labgate-serial judges mode and speed.
struct ReplayTarget {
  std::string port;
  std::string bench;  // as asked for; empty: none
};
absl::StatusOr<ReplayTarget> ReplayPortName(const std::string& body) {
  const json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) {
    return absl::InvalidArgumentError(
        "the body must be a JSON object: {\"session_id\", \"mode\"?, \"speed\"?, \"bench\"?}");
  }
  const auto session = request.find("session_id");
  if (session == request.end() || !session->is_string() || session->get<std::string>().empty()) {
    return absl::InvalidArgumentError("session_id (a string) is required");
  }
  const std::string id = session->get<std::string>();
  if (id.find_first_of("?&/: \t\r\n") != std::string::npos) {
    return absl::InvalidArgumentError("session_id \"" + id + "\" is not a session id");
  }
  std::string port = "replay://" + id;
  std::string options;
  if (const auto mode = request.find("mode"); mode != request.end()) {
    if (!mode->is_string()) return absl::InvalidArgumentError("mode must be a string");
    options += "mode=" + mode->get<std::string>();
  }
  if (const auto speed = request.find("speed"); speed != request.end()) {
    if (!speed->is_number()) return absl::InvalidArgumentError("speed must be a number");
    options += std::string(options.empty() ? "" : "&") + "speed=" + speed->dump();
  }
  if (!options.empty()) port += "?" + options;
  std::string bench_name;
  if (const auto bench = request.find("bench"); bench != request.end()) {
    if (!bench->is_string()) return absl::InvalidArgumentError("bench must be a string");
    bench_name = bench->get<std::string>();
    if (!bench_name.empty()) port = bench_name + ":" + port;
  }
  return ReplayTarget{port, bench_name};
}

// A console action's body: {"reason": "..."} (required: the record keeps it).
absl::StatusOr<std::string> ActionReason(const std::string& body) {
  const json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  const auto reason = request.is_object() ? request.find("reason") : request.end();
  if (!request.is_object() || reason == request.end() || !reason->is_string() ||
      reason->get<std::string>().empty()) {
    return absl::InvalidArgumentError(
        "the body must be {\"reason\": \"...\"}: say why, and the record keeps it");
  }
  return reason->get<std::string>();
}

}  // namespace

Console::Console(ConsoleOptions options)
    : options_(std::move(options)),
      ports_(options_.serial_benches, options_.call_deadline),
      sessions_(options_.session_channel, options_.call_deadline),
      reservations_(options_.reservation_channel, options_.call_deadline),
      tasks_(options_.task_channel, options_.call_deadline),
      approvals_(options_.approvals, options_.access,
                 [access = options_.access, benches = options_.serial_benches](
                     const std::string& principal, const std::string& port) {
                   return MayChangePort(access.get(), benches.get(), principal, port);
                 }),
      relays_(std::make_shared<RelayRegistry>(options_.max_streams)) {}

Console::~Console() { Stop(); }

void Console::Stop() { relays_->StopAll(); }

void Console::Serve(const std::shared_ptr<http::HttpConnection>& connection,
                    const http::Request& request, const http::HttpOptions& http_options) {
  if (request.method() == beast_http::verb::head) {
    return connection->Respond(405, {{"Allow", "GET"}}, "");  // a HEAD answer has no body
  }
  const std::string path = PathOf(Target(request));
  const bool api = IsApiPath(path);
  Access access = CheckAccess(request, http_options, /*needs_token=*/api);
  if (!access.allowed) {
    return RespondError(connection, access.status, access.error, std::move(access.headers));
  }
  // GET reads, on the page and the API alike; POST acts: it starts a replay, or is a console
  // action. A POST must come from the console page itself (CsrfGuard).
  const Endpoint endpoint = api ? ParseRoute(path).endpoint : Endpoint::kPage;
  const bool acts = endpoint == Endpoint::kReplays || endpoint == Endpoint::kRevoke ||
                    endpoint == Endpoint::kApprovalAnswer || endpoint == Endpoint::kPortClose ||
                    endpoint == Endpoint::kReservationEnd;
  const beast_http::verb allowed = acts ? beast_http::verb::post : beast_http::verb::get;
  if (request.method() != allowed) {
    return RespondError(connection, 405,
                        acts ? "Method not allowed: POST starts a replay or acts"
                             : "Method not allowed: this is read-only (GET)",
                        {{"Allow", acts ? "POST" : "GET"}});
  }
  if (acts) {
    if (auto refusal = csrf_.Refusal(request, access.principal)) {
      return RespondError(connection, 403, *refusal);
    }
  }
  if (!api) {
    if (ParseRoute(path).endpoint != Endpoint::kPage) {
      return RespondError(connection, 404, "no such console page: " + path);
    }
    const std::string_view page = ConsolePage();
    return connection->Respond(200,
                               {{"Content-Type", "text/html; charset=utf-8"},
                                {"Content-Security-Policy", kPageSecurityPolicy},
                                {"X-Content-Type-Options", "nosniff"},
                                {"Referrer-Policy", "no-referrer"},
                                {"Cache-Control", "no-store"}},
                               std::string(page));
  }
  ServeApi(connection, request, access.principal, !http_options.auth_tokens.empty());
}

void Console::SetSessionRevoker(SessionRevoker revoker) {
  absl::MutexLock lock(&revoker_mutex_);
  revoker_ = std::move(revoker);
}

void Console::Revoke(const std::shared_ptr<http::HttpConnection>& connection,
                     const std::string& actor, const std::string& principal) {
  if (options_.access != nullptr) {
    if (absl::Status allowed = options_.access->MayAct(actor); !allowed.ok()) {
      return RespondError(connection, 403, std::string(allowed.message()));
    }
  }
  SessionRevoker revoker;
  {
    absl::MutexLock lock(&revoker_mutex_);
    revoker = revoker_;
  }
  if (!revoker) return RespondError(connection, 503, "no HTTP sessions are served here");
  const size_t revoked = revoker(principal);
  LG_LOG(kInfo) << "console: " << actor << " revoked the HTTP sessions of " << principal << " ("
                << revoked << " ended)";
  RespondJson(connection, 200, {{"principal", principal}, {"revoked_sessions", revoked}});
}

void Console::CloseOrEnd(const std::shared_ptr<http::HttpConnection>& connection,
                         const std::string& actor, const Route& route, const std::string& body) {
  if (options_.access != nullptr) {
    if (absl::Status allowed = options_.access->MayAct(actor); !allowed.ok()) {
      return RespondError(connection, 403, std::string(allowed.message()));
    }
  }
  absl::StatusOr<std::string> reason = ActionReason(body);
  if (!reason.ok()) return RespondStatus(connection, reason.status());
  const bool port = route.endpoint == Endpoint::kPortClose;
  const std::string target = port ? route.port : route.reservation_id;
  if (port) {
    if (absl::Status may =
            MayChangePort(options_.access.get(), options_.serial_benches.get(), actor, target);
        !may.ok()) {
      return RespondError(connection, 403, std::string(may.message()));
    }
  }
  auto answer = [connection, actor, port, target, why = *reason](absl::StatusOr<json> done) {
    if (!done.ok()) return RespondStatus(connection, done.status());
    LG_LOG(kInfo) << "console: " << actor << (port ? " closed port " : " ended reservation ")
                  << target << " (" << why << ")";
    RespondJson(connection, 200, *done);
  };
  if (port) return ports_.ForceClose(target, actor, *reason, std::move(answer));
  if (options_.access == nullptr)
    return reservations_.End(target, actor, *reason, std::move(answer));
  // As with a port: an operator ends only a reservation of what it may change itself.
  reservations_.List([this, connection, actor, target, why = *reason,
                      answer = std::move(answer)](absl::StatusOr<json> listed) mutable {
    if (!listed.ok()) return RespondStatus(connection, listed.status());
    const json* found = nullptr;
    for (const json& reservation : (*listed)["reservations"]) {
      if (reservation.value("id", "") == target) found = &reservation;
    }
    if (found == nullptr) {
      return RespondError(connection, 404,
                          "reservation " + target + " is neither waiting nor granted");
    }
    for (const char* field : {"targets", "granted"}) {
      for (const json& name : found->value(field, json::array())) {
        if (!name.is_string()) continue;
        const std::string held = name.get<std::string>();
        absl::Status may =
            MayChangePort(options_.access.get(), options_.serial_benches.get(), actor, held);
        // A name no bench routes (an instrument's, reported by its labgate-serial) is checked
        // as the access file names it.
        if (absl::IsNotFound(may)) may = options_.access->MayChangePort(actor, held);
        if (!may.ok()) return RespondError(connection, 403, std::string(may.message()));
      }
    }
    reservations_.End(target, actor, why, std::move(answer));
  });
}

json Console::Whoami(const std::string& principal, bool tokens) const {
  json me = {{"principal", principal}, {"tokens", tokens}, {"csrf", csrf_.TokenFor(principal)}};
  std::shared_ptr<const access::AccessPolicy> policy =
      options_.access != nullptr ? options_.access->Current() : nullptr;
  if (policy == nullptr) {
    me["role"] = "unrestricted";  // no access file: everyone may do everything
    return me;
  }
  me["role"] = policy->RoleOf(principal);
  me["access"] = {{"file", policy->source()}, {"roles", policy->Roles()}};
  if (std::string role = policy->DefaultRole(); !role.empty()) me["access"]["default"] = role;
  return me;
}

void Console::ServeApi(const std::shared_ptr<http::HttpConnection>& connection,
                       const http::Request& request, const std::string& principal, bool tokens) {
  const std::string target = Target(request);
  const std::string path = PathOf(target);
  const Route route = ParseRoute(path);
  const std::map<std::string, std::string> query = ParseQuery(target);
  auto answer_json = [connection](absl::StatusOr<json> body) {
    if (!body.ok()) return RespondStatus(connection, body.status());
    RespondJson(connection, 200, *body);
  };
  switch (route.endpoint) {
    case Endpoint::kWhoami:
      return RespondJson(connection, 200, Whoami(principal, tokens));
    case Endpoint::kRevoke:
      return Revoke(connection, principal, route.principal);
    case Endpoint::kPortClose:
    case Endpoint::kReservationEnd:
      return CloseOrEnd(connection, principal, route, request.body());
    case Endpoint::kApprovals:
      return approvals_.List(connection, principal, query);
    case Endpoint::kApprovalAnswer:
      return approvals_.Answer(connection, principal, route.approval_id, route.decision);
    case Endpoint::kPorts:
      return ports_.List(answer_json);
    case Endpoint::kPort:
      return ports_.Describe(route.port, answer_json);
    case Endpoint::kPortEvents:
      return ports_.Relay(connection, route.port, relays_);
    case Endpoint::kSessions:
      return sessions_.List(query, answer_json);
    case Endpoint::kSession:
      return sessions_.Transcript(route.session_id, query, answer_json);
    case Endpoint::kSessionExport: {
      auto format = query.find("format");
      return sessions_.Export(
          route.session_id, format == query.end() ? "json" : format->second,
          [connection](absl::StatusOr<ExportedSession> exported) {
            if (!exported.ok()) {
              const bool too_large =
                  exported.status().code() == absl::StatusCode::kResourceExhausted;
              return RespondError(connection, too_large ? 413 : HttpStatusOf(exported.status()),
                                  std::string(exported.status().message()));
            }
            connection->Respond(
                200,
                {{"Content-Type", exported->content_type},
                 {"Content-Disposition", "attachment; filename=\"" + exported->file_name + "\""},
                 {"Cache-Control", "no-store"}},
                std::move(exported->body));
          });
    }
    case Endpoint::kSessionEvents:
      return sessions_.Relay(connection, route.session_id, relays_);
    case Endpoint::kReservations:
      return reservations_.List(answer_json);
    case Endpoint::kTasks:
      return tasks_.List(answer_json);
    case Endpoint::kBackends:
      return http::CheckBackends(
          options_.health_channels, std::chrono::seconds(2),
          [connection](const std::vector<http::BackendHealth>& all) {
            json backends = json::array();
            bool ready = true;
            for (const http::BackendHealth& backend : all) {
              ready = ready && backend.serving;
              backends.push_back(
                  {{"name", backend.name}, {"serving", backend.serving}, {"state", backend.state}});
            }
            RespondJson(connection, 200, {{"backends", std::move(backends)}, {"ready", ready}});
          });
    case Endpoint::kReplays: {
      absl::StatusOr<ReplayTarget> target = ReplayPortName(request.body());
      if (!target.ok()) return RespondStatus(connection, target.status());
      if (!target->bench.empty() && options_.serial_benches != nullptr) {
        // Without a bench of that name the unnamed bench would take "lab-z:replay://..." as
        // its own port's name.
        absl::StatusOr<SerialBenches::Route> route = options_.serial_benches->Resolve(target->port);
        if (!route.ok()) return RespondStatus(connection, route.status());
        if (route->bench->name != target->bench) {
          return RespondError(connection, 404, "no bench named '" + target->bench + "'");
        }
      }
      const std::string* port = &target->port;
      // As open_port would be: the bench and the port must be the operator's to change.
      if (absl::Status may =
              MayChangePort(options_.access.get(), options_.serial_benches.get(), principal, *port);
          !may.ok()) {
        return RespondError(connection, 403, std::string(may.message()));
      }
      // The replay belongs to the operator's own MCP principal (the same token's), so the
      // assistant they run can drive it.
      return ports_.OpenReplay("http:" + principal, *port,
                               [connection](absl::StatusOr<json> opened) {
                                 if (!opened.ok())
                                   return RespondStatus(connection, opened.status());
                                 RespondJson(connection, 201, *opened);
                               });
    }
    case Endpoint::kPage:
    case Endpoint::kUnknown:
      break;
  }
  RespondError(connection, 404, "no such console endpoint: " + path);
}

}  // namespace labgate::gateway::console
