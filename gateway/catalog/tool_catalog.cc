#include "gateway/catalog/tool_catalog.h"

#include <string_view>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gateway/catalog/tool_schema.h"
#include "labgate/mcp/v1/annotations.pb.h"

namespace labgate::gateway {

nlohmann::json ToolBinding::ToJson() const {
  nlohmann::json tool = {{"name", name}, {"inputSchema", input_schema}};
  if (!title.empty()) tool["title"] = title;
  if (!description.empty()) tool["description"] = description;
  if (!output_schema.is_null()) tool["outputSchema"] = output_schema;
  if (!annotations.empty()) tool["annotations"] = annotations;
  if (!task_support.empty()) tool["execution"] = {{"taskSupport", task_support}};
  return tool;
}

namespace {

// The sum of the numbers at `path` ("a.b": field b of a, or of each element of a) in `value`.
double SumAt(const nlohmann::json& value, std::string_view path) {
  if (value.is_array()) {
    double sum = 0;
    for (const nlohmann::json& element : value) sum += SumAt(element, path);
    return sum;
  }
  if (!value.is_object()) return 0;
  const size_t dot = path.find('.');
  auto field = value.find(std::string(path.substr(0, dot)));
  if (field == value.end()) return 0;
  if (dot != std::string_view::npos) return SumAt(*field, path.substr(dot + 1));
  return field->is_number() ? field->get<double>() : 0;
}

}  // namespace

int64_t ToolBinding::ExpectedDurationMs(const nlohmann::json& arguments) const {
  double total_ms = 0;
  for (const std::string& path : duration_fields) {
    const bool seconds = absl::EndsWith(path, "_s");
    total_ms += SumAt(arguments, path) * (seconds ? 1000 : 1);
  }
  return static_cast<int64_t>(total_ms);
}

absl::StatusOr<std::unique_ptr<ToolCatalog>> ToolCatalog::FromServices(
    const std::vector<const google::protobuf::ServiceDescriptor*>& services) {
  auto catalog = std::make_unique<ToolCatalog>();
  for (const auto* service : services) {
    for (int i = 0; i < service->method_count(); ++i) {
      const auto* method = service->method(i);
      if (!method->options().HasExtension(labgate::mcp::v1::tool)) continue;
      const auto& options = method->options().GetExtension(labgate::mcp::v1::tool);
      if (method->client_streaming() || method->server_streaming()) {
        return absl::InvalidArgumentError(
            absl::StrCat(method->full_name(), " is streaming and cannot be a tool"));
      }
      ToolBinding binding;
      binding.name = options.name().empty() ? method->name() : options.name();
      binding.title = options.title();
      binding.description = options.description();
      binding.annotations = nlohmann::json::object();
      if (!options.title().empty()) binding.annotations["title"] = options.title();
      binding.annotations["readOnlyHint"] = options.read_only_hint();
      binding.annotations["destructiveHint"] = options.destructive_hint();
      binding.annotations["idempotentHint"] = options.idempotent_hint();
      binding.annotations["openWorldHint"] = options.open_world_hint();
      binding.input_schema = MessageSchema(method->input_type(), SchemaRole::kInput);
      binding.output_schema = MessageSchema(method->output_type(), SchemaRole::kOutput);
      binding.method = method;
      binding.grpc_path = absl::StrCat("/", service->full_name(), "/", method->name());
      binding.service_name = service->full_name();
      auto* factory = google::protobuf::MessageFactory::generated_factory();
      binding.request_prototype = factory->GetPrototype(method->input_type());
      binding.response_prototype = factory->GetPrototype(method->output_type());
      if (binding.request_prototype == nullptr || binding.response_prototype == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(method->full_name(), " has no compiled-in message types"));
      }
      binding.takes_port = method->input_type()->FindFieldByName("port_name") != nullptr;
      if (!options.task_support().empty() && options.task_support() != "optional" &&
          options.task_support() != "required") {
        return absl::InvalidArgumentError(
            absl::StrCat(method->full_name(), ": task_support is \"optional\" or \"required\""));
      }
      binding.task_support = options.task_support();
      binding.duration_fields.assign(options.duration_fields().begin(),
                                     options.duration_fields().end());
      if (catalog->index_.contains(binding.name)) {
        return absl::AlreadyExistsError(
            absl::StrCat("duplicate tool name '", binding.name, "' on ", method->full_name()));
      }
      catalog->index_[binding.name] = catalog->tools_.size();
      catalog->tools_.push_back(std::move(binding));
    }
  }
  return catalog;
}

const ToolBinding* ToolCatalog::Find(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tools_[it->second];
}

}  // namespace labgate::gateway
