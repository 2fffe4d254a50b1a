// A backend's answer to one tool call. One backend's reply keeps its message: its JSON text is
// written straight from it (proto_json_text.h) and a member is read from its one field, so the
// JSON document, which most calls never need, is built only when asked for. A listing merged
// over several benches is a document from the start.
#pragma once

#include <google/protobuf/message.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace labgate::gateway {

class BackendReply {
 public:
  BackendReply(nlohmann::json document)  // NOLINT(google-explicit-constructor): JSON is the norm
      : document_(std::move(document)) {}
  explicit BackendReply(std::shared_ptr<const google::protobuf::Message> message)
      : message_(std::move(message)) {}

  // The reply as a JSON document, built from the message on first use.
  const nlohmann::json& document() const;
  nlohmann::json& mutable_document();
  // The reply as JSON text: the bytes document().dump() gives, with invalid UTF-8 replaced.
  std::string Text() const;
  // The document's member `name`, or null; from a message, only that field is converted.
  nlohmann::json Member(const std::string& name) const;

 private:
  std::shared_ptr<const google::protobuf::Message> message_;
  // Built once, by whoever holds the reply (a reply is handed on, not shared between threads).
  mutable std::optional<nlohmann::json> document_;
};

}  // namespace labgate::gateway
