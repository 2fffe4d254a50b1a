#include "gateway/console/session_views.h"

#include <algorithm>
#include <optional>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/synchronization/mutex.h"
#include "gateway/backends/async_calls.h"
#include "gateway/catalog/json_proto.h"
#include "gateway/console/console_replies.h"
#include "gateway/jsonrpc/message.h"
#include "labgate/session/v1/session.grpc.pb.h"

namespace labgate::gateway::console {

namespace session_v1 = labgate::session::v1;
using nlohmann::json;

namespace {

std::string Get(const SessionViews::Query& query, const std::string& key) {
  auto it = query.find(key);
  return it == query.end() ? "" : it->second;
}

// A positive count from the query, at most `max`; `fallback` when absent.
absl::StatusOr<int> CountParam(const SessionViews::Query& query, const std::string& key,
                               int fallback, int max) {
  const std::string text = Get(query, key);
  if (text.empty()) return fallback;
  int value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < 1 || value > max) {
    return absl::InvalidArgumentError(key + " must be a whole number from 1 to " +
                                      std::to_string(max) + ", not '" + text + "'");
  }
  return value;
}

// A feature tag as the session service keeps it: lower case, one tag.
absl::StatusOr<std::string> FeatureParam(const SessionViews::Query& query) {
  std::string feature = absl::AsciiStrToLower(absl::StripAsciiWhitespace(Get(query, "feature")));
  if (feature.find_first_of(", \t") != std::string::npos) {
    return absl::InvalidArgumentError("feature must be a single tag, not '" + feature + "'");
  }
  return feature;
}

std::string EventTypeName(session_v1::SessionEvent::Type type) {
  std::string name = session_v1::SessionEvent::Type_Name(type);
  if (name.rfind("TYPE_", 0) == 0) name = name.substr(5);
  return absl::AsciiStrToLower(name);
}

}  // namespace

json SessionEventJson(const session_v1::SessionEvent& event) {
  json out = {{"type", EventTypeName(event.type())}, {"session", ProtoToJson(event.session())}};
  if (event.has_message()) out["message"] = ProtoToJson(event.message());
  return out;
}

std::string ExportNdjson(const session_v1::Session& session,
                         const std::vector<session_v1::Message>& messages) {
  std::string out = jsonrpc::DumpJson(json{{"session", ProtoToJson(session)}});
  out += '\n';
  for (const session_v1::Message& message : messages) {
    out += jsonrpc::DumpJson(json{{"message", ProtoToJson(message)}});
    out += '\n';
  }
  return out;
}

class SessionViews::Impl : public std::enable_shared_from_this<SessionViews::Impl> {
 public:
  Impl(std::shared_ptr<grpc::Channel> channel, std::chrono::milliseconds deadline)
      : stub_(session_v1::SessionService::NewStub(std::move(channel))), deadline_(deadline) {}

  // `start(async_stub, context, request, response, callback)` begins the call.
  template <typename Response, typename Request, typename Start>
  void Call(const Request& request, Start start,
            std::function<void(absl::StatusOr<Response>)> done) const {
    Unary<Response>(
        request, deadline_,
        [self = shared_from_this(), start](auto* context, auto* request, auto* response,
                                           auto callback) {
          start(self->stub_->async(), context, request, response, std::move(callback));
        },
        std::move(done));
  }

  void GetSession(const std::string& id,
                  std::function<void(absl::StatusOr<session_v1::GetSessionResponse>)> done) const {
    session_v1::GetSessionRequest request;
    request.set_session_id(id);
    Call<session_v1::GetSessionResponse>(
        request,
        [](auto* async, auto* context, auto* request, auto* response, auto callback) {
          async->GetSession(context, request, response, std::move(callback));
        },
        std::move(done));
  }

