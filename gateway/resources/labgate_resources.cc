#include "gateway/resources/labgate_resources.h"

#include <cctype>
#include <cstdio>

#include "absl/base/thread_annotations.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/async_calls.h"
#include "gateway/backends/serial_stubs.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/resources/update_coalescer.h"
#include "labgate/actions/v1/actions.grpc.pb.h"
#include "labgate/serial/v1/serial.grpc.pb.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway {

namespace session_v1 = labgate::session::v1;
namespace serial_v1 = labgate::serial::v1;
namespace actions_v1 = labgate::actions::v1;
using nlohmann::json;

struct LabgateResources::Stubs {
  std::unique_ptr<session_v1::SessionService::Stub> session;
  std::unique_ptr<actions_v1::ActionsService::Stub> actions;
  std::unique_ptr<SerialStubs> serial;  // the one serial service, or each bench
};

namespace {

constexpr char kSessions[] = "labgate://sessions";
constexpr char kSessionPrefix[] = "labgate://sessions/";
constexpr char kPorts[] = "labgate://ports";
constexpr char kPortPrefix[] = "labgate://ports/";
constexpr char kActionPrefix[] = "labgate://actions/";

json JsonContents(const std::string& uri, const json& value) {
  return {{"contents",
           json::array({{{"uri", uri},
                         {"mimeType", "application/json"},
                         {"text", value.dump(2, ' ', false, json::error_handler_t::replace)}}})}};
}

// Converts a proto response to JSON, or passes its error on.
template <typename Response>
std::function<void(absl::StatusOr<Response>)> AsContents(const std::string& uri, JsonDone done) {
  return [uri, done = std::move(done)](absl::StatusOr<Response> response) {
    if (!response.ok()) return done(response.status());
    done(JsonContents(uri, ProtoToJson(*response)));
  };
}

std::vector<std::string> WithPrefix(std::vector<std::string> values, const std::string& prefix) {
  std::vector<std::string> kept;
  for (std::string& value : values) {
    if (absl::StartsWith(value, prefix)) kept.push_back(std::move(value));
  }
  return kept;
}

// Every session, open and closed (at most `limit`), newest first.
void ListSessions(session_v1::SessionService::Stub* stub, int limit,
                  std::chrono::milliseconds deadline,
                  std::function<void(absl::StatusOr<session_v1::ListSessionsResponse>)> done) {
  session_v1::ListSessionsRequest request;
  request.set_include_closed(true);
  request.set_limit(limit);
  Unary<session_v1::ListSessionsResponse>(
      request, deadline,
      [stub](auto* c, auto* rq, auto* rs, auto cb) {
        stub->async()->ListSessions(c, rq, rs, std::move(cb));
      },
      std::move(done));
}

}  // namespace

std::string PercentEncode(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
      out.push_back(static_cast<char>(c));
    } else {
      char escaped[4];
      std::snprintf(escaped, sizeof(escaped), "%%%02X", c);
      out += escaped;
    }
  }
  return out;
}

LabgateResources::LabgateResources(const ResourceChannels& channels,
                                   std::chrono::milliseconds deadline)
    : stubs_(std::make_unique<Stubs>()), deadline_(deadline) {
  stubs_->session = session_v1::SessionService::NewStub(channels.session);
  stubs_->serial = std::make_unique<SerialStubs>(channels.serial, channels.benches);
  stubs_->actions = actions_v1::ActionsService::NewStub(channels.actions);
}

