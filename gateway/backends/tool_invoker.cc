#include "gateway/backends/tool_invoker.h"

#include <google/protobuf/message.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/support/client_callback.h>

#include <atomic>

#include "absl/base/thread_annotations.h"
#include "absl/strings/cord.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/grpc_callback.h"
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
  if (InlineUnaryServer* server = channels_->InlineFor(tool.service_name)) {
    return CallInline(server, tool, arguments, options, std::move(done));
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
  if (!tool.takes_port) {
    auto fan_out = std::make_shared<FanOut>(benches.all().size(), std::move(done));
    for (const Bench& bench : benches.all()) {
      CallChannel(
          bench.channel, bench.address, bench.name, tool, arguments, options,
          [fan_out, &bench](absl::StatusOr<json> outcome) {
            Done finish;
            json merged;
            {
              absl::MutexLock lock(&fan_out->mutex);
              if (outcome.ok()) {
                SerialBenches::QualifyReply(bench, &*outcome);
                if (auto it = outcome->find("ports"); it != outcome->end()) {
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
  json local = arguments;
  if (!port.empty()) local[kPortField] = route->local_port;
  const Bench* bench = route->bench;
  return CallChannel(bench->channel, bench->address, bench->name, tool, local, options,
                     [bench, local_port = route->local_port,
                      done = std::move(done)](absl::StatusOr<json> outcome) {
                       if (outcome.ok()) {
                         SerialBenches::QualifyReply(*bench, &*outcome);
                       } else {
                         outcome =
                             SerialBenches::QualifyError(*bench, local_port, outcome.status());
                       }
                       done(std::move(outcome));
                     });
}

const grpc::internal::RpcMethod& ToolInvoker::MethodOn(
    const std::shared_ptr<grpc::Channel>& channel, const ToolBinding& tool) {
  const auto key = std::make_pair(channel.get(), &tool);
  {
    absl::ReaderMutexLock lock(&methods_mutex_);
    if (auto it = methods_.find(key); it != methods_.end()) return *it->second;
  }
  absl::MutexLock lock(&methods_mutex_);
  std::unique_ptr<grpc::internal::RpcMethod>& method = methods_[key];
  if (method == nullptr) {
    // The path's text lives in the catalog, as long as the tool.
    method = std::make_unique<grpc::internal::RpcMethod>(
        tool.grpc_path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC, channel);
  }
  return *method;
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
  call->context_.set_deadline(std::chrono::system_clock::now() + options.deadline);
  if (!options.owner.empty()) call->context_.AddMetadata(kOwnerMetadataKey, options.owner);
  for (const auto& [key, value] : options.metadata) call->context_.AddMetadata(key, value);
  return call;
}

absl::StatusOr<json> ToolInvoker::Outcome(const grpc::Status& status, PendingCall& call,
                                          grpc::Channel* channel, const std::string& service_name,
                                          const std::string& address, const std::string& bench,
                                          const std::function<void(const Answer&)>& on_answer) {
  if (!status.ok()) {
    absl::Status failed = BackendCallStatus(status, channel, service_name, address);
    for (const auto& [key, value] : call.context_.GetServerTrailingMetadata()) {
      const std::string name(key.data(), key.size());
      if (name.rfind("labgate-", 0) != 0) continue;
      failed.SetPayload(name, absl::Cord(std::string(value.data(), value.size())));
    }
    if (on_answer) on_answer({service_name, bench, failed});
    return failed;
  }
  NoteBackendAnswered(service_name, address);
  if (on_answer) on_answer({service_name, bench, absl::OkStatus()});
  return ProtoToJson(*call.response_);
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
  // The lambda keeps the call (context and messages) alive until gRPC is done with it.
  grpc::internal::CallbackUnaryCall<Message, Message>(
      channel.get(), MethodOn(channel, tool), &call->context_, call->request_.get(),
      call->response_.get(),
      OncePointerCallback([call, channel, service = &tool.service_name, address, bench,
                           on_answer = options.on_answer,
                           done = std::move(done)](const grpc::Status& status) {
        done(Outcome(status, *call, channel.get(), *service, address, bench, on_answer));
      }));
  return call;
}

std::shared_ptr<PendingCall> ToolInvoker::CallInline(InlineUnaryServer* server,
                                                     const ToolBinding& tool,
                                                     const nlohmann::json& arguments,
                                                     const Options& options, Done done) {
  absl::StatusOr<std::shared_ptr<PendingCall>> prepared = Prepare(tool, arguments, options);
  if (!prepared.ok()) {
    done(prepared.status());
    return nullptr;
  }
  std::shared_ptr<PendingCall> call = *std::move(prepared);
  call->inline_server_ = server;
  auto answered = std::make_shared<std::atomic<bool>>(false);
  server->Call(&call->context_, tool.grpc_path, *call->request_, call->response_.get(),
               [call, answered, service = &tool.service_name, on_answer = options.on_answer,
                done = std::move(done)](const grpc::Status& status) {
                 answered->store(true, std::memory_order_release);
                 done(Outcome(status, *call, nullptr, *service, "", "", on_answer));
               });
  if (answered->load(std::memory_order_acquire)) return nullptr;
  return call;
}

}  // namespace labgate::gateway
