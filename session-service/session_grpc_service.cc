#include "session-service/session_grpc_service.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/call_finish.h"
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

void SessionGrpcService::ServeCreateSession(CallContext* call,
                                            const v1::CreateSessionRequest* request,
                                            v1::CreateSessionResponse* response) {
  store_->CreateSession(FromProto(*request),
                        FinishWith<SessionRecord>(call, [response](const SessionRecord& s) {
                          ToProto(s, response->mutable_session());
                        }));
}

void SessionGrpcService::ServeGetSession(CallContext* call, const v1::GetSessionRequest* request,
                                         v1::GetSessionResponse* response) {
  store_->GetSession(request->session_id(),
                     FinishWith<SessionRecord>(call, [response](const SessionRecord& s) {
                       ToProto(s, response->mutable_session());
                     }));
}

void SessionGrpcService::ServeListSessions(CallContext* call,
                                           const v1::ListSessionsRequest* request,
                                           v1::ListSessionsResponse* response) {
  ListSessionsQuery query;
  query.include_closed = request->include_closed();
  query.limit = request->limit();
  store_->ListSessions(query, FinishWith<std::vector<SessionRecord>>(
                                  call, [response](const std::vector<SessionRecord>& sessions) {
                                    for (const SessionRecord& s : sessions)
                                      ToProto(s, response->add_sessions());
                                    response->set_count(static_cast<int32_t>(sessions.size()));
                                  }));
}

void SessionGrpcService::ServeCloseSession(CallContext* call,
                                           const v1::CloseSessionRequest* request,
                                           v1::CloseSessionResponse* response) {
  store_->CloseSession(request->session_id(),
                       FinishWith<SessionRecord>(call, [response](const SessionRecord& s) {
                         ToProto(s, response->mutable_session());
                       }));
}

void SessionGrpcService::ServeAppendMessage(CallContext* call,
                                            const v1::AppendMessageRequest* request,
                                            v1::AppendMessageResponse* response) {
  store_->AppendMessage(FromProto(*request),
                        FinishWith<MessageRecord>(call, [response](const MessageRecord& m) {
                          ToAppendResponse(m, response);
                        }));
}

void SessionGrpcService::ServeListMessages(CallContext* call,
                                           const v1::ListMessagesRequest* request,
                                           v1::ListMessagesResponse* response) {
  store_->QueryMessages(FromProto(*request),
                        FinishWith<MessagePage>(call, [response](const MessagePage& page) {
                          FillPage(page, response);
                        }));
}

void SessionGrpcService::ServeFilterMessages(CallContext* call,
                                             const v1::FilterMessagesRequest* request,
                                             v1::FilterMessagesResponse* response) {
  store_->QueryMessages(FromProto(*request),
                        FinishWith<MessagePage>(call, [response](const MessagePage& page) {
                          FillPage(page, response);
                        }));
}

void SessionGrpcService::ServeExportSession(CallContext* call,
                                            const v1::ExportSessionRequest* request,
                                            v1::ExportSessionResponse* response) {
  store_->ExportSession(
      request->session_id(),
      FinishWith<SessionExportRecord>(call, [response](const SessionExportRecord& e) {
        v1::SessionExport* out = response->mutable_export_();
        ToProto(e.session, out->mutable_session());
        for (const MessageRecord& m : e.messages) ToProto(m, out->add_messages());
      }));
}

void SessionGrpcService::ServeImportSession(CallContext* call,
                                            const v1::ImportSessionRequest* request,
                                            v1::ImportSessionResponse* response) {
  if (!request->has_export_()) {
    return FinishNow(
        call, absl::InvalidArgumentError("export is required: what export_session returned"));
  }
  SessionImportParams params = FromProto(request->export_());
  const int64_t count = static_cast<int64_t>(params.messages.size());
  response->set_imported_from(request->export_().session().id());
  store_->ImportSession(std::move(params),
                        FinishWith<SessionRecord>(call, [response, count](const SessionRecord& s) {
                          ToProto(s, response->mutable_session());
                          response->set_message_count(count);
                        }));
}

void SessionGrpcService::ServeFeatureIndex(CallContext* call,
                                           const v1::FeatureIndexRequest* request,
                                           v1::FeatureIndexResponse* response) {
  store_->FeatureIndex(request->session_id(),
                       FinishWith<std::map<std::string, int64_t>>(
                           call, [response](const std::map<std::string, int64_t>& counts) {
                             for (const auto& [tag, count] : counts) {
                               (*response->mutable_features())[tag] = count;
                             }
                           }));
}

void SessionGrpcService::ServeSessionStats(CallContext* call,
                                           const v1::SessionStatsRequest* request,
                                           v1::SessionStatsResponse* response) {
  store_->SessionStats(
      request->session_id(),
      FinishWith<SessionStatsRecord>(call, [response](const SessionStatsRecord& stats) {
        response->set_message_count(stats.message_count);
        response->set_last_message_id(stats.last_message_id);
        response->set_messages_per_min(stats.messages_per_min);
      }));
}

void SessionGrpcService::AddLocalMethods(LocalMethods* methods) {
  const std::string service = v1::SessionService::service_full_name();
  methods->Add(service, "CreateSession", this, &SessionGrpcService::ServeCreateSession);
  methods->Add(service, "GetSession", this, &SessionGrpcService::ServeGetSession);
  methods->Add(service, "ListSessions", this, &SessionGrpcService::ServeListSessions);
  methods->Add(service, "CloseSession", this, &SessionGrpcService::ServeCloseSession);
  methods->Add(service, "AppendMessage", this, &SessionGrpcService::ServeAppendMessage);
  methods->Add(service, "ListMessages", this, &SessionGrpcService::ServeListMessages);
  methods->Add(service, "FilterMessages", this, &SessionGrpcService::ServeFilterMessages);
  methods->Add(service, "ExportSession", this, &SessionGrpcService::ServeExportSession);
  methods->Add(service, "ImportSession", this, &SessionGrpcService::ServeImportSession);
  methods->Add(service, "FeatureIndex", this, &SessionGrpcService::ServeFeatureIndex);
  methods->Add(service, "SessionStats", this, &SessionGrpcService::ServeSessionStats);
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
