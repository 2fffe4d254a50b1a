#include "gateway/backends/tool_invoker.h"

#include <google/protobuf/message.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/proto_utils.h>

#include "absl/base/thread_annotations.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/caller_metadata.h"
#include "common/confirmation_secret.h"
#include "common/grpc_callback.h"
#include "common/grpc_status.h"
#include "common/status_map.h"
#include "gateway/backends/unreachable.h"
#include "gateway/catalog/json_proto.h"

namespace labgate::gateway {

using google::protobuf::Message;
using nlohmann::json;

namespace {

constexpr char kPortField[] = "port_name";

// Collects one reply per bench for a listing, then merges them: every bench's ports,
// and the benches that did not answer instead of a failure.
struct FanOut {
  FanOut(size_t calls, ToolInvoker::Done then) : pending(calls), done(std::move(then)) {}
  absl::Mutex mutex;
  size_t pending ABSL_GUARDED_BY(mutex);
  json ports ABSL_GUARDED_BY(mutex) = json::array();
  json unreachable ABSL_GUARDED_BY(mutex) = json::array();
  ToolInvoker::Done done ABSL_GUARDED_BY(mutex);
};

}  // namespace

std::shared_ptr<PendingCall> ToolInvoker::Call(const ToolBinding& tool,
                                               const nlohmann::json& arguments,
                                               const Options& options, Done done) {
  const SerialBenches* benches = channels_->serial_benches();
  if (benches != nullptr && tool.service_name == channels_->serial_service()) {
    return CallOnBenches(*benches, tool, arguments, options, std::move(done));
  }
  if (LocalCalls* calls = channels_->LocalFor(tool.service_name)) {
    return CallLocal(calls, tool, arguments, options, std::move(done));
  }
  auto channel = channels_->For(tool.service_name);
  if (channel == nullptr) {
    done(absl::UnavailableError(absl::StrCat("no backend serves ", tool.service_name)));
    return nullptr;
  }
  return CallChannel(channel, channels_->AddressOf(tool.service_name), "", tool, arguments, options,
                     std::move(done));
}

std::shared_ptr<PendingCall> ToolInvoker::CallOnBenches(const SerialBenches& benches,
                                                        const ToolBinding& tool,
                                                        const nlohmann::json& arguments,
                                                        const Options& options, Done done) {
  const std::string principal = access::PrincipalOfOwner(options.owner);
  auto may_use = [&](const Bench& bench) {
    return access_ == nullptr ? absl::OkStatus() : access_->MayUseBench(principal, bench.name);
  };
  if (!tool.takes_port) {
    std::vector<const Bench*> allowed;
    for (const Bench& bench : benches.all()) {
      if (may_use(bench).ok()) allowed.push_back(&bench);
    }
    if (allowed.empty()) {
      done(json{{"ports", json::array()}});
      return nullptr;
    }
    auto fan_out = std::make_shared<FanOut>(allowed.size(), std::move(done));
    for (const Bench* allowed_bench : allowed) {
      const Bench& bench = *allowed_bench;
      CallChannel(
          bench.channel, bench.address, bench.name, tool, arguments, options,
          [fan_out, &bench](absl::StatusOr<BackendReply> outcome) {
            Done finish;
            json merged;
            {
              absl::MutexLock lock(&fan_out->mutex);
              if (outcome.ok()) {
                json& reply = outcome->mutable_document();
                SerialBenches::QualifyReply(bench, &reply);
                if (auto it = reply.find("ports"); it != reply.end()) {
                  for (json& port : *it) fan_out->ports.push_back(std::move(port));
                }
              } else {
                fan_out->unreachable.push_back({{"bench", bench.name},
                                                {"address", bench.address},
                                                {"error", ToolErrorText(outcome.status())}});
              }
              if (--fan_out->pending == 0) {
                finish = std::move(fan_out->done);
                merged = {{"ports", std::move(fan_out->ports)}};
                if (!fan_out->unreachable.empty()) {
                  merged["unreachable_benches"] = std::move(fan_out->unreachable);
                }
              }
            }
            if (finish) finish(std::move(merged));
          });
    }
    return nullptr;
  }
  std::string port;
  if (auto it = arguments.find(kPortField); it != arguments.end() && it->is_string()) {
    port = it->get<std::string>();
  }
  absl::StatusOr<SerialBenches::Route> route =
      port.empty()
          ? absl::StatusOr<SerialBenches::Route>(benches.Resolve(""))  // the unnamed bench, if any
          : benches.Resolve(port);
  if (!route.ok()) {
    done(port.empty() ? absl::InvalidArgumentError(
                            "several benches are configured: name the port as BENCH:PORT")
                      : route.status());
    return nullptr;
  }
  if (absl::Status allowed = may_use(*route->bench); !allowed.ok()) {
    done(allowed);
    return nullptr;
  }
  json local = arguments;
  if (!port.empty()) local[kPortField] = route->local_port;
  const Bench* bench = route->bench;
  return CallChannel(bench->channel, bench->address, bench->name, tool, local, options,
                     [bench, local_port = route->local_port,
                      done = std::move(done)](absl::StatusOr<BackendReply> outcome) {
                       if (outcome.ok()) {
                         SerialBenches::QualifyReply(*bench, &outcome->mutable_document());
                       } else {
                         outcome =
                             SerialBenches::QualifyError(*bench, local_port, outcome.status());
                       }
                       done(std::move(outcome));
                     });
}

absl::StatusOr<std::shared_ptr<PendingCall>> ToolInvoker::Prepare(const ToolBinding& tool,
                                                                  const nlohmann::json& arguments,
                                                                  const Options& options) {
  auto call = std::make_shared<PendingCall>();
  call->request_.reset(tool.request_prototype->New());
  call->response_.reset(tool.response_prototype->New());
  if (absl::Status status = JsonToProto(arguments, call->request_.get()); !status.ok()) {
    return status;
  }
  call->context_ = std::make_unique<grpc::ClientContext>();
  grpc::ClientContext& context = *call->context_;
  context.set_deadline(std::chrono::system_clock::now() + options.deadline);
  if (!options.owner.empty()) context.AddMetadata(kOwnerMetadataKey, options.owner);
  if (options.confirmation.has_value()) {
    context.AddMetadata(kConfirmationMetadataKey,
                        absl::StrCat(options.confirmation->id, ":", options.confirmation->decision,
                                     ":", ConfirmationSecret()));
    if (!options.confirmation->approver.empty()) {
      std::string approver = options.confirmation->approver;
      for (char& c : approver) {
        if (c < 0x20 || c > 0x7e) c = '?';  // metadata values are printable ASCII
      }
      context.AddMetadata(kApproverMetadataKey, approver);
    }
  }
  return call;
}

absl::StatusOr<BackendReply> ToolInvoker::Outcome(
    const grpc::Status& status, PendingCall& call, grpc::Channel* channel,
    const std::string& service_name, const std::string& address, const std::string& bench,
    const std::function<void(const Answer&)>& on_answer) {
  if (!status.ok()) {
    absl::Status failed = BackendCallStatus(status, channel, service_name, address);
    for (const auto& [key, value] : call.context_->GetServerTrailingMetadata()) {
      const std::string name(key.data(), key.size());
      if (name.rfind("labgate-", 0) != 0) continue;
      failed.SetPayload(name, absl::Cord(std::string(value.data(), value.size())));
    }
    if (on_answer) on_answer({service_name, bench, failed});
    return failed;
  }
  NoteBackendAnswered(service_name, address);
  if (on_answer) on_answer({service_name, bench, absl::OkStatus()});
  return BackendReply(std::shared_ptr<const Message>(std::move(call.response_)));
}

std::shared_ptr<PendingCall> ToolInvoker::CallChannel(const std::shared_ptr<grpc::Channel>& channel,
                                                      const std::string& address,
                                                      const std::string& bench,
                                                      const ToolBinding& tool,
                                                      const nlohmann::json& arguments,
                                                      const Options& options, Done done) {
  absl::StatusOr<std::shared_ptr<PendingCall>> prepared = Prepare(tool, arguments, options);
  if (!prepared.ok()) {
    done(prepared.status());
    return nullptr;
  }
  std::shared_ptr<PendingCall> call = *std::move(prepared);
  grpc::ByteBuffer request;
  bool own_buffer = false;
  if (grpc::Status serialized =
          grpc::SerializationTraits<Message>::Serialize(*call->request_, &request, &own_buffer);
      !serialized.ok()) {
    done(FromGrpcStatus(serialized));
    return nullptr;
  }
  auto response = std::make_shared<grpc::ByteBuffer>();
  grpc::GenericStub stub(channel);
  // The lambda keeps the call (context and messages) alive until gRPC is done with it.
  stub.UnaryCall(call->context_.get(), tool.grpc_path, grpc::StubOptions(), &request,
                 response.get(),
                 OncePointerCallback([call, response, channel, service = &tool.service_name,
                                      address, bench, on_answer = options.on_answer,
                                      done = std::move(done)](grpc::Status status) {
                   if (status.ok()) {
                     status = grpc::SerializationTraits<Message>::Deserialize(
                         response.get(), call->response_.get());
                   }
                   done(Outcome(status, *call, channel.get(), *service, address, bench, on_answer));
                 }));
  return call;
}

std::shared_ptr<PendingCall> ToolInvoker::CallLocal(LocalCalls* calls, const ToolBinding& tool,
                                                    const nlohmann::json& arguments,
                                                    const Options& options, Done done) {
  const LocalMethods::Method* method = calls->methods().Find(tool.grpc_path);
  if (method == nullptr) {
    done(absl::UnimplementedError(absl::StrCat(tool.grpc_path, " is not served in process")));
    return nullptr;
  }
  std::unique_ptr<Message> request(method->request_prototype->New());
  if (absl::Status status = JsonToProto(arguments, request.get()); !status.ok()) {
    done(status);
    return nullptr;
  }
  LocalCallOptions local;
  local.principal = options.owner;
  local.deadline = absl::Now() + absl::FromChrono(options.deadline);
  local.confirmation = options.confirmation;
  auto call = std::make_shared<PendingCall>();
  call->local_ = calls->Start(
      *method, std::move(local), std::move(request),
      [service = &tool.service_name, on_answer = options.on_answer, done = std::move(done)](
          const absl::Status& status, std::shared_ptr<const Message> response) {
        if (on_answer) on_answer({*service, "", status});
        if (!status.ok()) return done(status);
        done(BackendReply(std::move(response)));
      });
  if (call->local_->ended()) return nullptr;
  return call;
}

}  // namespace labgate::gateway
