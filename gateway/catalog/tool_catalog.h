// The MCP tools labgate offers, derived from (labgate.mcp.v1.tool) method options.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::gateway {

// One tool and the unary gRPC method behind it. (The exception analysis follows nlohmann::json's
// destructor into paths that do not throw for the schemas held here.)
struct ToolBinding {  // NOLINT(bugprone-exception-escape)
  std::string name;
  std::string title;
  std::string description;
  nlohmann::json annotations;  // MCP ToolAnnotations
  nlohmann::json input_schema;
  nlohmann::json output_schema;
  const google::protobuf::MethodDescriptor* method = nullptr;
  std::string grpc_path;     // "/labgate.session.v1.SessionService/CreateSession"
  std::string service_name;  // "labgate.session.v1.SessionService"
  // Looked up once, when the catalog is built, rather than on every call.
  const google::protobuf::Message* request_prototype = nullptr;
  const google::protobuf::Message* response_prototype = nullptr;
  bool takes_port = false;  // the request has port_name (serial calls routed per bench)
  // MCP tasks (issue 34): "optional", "required" or "" (never), and the request fields whose
  // sum says how long a call is expected to take (annotations.proto's duration_fields).
  std::string task_support;
  std::vector<std::string> duration_fields;

  // The tool as it appears in tools/list.
  nlohmann::json ToJson() const;
  // What a call with `arguments` is expected to take, from duration_fields (0 without them).
  int64_t ExpectedDurationMs(const nlohmann::json& arguments) const;
};

class ToolCatalog {
 public:
  // Collects every annotated method of `services`. Fails on a duplicate tool name or
  // an annotated streaming method.
  static absl::StatusOr<std::unique_ptr<ToolCatalog>> FromServices(
      const std::vector<const google::protobuf::ServiceDescriptor*>& services);

  const ToolBinding* Find(const std::string& name) const;
  // In a stable order (service order, then declaration order).
  const std::vector<ToolBinding>& tools() const { return tools_; }

 private:
  std::vector<ToolBinding> tools_;
  std::map<std::string, size_t> index_;
};

}  // namespace labgate::gateway
