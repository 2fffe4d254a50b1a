// labgate.session.v1.SessionService on the gRPC callback API. Every handler hands its
// request to the asynchronous SessionStore and finishes from the store's callback,
// so no gRPC thread ever waits on SQLite.
#pragma once

#include <memory>

#include "common/caller_auth.h"
#include "common/grpc_unary_call.h"
#include "common/local_methods.h"
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
    return ServeCallback(this, &SessionGrpcService::ServeCreateSession, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::GetSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeGetSession, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeListSessions, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const v1::CloseSessionRequest* request,
                                         v1::CloseSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeCloseSession, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* AppendMessage(grpc::CallbackServerContext* context,
                                          const v1::AppendMessageRequest* request,
                                          v1::AppendMessageResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeAppendMessage, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ListMessages(grpc::CallbackServerContext* context,
                                         const v1::ListMessagesRequest* request,
                                         v1::ListMessagesResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeListMessages, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* FilterMessages(grpc::CallbackServerContext* context,
                                           const v1::FilterMessagesRequest* request,
                                           v1::FilterMessagesResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeFilterMessages, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ExportSession(grpc::CallbackServerContext* context,
                                          const v1::ExportSessionRequest* request,
                                          v1::ExportSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeExportSession, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* ImportSession(grpc::CallbackServerContext* context,
                                          const v1::ImportSessionRequest* request,
                                          v1::ImportSessionResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeImportSession, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* FeatureIndex(grpc::CallbackServerContext* context,
                                         const v1::FeatureIndexRequest* request,
                                         v1::FeatureIndexResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeFeatureIndex, auth_, context, request,
                         response);
  }
  grpc::ServerUnaryReactor* SessionStats(grpc::CallbackServerContext* context,
                                         const v1::SessionStatsRequest* request,
                                         v1::SessionStatsResponse* response) override {
    return ServeCallback(this, &SessionGrpcService::ServeSessionStats, auth_, context, request,
                         response);
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
  // in-process calls (common/local_call.h).
  void ServeCreateSession(CallContext* call, const v1::CreateSessionRequest* request,
                          v1::CreateSessionResponse* response);
  void ServeGetSession(CallContext* call, const v1::GetSessionRequest* request,
                       v1::GetSessionResponse* response);
  void ServeListSessions(CallContext* call, const v1::ListSessionsRequest* request,
                         v1::ListSessionsResponse* response);
  void ServeCloseSession(CallContext* call, const v1::CloseSessionRequest* request,
                         v1::CloseSessionResponse* response);
  void ServeAppendMessage(CallContext* call, const v1::AppendMessageRequest* request,
                          v1::AppendMessageResponse* response);
  void ServeListMessages(CallContext* call, const v1::ListMessagesRequest* request,
                         v1::ListMessagesResponse* response);
  void ServeFilterMessages(CallContext* call, const v1::FilterMessagesRequest* request,
                           v1::FilterMessagesResponse* response);
  void ServeExportSession(CallContext* call, const v1::ExportSessionRequest* request,
                          v1::ExportSessionResponse* response);
  void ServeImportSession(CallContext* call, const v1::ImportSessionRequest* request,
                          v1::ImportSessionResponse* response);
  void ServeFeatureIndex(CallContext* call, const v1::FeatureIndexRequest* request,
                         v1::FeatureIndexResponse* response);
  void ServeSessionStats(CallContext* call, const v1::SessionStatsRequest* request,
                         v1::SessionStatsResponse* response);
  // Registers every unary method for in-process calls.
  void AddLocalMethods(LocalMethods* methods);

 private:
  std::unique_ptr<SessionStore> store_;
  // The service keeps nothing per principal, so the owner a caller names is not used.
  const CallerAuth auth_{CallerAuthOptions::TrustEveryCaller()};
  WatchRegistry watches_;
};

}  // namespace labgate::session
