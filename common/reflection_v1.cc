#include "common/reflection_v1.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/impl/server_builder_plugin.h>
#include <grpcpp/impl/server_initializer.h>

#include <set>
#include <string>
#include <vector>

#include "grpc/reflection/v1/reflection.grpc.pb.h"

namespace labgate {
namespace {

namespace v1 = grpc::reflection::v1;
using google::protobuf::DescriptorPool;
using google::protobuf::FileDescriptor;

class ReflectionV1Service final : public v1::ServerReflection::CallbackService {
 public:
  // `services` is the server's own list of registered names; it outlives every call.
  void set_services(const std::vector<std::string>* services) { services_ = services; }

  grpc::ServerBidiReactor<v1::ServerReflectionRequest, v1::ServerReflectionResponse>*
  ServerReflectionInfo(grpc::CallbackServerContext* /*context*/) override {
    return new Reactor(services_);
  }

 private:
  // One request at a time: read, answer, read again, until the client half-closes.
  class Reactor final
      : public grpc::ServerBidiReactor<v1::ServerReflectionRequest, v1::ServerReflectionResponse> {
   public:
    explicit Reactor(const std::vector<std::string>* services) : services_(services) {
      StartRead(&request_);
    }
    void OnReadDone(bool ok) override {
      if (!ok) return Finish(grpc::Status::OK);
      Answer();
      StartWrite(&response_);
    }
    void OnWriteDone(bool ok) override {
      if (!ok) return Finish(grpc::Status(grpc::StatusCode::UNKNOWN, "write failed"));
      StartRead(&request_);
    }
    void OnDone() override { delete this; }

   private:
    void Answer() {
      response_.Clear();
      response_.set_valid_host(request_.host());
      *response_.mutable_original_request() = request_;
      const DescriptorPool* pool = DescriptorPool::generated_pool();
      switch (request_.message_request_case()) {
        case v1::ServerReflectionRequest::kListServices:
          if (services_ != nullptr) {
            for (const std::string& name : *services_) {
              response_.mutable_list_services_response()->add_service()->set_name(name);
            }
          }
          return;
        case v1::ServerReflectionRequest::kFileByFilename:
          return SendFile(pool->FindFileByName(request_.file_by_filename()));
        case v1::ServerReflectionRequest::kFileContainingSymbol:
          return SendFile(pool->FindFileContainingSymbol(request_.file_containing_symbol()));
        case v1::ServerReflectionRequest::kFileContainingExtension: {
          const auto& extension = request_.file_containing_extension();
          const auto* type = pool->FindMessageTypeByName(extension.containing_type());
          const auto* field = type == nullptr
                                  ? nullptr
                                  : pool->FindExtensionByNumber(type, extension.extension_number());
          return SendFile(field == nullptr ? nullptr : field->file());
        }
        case v1::ServerReflectionRequest::kAllExtensionNumbersOfType: {
          const auto* type = pool->FindMessageTypeByName(request_.all_extension_numbers_of_type());
          if (type == nullptr) return Error(grpc::StatusCode::NOT_FOUND, "type not found");
          std::vector<const google::protobuf::FieldDescriptor*> extensions;
          pool->FindAllExtensions(type, &extensions);
          auto* numbers = response_.mutable_all_extension_numbers_response();
          numbers->set_base_type_name(type->full_name());
          for (const auto* field : extensions) numbers->add_extension_number(field->number());
          return;
        }
        default:
          return Error(grpc::StatusCode::UNIMPLEMENTED, "unknown reflection request");
      }
    }

    // The file and everything it imports, each once per stream, as v1alpha does.
    void SendFile(const FileDescriptor* file) {
      if (file == nullptr) return Error(grpc::StatusCode::NOT_FOUND, "not found");
      auto* files = response_.mutable_file_descriptor_response();
      std::vector<const FileDescriptor*> pending{file};
      while (!pending.empty()) {
        const FileDescriptor* next = pending.back();
        pending.pop_back();
        if (!sent_.insert(next->name()).second) continue;
        google::protobuf::FileDescriptorProto proto;
        next->CopyTo(&proto);
        proto.SerializeToString(files->add_file_descriptor_proto());
        for (int i = 0; i < next->dependency_count(); ++i) pending.push_back(next->dependency(i));
      }
      // A file already sent on this stream is sent again when asked for directly.
      if (files->file_descriptor_proto_size() == 0) {
        google::protobuf::FileDescriptorProto proto;
        file->CopyTo(&proto);
        proto.SerializeToString(files->add_file_descriptor_proto());
      }
    }

    void Error(grpc::StatusCode code, const std::string& message) {
      response_.mutable_error_response()->set_error_code(static_cast<int>(code));
      response_.mutable_error_response()->set_error_message(message);
    }

    const std::vector<std::string>* services_;
    std::set<std::string> sent_;
    v1::ServerReflectionRequest request_;
    v1::ServerReflectionResponse response_;
  };

  const std::vector<std::string>* services_ = nullptr;
};

class ReflectionV1Plugin final : public grpc::ServerBuilderPlugin {
 public:
  std::string name() override { return "labgate_reflection_v1"; }
  // The builder's services are registered before plugins run, and the server's list
  // does not change once it starts, so the service can read it from its first call.
  void InitServer(grpc::ServerInitializer* initializer) override {
    service_->set_services(initializer->GetServiceList());
    initializer->RegisterService(service_);
  }
  void Finish(grpc::ServerInitializer* /*initializer*/) override {}
  void ChangeArguments(const std::string& /*name*/, void* /*value*/) override {}

 private:
  std::shared_ptr<ReflectionV1Service> service_ = std::make_shared<ReflectionV1Service>();
};

class ReflectionV1BuilderOption final : public grpc::ServerBuilderOption {
 public:
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>* plugins) override {
    plugins->push_back(std::make_unique<ReflectionV1Plugin>());
  }
};

}  // namespace

std::unique_ptr<grpc::ServerBuilderOption> ReflectionV1Option() {
  return std::make_unique<ReflectionV1BuilderOption>();
}

}  // namespace labgate
