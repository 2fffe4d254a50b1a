#include "session-service/proto_convert.h"

namespace labgate::session {

void ToProto(const SessionRecord& record, pb::Session* out) {
  out->set_id(record.id);
  out->set_device_id(record.device_id);
  out->set_port_name(record.port_name);
  out->set_created_at(record.created_at);
  out->set_updated_at(record.updated_at);
  out->set_closed(record.closed);
}

void ToProto(const MessageRecord& record, pb::Message* out) {
  out->set_message_id(record.message_id);
  out->set_session_id(record.session_id);
  out->set_role(record.role);
  if (record.direction.has_value()) out->set_direction(*record.direction);
  if (record.features.has_value()) out->set_features(*record.features);
  if (record.latency_ms.has_value()) out->set_latency_ms(*record.latency_ms);
  out->set_content(record.content);
  out->set_created_at(record.created_at);
  if (record.occurred_at.has_value()) out->set_occurred_at(*record.occurred_at);
}

void ToProto(const SessionEventRecord& record, pb::SessionEvent* out) {
  switch (record.type) {
    case SessionEventRecord::Type::kCreated:
      out->set_type(pb::SessionEvent::TYPE_CREATED);
      break;
    case SessionEventRecord::Type::kAppended:
      out->set_type(pb::SessionEvent::TYPE_APPENDED);
      break;
    case SessionEventRecord::Type::kClosed:
      out->set_type(pb::SessionEvent::TYPE_CLOSED);
      break;
  }
  ToProto(record.session, out->mutable_session());
  if (record.message.has_value()) ToProto(*record.message, out->mutable_message());
}

void ToAppendResponse(const MessageRecord& record, pb::AppendMessageResponse* out) {
  out->set_message_id(record.message_id);
  out->set_session_id(record.session_id);
  out->set_role(record.role);
  if (record.direction.has_value()) out->set_direction(*record.direction);
  if (record.features.has_value()) out->set_features(*record.features);
  if (record.latency_ms.has_value()) out->set_latency_ms(*record.latency_ms);
  out->set_created_at(record.created_at);
  if (record.occurred_at.has_value()) out->set_occurred_at(*record.occurred_at);
}

CreateSessionParams FromProto(const pb::CreateSessionRequest& request) {
  CreateSessionParams params;
  params.device_id = request.device_id();
  params.port_name = request.port_name();
  return params;
}

AppendParams FromProto(const pb::AppendMessageRequest& request) {
  AppendParams params;
  params.session_id = request.session_id();
  params.content = request.content();
  params.role = request.role();
  if (request.has_direction()) params.direction = request.direction();
  if (request.has_features()) params.features = request.features();
  if (request.has_latency_ms()) params.latency_ms = request.latency_ms();
  if (request.has_idempotency_key()) params.idempotency_key = request.idempotency_key();
  if (request.has_occurred_at()) params.occurred_at = request.occurred_at();
  return params;
}

MessageQuery FromProto(const pb::ListMessagesRequest& request) {
  MessageQuery query;
  query.session_id = request.session_id();
  query.limit = request.limit();
  query.after_message_id = request.after_message_id();
  return query;
}

MessageQuery FromProto(const pb::FilterMessagesRequest& request) {
  MessageQuery query;
  query.session_id = request.session_id();
  if (request.has_role()) query.role = request.role();
  if (request.has_feature()) query.feature = request.feature();
  if (request.has_direction()) query.direction = request.direction();
  query.limit = request.limit();
  query.after_message_id = request.after_message_id();
  return query;
}

SessionImportParams FromProto(const pb::SessionExport& exported) {
  SessionImportParams params;
  params.session.device_id = exported.session().device_id();
  params.session.port_name = exported.session().port_name();
  params.messages.reserve(exported.messages_size());
  for (const pb::Message& message : exported.messages()) {
    AppendParams& append = params.messages.emplace_back();
    append.content = message.content();
    append.role = message.role();
    if (message.has_direction()) append.direction = message.direction();
    if (message.has_features()) append.features = message.features();
    if (message.has_latency_ms()) append.latency_ms = message.latency_ms();
    append.occurred_at = message.has_occurred_at() && !message.occurred_at().empty()
                             ? message.occurred_at()
                             : message.created_at();
  }
  return params;
}

}  // namespace labgate::session
