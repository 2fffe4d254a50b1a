#include "common/local_methods.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace labgate {

void LocalMethods::Add(std::string path, const Message& request_prototype,
                       const Message& response_prototype, Handler handler) {
  methods_[std::move(path)] = Method{&request_prototype, &response_prototype, std::move(handler)};
}

absl::Status LocalMethods::CheckServesAll(const std::string& service_full_name) const {
  const google::protobuf::ServiceDescriptor* described =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service_full_name);
  if (described == nullptr) {
    return absl::InternalError(absl::StrCat("no compiled-in service ", service_full_name));
  }
  const google::protobuf::ServiceDescriptor& service = *described;
  for (int i = 0; i < service.method_count(); ++i) {
    const google::protobuf::MethodDescriptor& method = *service.method(i);
    if (method.client_streaming() || method.server_streaming()) continue;
    const Method* served = Find(Path(service.full_name(), method.name()));
    if (served == nullptr) {
      return absl::InternalError(absl::StrCat(method.full_name(), " has no in-process handler"));
    }
    if (served->request_prototype->GetDescriptor() != method.input_type() ||
        served->response_prototype->GetDescriptor() != method.output_type()) {
      return absl::InternalError(
          absl::StrCat(method.full_name(), "'s in-process handler takes other messages"));
    }
  }
  return absl::OkStatus();
}

}  // namespace labgate
