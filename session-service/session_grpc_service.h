// labgate.session.v1.SessionService on the gRPC callback API. Every handler hands its
// request to the asynchronous SessionStore and finishes from the store's callback,
// so no gRPC thread ever waits on SQLite.
#pragma once

#include <memory>

#include "common/inline_unary.h"
#include "common/unary_call.h"
#include "labgate/session/v1/session.grpc.pb.h"
#include "session-service/store/session_store.h"
#include "session-service/watch_reactor.h"

namespace labgate::session {

class SessionGrpcService : public ::labgate::session::v1::SessionService::CallbackService {
 public:
  explicit SessionGrpcService(std::unique_ptr<SessionStore> store);
  ~SessionGrpcService() override;

  grpc::ServerUnaryReactor* CreateSession(grpc::CallbackServerContext* context,
                                          const v1::CreateSessionRequest* request,
                                          v1::CreateSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeCreateSession, context, request, response);
  }
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::GetSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeGetSession, context, request, response);
  }
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeListSessions, context, request, response);
  }
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const v1::CloseSessionRequest* request,
                                         v1::CloseSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeCloseSession, context, request, response);
  }
  grpc::ServerUnaryReactor* AppendMessage(grpc::CallbackServerContext* context,
                                          const v1::AppendMessageRequest* request,
                                          v1::AppendMessageResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeAppendMessage, context, request, response);
  }
  grpc::ServerUnaryReactor* ListMessages(grpc::CallbackServerContext* context,
                                         const v1::ListMessagesRequest* request,
                                         v1::ListMessagesResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeListMessages, context, request, response);
  }
  grpc::ServerUnaryReactor* FilterMessages(grpc::CallbackServerContext* context,
                                           const v1::FilterMessagesRequest* request,
                                           v1::FilterMessagesResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeFilterMessages, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ExportSession(grpc::CallbackServerContext* context,
                                          const v1::ExportSessionRequest* request,
                                          v1::ExportSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeExportSession, context, request, response);
  }
  grpc::ServerUnaryReactor* FeatureIndex(grpc::CallbackServerContext* context,
                                         const v1::FeatureIndexRequest* request,
                                         v1::FeatureIndexResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeFeatureIndex, context, request, response);
  }
  grpc::ServerUnaryReactor* SessionStats(grpc::CallbackServerContext* context,
                                         const v1::SessionStatsRequest* request,
                                         v1::SessionStatsResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeSessionStats, context, request, response);
  }
  grpc::ServerWriteReactor<v1::SessionEvent>* WatchSession(
      grpc::CallbackServerContext* context, const v1::WatchSessionRequest* request) override;

  // Finishes every open WatchSession stream (UNAVAILABLE) and refuses new ones, so a
  // server shutdown does not wait for them. Unary calls keep working.
  void FinishWatchStreams();
  // FinishWatchStreams(), then completes every queued write and stops the store.
  // Unary calls arriving later fail with UNAVAILABLE. Idempotent. Best called after
  // the server has drained (grpc::Server::Shutdown), so in-flight appends still land.
  void Shutdown();

  SessionStore& store() { return *store_; }

  // The methods' one implementation each, served by the callback API above and by the
  // embedded inline transport.
  void ServeCreateSession(UnaryCall* call, const v1::CreateSessionRequest* request,
                          v1::CreateSessionResponse* response);
  void ServeGetSession(UnaryCall* call, const v1::GetSessionRequest* request,
                       v1::GetSessionResponse* response);
  void ServeListSessions(UnaryCall* call, const v1::ListSessionsRequest* request,
                         v1::ListSessionsResponse* response);
  void ServeCloseSession(UnaryCall* call, const v1::CloseSessionRequest* request,
                         v1::CloseSessionResponse* response);
  void ServeAppendMessage(UnaryCall* call, const v1::AppendMessageRequest* request,
                          v1::AppendMessageResponse* response);
  void ServeListMessages(UnaryCall* call, const v1::ListMessagesRequest* request,
                         v1::ListMessagesResponse* response);
  void ServeFilterMessages(UnaryCall* call, const v1::FilterMessagesRequest* request,
                           v1::FilterMessagesResponse* response);
  void ServeExportSession(UnaryCall* call, const v1::ExportSessionRequest* request,
                          v1::ExportSessionResponse* response);
  void ServeFeatureIndex(UnaryCall* call, const v1::FeatureIndexRequest* request,
                         v1::FeatureIndexResponse* response);
  void ServeSessionStats(UnaryCall* call, const v1::SessionStatsRequest* request,
                         v1::SessionStatsResponse* response);
  // Registers every unary method on the embedded inline transport.
  void ServeInline(InlineUnaryServer* server);

 private:
  std::unique_ptr<SessionStore> store_;
  WatchRegistry watches_;
};

}  // namespace labgate::session