  void List(const Query& query, JsonDone done) const {
    absl::StatusOr<int> limit = CountParam(query, "limit", 100, kMaxSessionsListed);
    if (!limit.ok()) return done(limit.status());
    absl::StatusOr<std::string> feature = FeatureParam(query);
    if (!feature.ok()) return done(feature.status());
    const std::string device =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(Get(query, "device")));
    const bool filtered = !device.empty() || !feature->empty();
    session_v1::ListSessionsRequest request;
    request.set_include_closed(Get(query, "closed") != "0");
    // Filters look at the newest sessions the service gives, then keep `limit`.
    request.set_limit(filtered ? kMaxSessionsListed : *limit);
    Call<session_v1::ListSessionsResponse>(
        request,
        [](auto* async, auto* context, auto* request, auto* response, auto callback) {
          async->ListSessions(context, request, response, std::move(callback));
        },
        [self = shared_from_this(), device, feature = *feature, limit = *limit,
         done = std::move(done)](absl::StatusOr<session_v1::ListSessionsResponse> listed) {
          if (!listed.ok()) return done(listed.status());
          std::vector<session_v1::Session> sessions;
          for (const session_v1::Session& session : listed->sessions()) {
            if (!device.empty() &&
                absl::AsciiStrToLower(session.device_id()).find(device) == std::string::npos) {
              continue;
            }
            sessions.push_back(session);
          }
          if (feature.empty()) return done(ListAnswer(sessions, limit));
          self->KeepWithFeature(std::move(sessions), feature, limit, std::move(done));
        });
  }

  // Keeps the sessions whose FeatureIndex counts `feature`.
  void KeepWithFeature(std::vector<session_v1::Session> sessions, const std::string& feature,
                       int limit, JsonDone done) const {
    if (sessions.empty()) return done(ListAnswer(sessions, limit));
    struct Pending {
      Pending(std::vector<session_v1::Session> listed, JsonDone then)
          : left(listed.size()),
            sessions(std::move(listed)),
            keep(sessions.size(), false),
            done(std::move(then)) {}
      absl::Mutex mutex;
      size_t left ABSL_GUARDED_BY(mutex);
      std::vector<session_v1::Session> sessions ABSL_GUARDED_BY(mutex);
      std::vector<bool> keep ABSL_GUARDED_BY(mutex);
      absl::Status failure ABSL_GUARDED_BY(mutex);
      const JsonDone done;  // called once, by the last answer, outside the lock
    };
    std::vector<std::string> ids;
    for (const session_v1::Session& session : sessions) ids.push_back(session.id());
    auto pending = std::make_shared<Pending>(std::move(sessions), std::move(done));
    for (size_t i = 0; i < ids.size(); ++i) {
      session_v1::FeatureIndexRequest request;
      request.set_session_id(ids[i]);
      Call<session_v1::FeatureIndexResponse>(
          request,
          [](auto* async, auto* context, auto* request, auto* response, auto callback) {
            async->FeatureIndex(context, request, response, std::move(callback));
          },
          [pending, i, feature, limit](absl::StatusOr<session_v1::FeatureIndexResponse> index) {
            std::optional<absl::StatusOr<json>> outcome;  // once every index answered
            {
              absl::MutexLock lock(&pending->mutex);
              if (index.ok()) {
                auto it = index->features().find(feature);
                pending->keep[i] = it != index->features().end() && it->second > 0;
              } else if (pending->failure.ok()) {
                pending->failure = index.status();
              }
              if (--pending->left != 0) return;
              if (!pending->failure.ok()) {
                outcome = absl::StatusOr<json>(pending->failure);
              } else {
                std::vector<session_v1::Session> kept;
                for (size_t j = 0; j < pending->sessions.size(); ++j) {
                  if (pending->keep[j]) kept.push_back(std::move(pending->sessions[j]));
                }
                outcome = absl::StatusOr<json>(ListAnswer(kept, limit));
              }
            }
            pending->done(*std::move(outcome));
          });
    }
  }

  static json ListAnswer(const std::vector<session_v1::Session>& sessions, int limit) {
    json list = json::array();
    for (const session_v1::Session& session : sessions) {
      if (static_cast<int>(list.size()) == limit) break;
      list.push_back(ProtoToJson(session));
    }
    const size_t count = list.size();
    return {
        {"sessions", std::move(list)}, {"count", count}, {"truncated", sessions.size() > count}};
  }

  void Transcript(const std::string& id, const Query& query, JsonDone done) const {
    absl::StatusOr<int> limit = CountParam(query, "limit", 500, kMaxMessagesPerPage);
    if (!limit.ok()) return done(limit.status());
    absl::StatusOr<std::string> feature = FeatureParam(query);
    if (!feature.ok()) return done(feature.status());
    int64_t after = 0;
    if (const std::string text = Get(query, "after");
        !text.empty() && (!absl::SimpleAtoi(text, &after) || after < 0)) {
      return done(
          absl::InvalidArgumentError("after must be a message id (0 or more), not '" + text + "'"));
    }
    const std::string role = Get(query, "role");
    const std::string direction = Get(query, "direction");
    struct Pending {
      explicit Pending(JsonDone then) : done(std::move(then)) {}
      absl::Mutex mutex;
      int left ABSL_GUARDED_BY(mutex) = 3;
      json answer ABSL_GUARDED_BY(mutex) = json::object();
      absl::Status failure ABSL_GUARDED_BY(mutex);
      const JsonDone done;  // called once, by the last answer, outside the lock
      // Counts one answer in; the last one gets what `done` is to be told.
      std::optional<absl::StatusOr<json>> Arrived() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
        if (--left != 0) return std::nullopt;
        if (!failure.ok()) return absl::StatusOr<json>(failure);
        return absl::StatusOr<json>(std::move(answer));
      }
      void Fail(const absl::Status& status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex) {
        // The session's own NOT_FOUND wins over what the other calls say about it.
        if (failure.ok() || status.code() == absl::StatusCode::kNotFound) failure = status;
      }
      void Deliver(std::optional<absl::StatusOr<json>> outcome) const {
        if (outcome) done(*std::move(outcome));
      }
    };
    auto pending = std::make_shared<Pending>(std::move(done));
    GetSession(id, [pending](absl::StatusOr<session_v1::GetSessionResponse> got) {
      std::optional<absl::StatusOr<json>> outcome;
      {
        absl::MutexLock lock(&pending->mutex);
        if (got.ok()) {
          pending->answer["session"] = ProtoToJson(got->session());
        } else {
          pending->Fail(got.status());
        }
        outcome = pending->Arrived();
      }
      pending->Deliver(std::move(outcome));
    });
    session_v1::FeatureIndexRequest index_request;
    index_request.set_session_id(id);
    Call<session_v1::FeatureIndexResponse>(
        index_request,
        [](auto* async, auto* context, auto* request, auto* response, auto callback) {
          async->FeatureIndex(context, request, response, std::move(callback));
        },
        [pending](absl::StatusOr<session_v1::FeatureIndexResponse> index) {
          std::optional<absl::StatusOr<json>> outcome;
          {
            absl::MutexLock lock(&pending->mutex);
            if (index.ok()) {
              json features = json::object();
              for (const auto& [tag, count] : index->features()) features[tag] = count;
              pending->answer["features"] = std::move(features);
            } else {
              pending->Fail(index.status());
            }
            outcome = pending->Arrived();
          }
          pending->Deliver(std::move(outcome));
        });
    auto take_page = [pending](auto page) {
      std::optional<absl::StatusOr<json>> outcome;
      {
        absl::MutexLock lock(&pending->mutex);
        if (page.ok()) {
          json messages = json::array();
          for (const session_v1::Message& message : page->messages()) {
            messages.push_back(ProtoToJson(message));
          }
          pending->answer["messages"] = std::move(messages);
          pending->answer["next_cursor"] =
              page->has_next_cursor() ? json(page->next_cursor()) : json(nullptr);
        } else {
          pending->Fail(page.status());
        }
        outcome = pending->Arrived();
      }
      pending->Deliver(std::move(outcome));
    };
    if (feature->empty() && role.empty() && direction.empty()) {
      session_v1::ListMessagesRequest request;
      request.set_session_id(id);
      request.set_limit(*limit);
      request.set_after_message_id(after);
      Call<session_v1::ListMessagesResponse>(
          request,
          [](auto* async, auto* context, auto* request, auto* response, auto callback) {
            async->ListMessages(context, request, response, std::move(callback));
          },
          std::function<void(absl::StatusOr<session_v1::ListMessagesResponse>)>(take_page));
    } else {
      session_v1::FilterMessagesRequest request;
      request.set_session_id(id);
      request.set_limit(*limit);
      request.set_after_message_id(after);
      if (!feature->empty()) request.set_feature(*feature);
      if (!role.empty()) request.set_role(role);
      if (!direction.empty()) request.set_direction(direction);
      Call<session_v1::FilterMessagesResponse>(
          request,
          [](auto* async, auto* context, auto* request, auto* response, auto callback) {
            async->FilterMessages(context, request, response, std::move(callback));
          },
          std::function<void(absl::StatusOr<session_v1::FilterMessagesResponse>)>(take_page));
    }
  }

  // Pages through ListMessages (1000 at a time) after GetSession, so no single gRPC
  // message has to hold the whole transcript.
  void Export(const std::string& id, const std::string& format,
              std::function<void(absl::StatusOr<ExportedSession>)> done) const {
    if (format != "json" && format != "ndjson") {
      return done(
          absl::InvalidArgumentError("format must be json or ndjson, not '" + format + "'"));
    }
    struct Gathered {
      session_v1::Session session;
      std::vector<session_v1::Message> messages;
      size_t bytes = 0;
      std::string format;
      std::function<void(absl::StatusOr<ExportedSession>)> done;
    };
    auto gathered = std::make_shared<Gathered>();
    gathered->format = format;
    gathered->done = std::move(done);
    GetSession(id, [self = shared_from_this(),
                    gathered](absl::StatusOr<session_v1::GetSessionResponse> got) {
      if (!got.ok()) return gathered->done(got.status());
      gathered->session = got->session();
      self->ExportPage(gathered, 0);
    });
  }

  template <typename Gathered>
  void ExportPage(std::shared_ptr<Gathered> gathered, int64_t after) const {
    session_v1::ListMessagesRequest request;
    request.set_session_id(gathered->session.id());
    request.set_limit(kMaxMessagesPerPage);
    request.set_after_message_id(after);
    Call<session_v1::ListMessagesResponse>(
        request,
        [](auto* async, auto* context, auto* request, auto* response, auto callback) {
          async->ListMessages(context, request, response, std::move(callback));
        },
        [self = shared_from_this(),
         gathered](absl::StatusOr<session_v1::ListMessagesResponse> page) {
          if (!page.ok()) return gathered->done(page.status());
          for (session_v1::Message& message : *page->mutable_messages()) {
            gathered->bytes += message.ByteSizeLong();
            gathered->messages.push_back(std::move(message));
          }
          if (gathered->bytes > kMaxExportBytes) {
            return gathered->done(absl::ResourceExhaustedError(
                "the session is too large to export here (over " +
                std::to_string(kMaxExportBytes / (1024 * 1024)) +
                " MiB); page through it with /console/api/sessions/{id}?after="));
          }
          if (page->has_next_cursor() && !page->messages().empty()) {
            return self->ExportPage(gathered, page->next_cursor());
          }
          ExportedSession exported;
          const std::string& id = gathered->session.id();
          if (gathered->format == "ndjson") {
            exported.body = ExportNdjson(gathered->session, gathered->messages);
            exported.content_type = "application/x-ndjson";
            exported.file_name = "labgate-session-" + id + ".ndjson";
          } else {
            json messages = json::array();
            for (const session_v1::Message& message : gathered->messages) {
              messages.push_back(ProtoToJson(message));
            }
            exported.body = jsonrpc::DumpJson(
                json{{"session", ProtoToJson(gathered->session)}, {"messages", messages}});
            exported.content_type = "application/json";
            exported.file_name = "labgate-session-" + id + ".json";
          }
          gathered->done(std::move(exported));
        });
  }

  void Relay(std::shared_ptr<http::HttpConnection> connection, const std::string& id,
             std::shared_ptr<RelayRegistry> relays) const {
    // An unknown session is a 404 answer, not a stream that ends at once.
    GetSession(id, [self = shared_from_this(), connection, id,
                    relays](absl::StatusOr<session_v1::GetSessionResponse> got) {
      if (!got.ok()) return RespondStatus(connection, got.status());
      session_v1::WatchSessionRequest request;
      request.set_session_id(id);
      RelayStream<session_v1::SessionEvent>(
          relays, connection, std::move(request),
          [self](auto* context, auto* request, auto* reactor) {
            self->stub_->async()->WatchSession(context, request, reactor);
          },
          [](const session_v1::SessionEvent& event) { return SessionEventJson(event); });
    });
  }

 private:
  std::unique_ptr<session_v1::SessionService::Stub> stub_;
  std::chrono::milliseconds deadline_;
};

SessionViews::SessionViews(std::shared_ptr<grpc::Channel> session_channel,
                           std::chrono::milliseconds deadline)
    : impl_(std::make_shared<const Impl>(std::move(session_channel), deadline)) {}

void SessionViews::List(const Query& query, JsonDone done) const {
  impl_->List(query, std::move(done));
}

void SessionViews::Transcript(const std::string& id, const Query& query, JsonDone done) const {
  impl_->Transcript(id, query, std::move(done));
}

void SessionViews::Export(const std::string& id, const std::string& format,
                          std::function<void(absl::StatusOr<ExportedSession>)> done) const {
  impl_->Export(id, format, std::move(done));
}

void SessionViews::Relay(std::shared_ptr<http::HttpConnection> connection, const std::string& id,
                         std::shared_ptr<RelayRegistry> relays) const {
  impl_->Relay(std::move(connection), id, std::move(relays));
}

}  // namespace labgate::gateway::console
