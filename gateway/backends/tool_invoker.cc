#include "gateway/backends/tool_invoker.h"

#include <google/protobuf/message.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "common/status_map.h"
#include "gateway/catalog/json_proto.h"

namespace labgate::gateway {

using google::protobuf::Message;
using ProtoGenericStub = grpc::TemplatedGenericStub<Message, Message>;

std::shared_ptr<PendingCall> ToolInvoker::Call(const ToolBinding& tool,
                                               const nlohmann::json& arguments,
                                               const Options& options, Done done) {
  auto channel = channels_->For(tool.service_name);
  if (channel == nullptr) {
    done(absl::UnavailableError(absl::StrCat("no backend serves ", tool.service_name)));
    return nullptr;
  }
  auto* factory = google::protobuf::MessageFactory::generated_factory();
  std::shared_ptr<Message> request(factory->GetPrototype(tool.method->input_type())->New());
  std::shared_ptr<Message> response(factory->GetPrototype(tool.method->output_type())->New());
  if (absl::Status status = JsonToProto(arguments, request.get()); !status.ok()) {
    done(status);
    return nullptr;
  }
  auto call = std::make_shared<PendingCall>();
  call->context_.set_deadline(std::chrono::system_clock::now() + options.deadline);
  if (!options.owner.empty()) call->context_.AddMetadata(kOwnerMetadataKey, options.owner);
  for (const auto& [key, value] : options.metadata) call->context_.AddMetadata(key, value);
  ProtoGenericStub stub(channel);
  // The lambda keeps request, response and context alive until gRPC is done with them.
  stub.UnaryCall(&call->context_, tool.grpc_path, grpc::StubOptions(), request.get(),
                 response.get(),
                 [call, request, response, done = std::move(done)](grpc::Status status) {
                   if (!status.ok()) {
                     absl::Status failed = FromGrpcStatus(status);
                     for (const auto& [key, value] : call->context_.GetServerTrailingMetadata()) {
                       const std::string name(key.data(), key.size());
                       if (name.rfind("labgate-", 0) != 0) continue;
                       failed.SetPayload(name, absl::Cord(std::string(value.data(), value.size())));
                     }
                     done(failed);
                     return;
                   }
                   done(ProtoToJson(*response));
                 });
  return call;
}

}  // namespace labgate::gateway
