// The loaf rpc dialect's texts: which messages it claims, its handshake, ping, its
// -32602 shape and its event notifications. Pure functions, so they are tested alone.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace labgate::gateway::loaf {

inline constexpr char kProtocolVersion[] = "1.0.0";

// A JSON-RPC object whose method starts with rpc., system. or session. (on stdio, before
// the MCP dialects look at it; MCP has no such methods).
bool ClaimsMessage(const nlohmann::json& body);

// A rejected parameter: -32602 with data {reason, field}.
struct ParamError {
  std::string reason;
  std::string field;
};
nlohmann::json ErrorData(const ParamError& error);

// rpc.handshake's result, or why it is refused.
struct HandshakeOutcome {
  std::optional<ParamError> error;
  nlohmann::json result;
};
HandshakeOutcome Handshake(const nlohmann::json& params);

// system.ping's result: {ok:true, time}.
nlohmann::json Ping();

// The methods the dialect answers, as rpc.handshake lists them.
const nlohmann::json& Methods();
// The MCP tool a loaf method does the work of, for the access file ("session.create" ->
// "create_session"); "" for the methods that touch nothing (rpc.handshake, system.ping) and for
// system.shutdown, which the access file treats as a console action.
std::string ToolForMethod(const std::string& method);
bool KnowsMethod(std::string_view method);

// params as an object ({} when absent), or the error for any other shape.
std::optional<ParamError> ParamsObject(const nlohmann::json& body, nlohmann::json* params);
// An optional string member; an error when present with another type (or empty and
// `required`).
std::optional<ParamError> StringParam(const nlohmann::json& params, const std::string& field,
                                      bool required, std::string* value);

// {"jsonrpc":"2.0","method":"event","params":{type, timestamp, payload}}, serialized.
std::string Event(std::string_view type, nlohmann::json payload);

// The current time, RFC 3339 UTC with milliseconds.
std::string NowRfc3339();

}  // namespace labgate::gateway::loaf
