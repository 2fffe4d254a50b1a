// labgate.session.v1.SessionService on the gRPC callback API. Every handler hands its
// request to the asynchronous SessionStore and finishes from the store's callback,
// so no gRPC thread ever waits on SQLite.
#pragma once

#include <memory>

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
                                          v1::CreateSessionResponse* response) override;
  grpc::ServerUnaryReactor* GetSession(grpc::CallbackServerContext* context,
                                       const v1::GetSessionRequest* request,
                                       v1::GetSessionResponse* response) override;
  grpc::ServerUnaryReactor* ListSessions(grpc::CallbackServerContext* context,
                                         const v1::ListSessionsRequest* request,
                                         v1::ListSessionsResponse* response) override;
  grpc::ServerUnaryReactor* CloseSession(grpc::CallbackServerContext* context,
                                         const v1::CloseSessionRequest* request,
                                         v1::CloseSessionResponse* response) override;
  grpc::ServerUnaryReactor* AppendMessage(grpc::CallbackServerContext* context,
                                          const v1::AppendMessageRequest* request,
                                          v1::AppendMessageResponse* response) override;
  grpc::ServerUnaryReactor* ListMessages(grpc::CallbackServerContext* context,
                                         const v1::ListMessagesRequest* request,
                                         v1::ListMessagesResponse* response) override;
  grpc::ServerUnaryReactor* FilterMessages(grpc::CallbackServerContext* context,
                                           const v1::FilterMessagesRequest* request,
                                           v1::FilterMessagesResponse* response) override;
  grpc::ServerUnaryReactor* ExportSession(grpc::CallbackServerContext* context,
                                          const v1::ExportSessionRequest* request,
                                          v1::ExportSessionResponse* response) override;
  grpc::ServerUnaryReactor* FeatureIndex(grpc::CallbackServerContext* context,
                                         const v1::FeatureIndexRequest* request,
                                         v1::FeatureIndexResponse* response) override;
  grpc::ServerUnaryReactor* SessionStats(grpc::CallbackServerContext* context,
                                         const v1::SessionStatsRequest* request,
                                         v1::SessionStatsResponse* response) override;
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

 private:
  std::unique_ptr<SessionStore> store_;
  WatchRegistry watches_;
};

}  // namespace labgate::session
