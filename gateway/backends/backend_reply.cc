#include "gateway/backends/backend_reply.h"

#include "gateway/catalog/json_proto.h"
#include "gateway/catalog/proto_json_text.h"

namespace labgate::gateway {

using nlohmann::json;

const json& BackendReply::document() const {
  if (!document_.has_value()) document_ = ProtoToJson(*message_);
  return *document_;
}

json& BackendReply::mutable_document() {
  if (!document_.has_value()) document_ = ProtoToJson(*message_);
  message_.reset();  // the document may now differ from the message
  return *document_;
}

std::string BackendReply::Text() const {
  if (document_.has_value()) return document_->dump(-1, ' ', false, json::error_handler_t::replace);
  std::string text;
  text.reserve(256);  // most replies are a few scalars; larger ones grow from here
  AppendProtoJsonText(*message_, &text);
  return text;
}

json BackendReply::Member(const std::string& name) const {
  if (document_.has_value()) {
    auto it = document_->find(name);
    return it == document_->end() ? json() : *it;
  }
  return ProtoMemberToJson(*message_, name);
}

}  // namespace labgate::gateway
