// Conversions between the store's records and the labgate.session.v1 messages.
#pragma once

#include "labgate/session/v1/session.pb.h"
#include "session-service/store/session_store.h"

namespace labgate::session {

namespace pb = ::labgate::session::v1;

void ToProto(const SessionRecord& record, pb::Session* out);
void ToProto(const MessageRecord& record, pb::Message* out);
void ToProto(const SessionEventRecord& record, pb::SessionEvent* out);
void ToAppendResponse(const MessageRecord& record, pb::AppendMessageResponse* out);

CreateSessionParams FromProto(const pb::CreateSessionRequest& request);
AppendParams FromProto(const pb::AppendMessageRequest& request);
MessageQuery FromProto(const pb::ListMessagesRequest& request);
MessageQuery FromProto(const pb::FilterMessagesRequest& request);
// An export's messages keep their role, direction, features, latency and content; each keeps
// when it happened (its occurred_at, or when it was stored there).
SessionImportParams FromProto(const pb::SessionExport& exported);

}  // namespace labgate::session