// Every bench's ListPortsExtended, merged with bench-qualified names; benches that do not
// answer are listed instead of failing the read.
void LabgateResources::ReadBenchPorts(const std::string& uri, JsonDone done) {
  struct Merge {
    Merge(size_t calls, JsonDone then) : pending(calls), done(std::move(then)) {}
    absl::Mutex mutex;
    size_t pending ABSL_GUARDED_BY(mutex);
    json ports ABSL_GUARDED_BY(mutex) = json::array();
    json unreachable ABSL_GUARDED_BY(mutex) = json::array();
    JsonDone done ABSL_GUARDED_BY(mutex);
  };
  const SerialBenches* benches = stubs_->serial->benches();
  auto merge = std::make_shared<Merge>(benches->all().size(), std::move(done));
  for (size_t i = 0; i < benches->all().size(); ++i) {
    const Bench* bench = &benches->all()[i];
    auto* stub = stubs_->serial->bench(i);
    Unary<serial_v1::ListPortsExtendedResponse>(
        serial_v1::ListPortsExtendedRequest(), deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->ListPortsExtended(c, rq, rs, std::move(cb));
        },
        [uri, merge, bench](absl::StatusOr<serial_v1::ListPortsExtendedResponse> response) {
          JsonDone finish;
          json merged;
          {
            absl::MutexLock lock(&merge->mutex);
            if (response.ok()) {
              for (json port : ProtoToJson(*response).value("ports", json::array())) {
                port["port_name"] =
                    SerialBenches::Qualify(*bench, port.value("port_name", std::string()));
                merge->ports.push_back(std::move(port));
              }
            } else {
              merge->unreachable.push_back({{"bench", bench->name},
                                            {"address", bench->address},
                                            {"error", std::string(response.status().message())}});
            }
            if (--merge->pending == 0) {
              finish = std::move(merge->done);
              merged = {{"ports", std::move(merge->ports)}};
              if (!merge->unreachable.empty()) {
                merged["unreachable_benches"] = std::move(merge->unreachable);
              }
            }
          }
          if (finish) finish(JsonContents(uri, merged));
        });
  }
}

LabgateResources::~LabgateResources() = default;

void LabgateResources::ListResources(JsonListDone done) {
  ListSessions(
      stubs_->session.get(), 100, deadline_,
      [done = std::move(done)](absl::StatusOr<session_v1::ListSessionsResponse> response) {
        std::vector<json> resources = {
            {{"uri", kSessions},
             {"name", "sessions"},
             {"title", "Session transcripts"},
             {"description", "Every session (open and closed), newest first"},
             {"mimeType", "application/json"}},
            {{"uri", kPorts},
             {"name", "ports"},
             {"title", "Serial ports"},
             {"description", "The serial ports of this machine, with USB details"},
             {"mimeType", "application/json"}},
        };
        if (response.ok()) {
          for (const auto& session : response->sessions()) {
            resources.push_back({{"uri", absl::StrCat(kSessionPrefix, session.id())},
                                 {"name", absl::StrCat("session-", session.id())},
                                 {"title", absl::StrCat("Transcript: ", session.device_id(),
                                                        session.closed() ? " (closed)" : "")},
                                 {"mimeType", "application/json"}});
          }
        }
        done(std::move(resources));
      });
}

std::vector<json> LabgateResources::ListResourceTemplates() const {
  return {
      {{"uriTemplate", "labgate://sessions/{session_id}"},
       {"name", "session"},
       {"title", "Session transcript"},
       {"description", "A session and all its messages; subscribe for appends"},
       {"mimeType", "application/json"}},
      {{"uriTemplate", "labgate://ports/{port_name}"},
       {"name", "port"},
       {"title", "Serial port"},
       {"description", "One serial port (percent-encode '/' in device paths)"},
       {"mimeType", "application/json"}},
      {{"uriTemplate", "labgate://actions/{action}"},
       {"name", "action"},
       {"title", "Action contract"},
       {"description", "An action contract with its input and output schemas"},
       {"mimeType", "application/json"}},
  };
}

bool LabgateResources::HandlesUri(const std::string& uri) const {
  return uri == kSessions || uri == kPorts || absl::StartsWith(uri, kSessionPrefix) ||
         absl::StartsWith(uri, kPortPrefix) || absl::StartsWith(uri, kActionPrefix);
}

