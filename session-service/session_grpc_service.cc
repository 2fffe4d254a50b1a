#include "session-service/session_grpc_service.h"

#include <utility>

#include "common/grpc_finish.h"
#include "session-service/proto_convert.h"

namespace labgate::session {
namespace {

template <typename Response>
void FillPage(const MessagePage& page, Response* response) {
  for (const MessageRecord& message : page.messages) {
    ToProto(message, response->add_messages());
  }
  response->set_count(static_cast<int32_t>(page.messages.size()));
  if (page.next_cursor.has_value()) response->set_next_cursor(*page.next_cursor);
}

}  // namespace

SessionGrpcService::SessionGrpcService(std::unique_ptr<SessionStore> store)
    : store_(std::move(store)) {}

SessionGrpcService::~SessionGrpcService() { Shutdown(); }

grpc::ServerUnaryReactor* SessionGrpcService::CreateSession(grpc::CallbackServerContext* context,
                                                            const v1::CreateSessionRequest* request,
                                                            v1::CreateSessionResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->CreateSession(FromProto(*request),
                        FinishWith<SessionRecord>(reactor, [response](const SessionRecord& s) {
                          ToProto(s, response->mutable_session());
                        }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::GetSession(grpc::CallbackServerContext* context,
                                                         const v1::GetSessionRequest* request,
                                                         v1::GetSessionResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->GetSession(request->session_id(),
                     FinishWith<SessionRecord>(reactor, [response](const SessionRecord& s) {
                       ToProto(s, response->mutable_session());
                     }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::ListSessions(grpc::CallbackServerContext* context,
                                                           const v1::ListSessionsRequest* request,
                                                           v1::ListSessionsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  ListSessionsQuery query;
  query.include_closed = request->include_closed();
  query.limit = request->limit();
  store_->ListSessions(query, FinishWith<std::vector<SessionRecord>>(
                                  reactor, [response](const std::vector<SessionRecord>& sessions) {
                                    for (const SessionRecord& s : sessions)
                                      ToProto(s, response->add_sessions());
                                    response->set_count(static_cast<int32_t>(sessions.size()));
                                  }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::CloseSession(grpc::CallbackServerContext* context,
                                                           const v1::CloseSessionRequest* request,
                                                           v1::CloseSessionResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->CloseSession(request->session_id(),
                       FinishWith<SessionRecord>(reactor, [response](const SessionRecord& s) {
                         ToProto(s, response->mutable_session());
                       }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::AppendMessage(grpc::CallbackServerContext* context,
                                                            const v1::AppendMessageRequest* request,
                                                            v1::AppendMessageResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->AppendMessage(FromProto(*request),
                        FinishWith<MessageRecord>(reactor, [response](const MessageRecord& m) {
                          ToAppendResponse(m, response);
                        }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::ListMessages(grpc::CallbackServerContext* context,
                                                           const v1::ListMessagesRequest* request,
                                                           v1::ListMessagesResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->QueryMessages(FromProto(*request),
                        FinishWith<MessagePage>(reactor, [response](const MessagePage& page) {
                          FillPage(page, response);
                        }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::FilterMessages(
    grpc::CallbackServerContext* context, const v1::FilterMessagesRequest* request,
    v1::FilterMessagesResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->QueryMessages(FromProto(*request),
                        FinishWith<MessagePage>(reactor, [response](const MessagePage& page) {
                          FillPage(page, response);
                        }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::ExportSession(grpc::CallbackServerContext* context,
                                                            const v1::ExportSessionRequest* request,
                                                            v1::ExportSessionResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->ExportSession(
      request->session_id(),
      FinishWith<SessionExportRecord>(reactor, [response](const SessionExportRecord& e) {
        v1::SessionExport* out = response->mutable_export_();
        ToProto(e.session, out->mutable_session());
        for (const MessageRecord& m : e.messages) ToProto(m, out->add_messages());
      }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::FeatureIndex(grpc::CallbackServerContext* context,
                                                           const v1::FeatureIndexRequest* request,
                                                           v1::FeatureIndexResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->FeatureIndex(request->session_id(),
                       FinishWith<std::map<std::string, int64_t>>(
                           reactor, [response](const std::map<std::string, int64_t>& counts) {
                             for (const auto& [tag, count] : counts) {
                               (*response->mutable_features())[tag] = count;
                             }
                           }));
  return reactor;
}

grpc::ServerUnaryReactor* SessionGrpcService::SessionStats(grpc::CallbackServerContext* context,
                                                           const v1::SessionStatsRequest* request,
                                                           v1::SessionStatsResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  store_->SessionStats(
      request->session_id(),
      FinishWith<SessionStatsRecord>(reactor, [response](const SessionStatsRecord& stats) {
        response->set_message_count(stats.message_count);
        response->set_last_message_id(stats.last_message_id);
        response->set_messages_per_min(stats.messages_per_min);
      }));
  return reactor;
}

grpc::ServerWriteReactor<v1::SessionEvent>* SessionGrpcService::WatchSession(
    grpc::CallbackServerContext* /*context*/, const v1::WatchSessionRequest* request) {
  return new WatchReactor(store_.get(), &watches_, request->session_id());
}

void SessionGrpcService::FinishWatchStreams() {
  watches_.CloseAll(
      grpc::Status(grpc::StatusCode::UNAVAILABLE, "session service is shutting down"));
}

void SessionGrpcService::Shutdown() {
  FinishWatchStreams();
  store_->Shutdown();
}

}  // namespace labgate::session