void LabgateResources::ReadResource(const std::string& uri, std::shared_ptr<RequestContext>,
                                    JsonDone done) {
  if (uri == kSessions) {
    return ListSessions(stubs_->session.get(), 1000, deadline_,
                        AsContents<session_v1::ListSessionsResponse>(uri, std::move(done)));
  }
  if (absl::StartsWith(uri, kSessionPrefix)) {
    session_v1::ExportSessionRequest request;
    request.set_session_id(PercentDecode(uri.substr(sizeof(kSessionPrefix) - 1)));
    auto* stub = stubs_->session.get();
    return Unary<session_v1::ExportSessionResponse>(
        request, deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->ExportSession(c, rq, rs, std::move(cb));
        },
        AsContents<session_v1::ExportSessionResponse>(uri, std::move(done)));
  }
  if (uri == kPorts && stubs_->serial->benches() != nullptr) {
    return ReadBenchPorts(uri, std::move(done));
  }
  if (uri == kPorts) {
    auto* stub = stubs_->serial->serial();
    return Unary<serial_v1::ListPortsExtendedResponse>(
        serial_v1::ListPortsExtendedRequest(), deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->ListPortsExtended(c, rq, rs, std::move(cb));
        },
        AsContents<serial_v1::ListPortsExtendedResponse>(uri, std::move(done)));
  }
  if (absl::StartsWith(uri, kPortPrefix)) {
    auto target = stubs_->serial->For(PercentDecode(uri.substr(sizeof(kPortPrefix) - 1)));
    if (!target.ok()) return done(target.status());
    serial_v1::DescribePortRequest request;
    request.set_port_name(target->local_port);
    auto* stub = target->stub;
    return Unary<serial_v1::DescribePortResponse>(
        request, deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->DescribePort(c, rq, rs, std::move(cb));
        },
        [uri, bench = target->bench, local_port = target->local_port,
         done = std::move(done)](absl::StatusOr<serial_v1::DescribePortResponse> response) {
          // A bench's port reads as the client names it, in the contents and in errors.
          if (!response.ok()) {
            return done(bench == nullptr
                            ? response.status()
                            : SerialBenches::QualifyError(*bench, local_port, response.status()));
          }
          json port = ProtoToJson(*response);
          if (bench != nullptr) SerialBenches::QualifyReply(*bench, &port);
          done(JsonContents(uri, port));
        });
  }
  if (absl::StartsWith(uri, kActionPrefix)) {
    actions_v1::GetActionRequest request;
    request.set_action(PercentDecode(uri.substr(sizeof(kActionPrefix) - 1)));
    auto* stub = stubs_->actions.get();
    return Unary<actions_v1::ActionContract>(
        request, deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->GetAction(c, rq, rs, std::move(cb));
        },
        [uri, done = std::move(done)](absl::StatusOr<actions_v1::ActionContract> contract) {
          if (!contract.ok()) return done(contract.status());
          json value = ProtoToJson(*contract);
          // Schemas travel as JSON text; show them as JSON.
          for (const char* field : {"input_schema_json", "output_schema_json"}) {
            json parsed = json::parse(value[field].get<std::string>(), nullptr, false);
            std::string name(field);
            value.erase(field);
            value[name.substr(0, name.size() - 5)] = parsed.is_discarded() ? json() : parsed;
          }
          done(JsonContents(uri, value));
        });
  }
  done(absl::NotFoundError(absl::StrCat("Resource not found: ", uri)));
}

std::shared_ptr<void> LabgateResources::SubscribeResource(const std::string& uri,
                                                          std::function<void()> updated) {
  return SubscribeResourceWhenReady(uri, std::move(updated), [] {});
}

std::shared_ptr<void> LabgateResources::SubscribeResourceWhenReady(const std::string& uri,
                                                                   std::function<void()> updated,
                                                                   std::function<void()> ready) {
  if (uri == kSessions || absl::StartsWith(uri, kSessionPrefix)) {
    session_v1::WatchSessionRequest request;
    if (uri != kSessions)
      request.set_session_id(PercentDecode(uri.substr(sizeof(kSessionPrefix) - 1)));
    auto* stub = stubs_->session.get();
    return Watch<session_v1::SessionEvent>(
        request,
        [stub](grpc::ClientContext* context, const session_v1::WatchSessionRequest* req,
               grpc::ClientReadReactor<session_v1::SessionEvent>* reactor) {
          stub->async()->WatchSession(context, req, reactor);
        },
        [updated](const session_v1::SessionEvent&) { updated(); }, std::move(ready));
  }
  if (absl::StartsWith(uri, kPortPrefix)) {
    const std::string port = PercentDecode(uri.substr(sizeof(kPortPrefix) - 1));
    auto target = stubs_->serial->For(port);
    if (!target.ok()) return nullptr;
    serial_v1::SubscribeRequest request;
    request.set_port_name(target->local_port);
    auto* stub = target->stub;
    auto coalescer = UpdateCoalescer::Create(kPortUpdateInterval, std::move(updated));
    struct Subscription {
      std::shared_ptr<UpdateCoalescer> coalescer;
      std::shared_ptr<void> events;   // the serial service's Subscribe stream
      std::shared_ptr<void> touches;  // this gateway's own calls on the port
      ~Subscription() { coalescer->Stop(); }
    };
    auto subscription = std::make_shared<Subscription>();
    subscription->coalescer = coalescer;
    subscription->events = Watch<serial_v1::PortEvent>(
        request,
        [stub](grpc::ClientContext* context, const serial_v1::SubscribeRequest* req,
               grpc::ClientReadReactor<serial_v1::PortEvent>* reactor) {
          stub->async()->Subscribe(context, req, reactor);
        },
        [coalescer](const serial_v1::PortEvent&) { coalescer->Trigger(); }, std::move(ready));
    if (port_changes_ != nullptr) {
      subscription->touches = port_changes_->Listen(port, [coalescer] { coalescer->Trigger(); });
    }
    return subscription;
  }
  return nullptr;
}

void LabgateResources::CompleteResourceArgument(const std::string& template_uri,
                                                const std::string& argument,
                                                const std::string& value, const json&,
                                                StringsDone done) {
  (void)template_uri;
  if (argument == "session_id") {
    return ListSessions(
        stubs_->session.get(), 1000, deadline_,
        [value, done = std::move(done)](absl::StatusOr<session_v1::ListSessionsResponse> response) {
          std::vector<std::string> ids;
          if (response.ok()) {
            for (const auto& session : response->sessions()) ids.push_back(session.id());
          }
          done(WithPrefix(std::move(ids), value));
        });
  }
  if (argument == "port_name" && stubs_->serial->benches() != nullptr) {
    // With benches, a port starts with its bench: offer "BENCH:loop://" for each.
    std::vector<std::string> names;
    for (const Bench& bench : stubs_->serial->benches()->all()) {
      names.push_back(SerialBenches::Qualify(bench, "loop://"));
    }
    return done(WithPrefix(std::move(names), value));
  }
  if (argument == "port_name") {
    auto* stub = stubs_->serial->serial();
    return Unary<serial_v1::ListPortsResponse>(
        serial_v1::ListPortsRequest(), deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->ListPorts(c, rq, rs, std::move(cb));
        },
        [value, done = std::move(done)](absl::StatusOr<serial_v1::ListPortsResponse> response) {
          std::vector<std::string> names = {"loop://"};
          if (response.ok()) {
            for (const auto& port : response->ports()) names.push_back(port.port_name());
          }
          done(WithPrefix(std::move(names), value));
        });
  }
  if (argument == "action") {
    auto* stub = stubs_->actions.get();
    return Unary<actions_v1::ListActionsResponse>(
        actions_v1::ListActionsRequest(), deadline_,
        [stub](auto* c, auto* rq, auto* rs, auto cb) {
          stub->async()->ListActions(c, rq, rs, std::move(cb));
        },
        [value, done = std::move(done)](absl::StatusOr<actions_v1::ListActionsResponse> response) {
          std::vector<std::string> names;
          if (response.ok()) {
            for (const auto& action : response->actions()) names.push_back(action.action());
          }
          done(WithPrefix(std::move(names), value));
        });
  }
  done({});
}

}  // namespace labgate::gateway
