// The embedded side of the seam: each in-process service's unary methods by their gRPC path
// ("/labgate.serial.v1.SerialService/Write"), so the gateway calls a method's one
// implementation directly, with no serialization and no gRPC. The paths come from the
// services' descriptors, like the tool catalog: a service registers its handlers, and
// CheckServesAll refuses to start a table that leaves one of its unary methods out.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/call_context.h"

namespace labgate {

class LocalMethods {
 public:
  using Message = google::protobuf::Message;
  // A method's implementation; the request and response live until the call finishes.
  using Handler = std::function<void(CallContext*, const Message*, Message*)>;
  struct Method {
    const Message* request_prototype;  // the generated type's default instance
    const Message* response_prototype;
    Handler handler;
  };

  // Serves `method_name` of the service `service_full_name` ("labgate.serial.v1.SerialService")
  // with `body`.
  template <typename Service, typename Request, typename Response>
  void Add(const std::string& service_full_name, const std::string& method_name, Service* service,
           void (Service::*body)(CallContext*, const Request*, Response*)) {
    Add(Path(service_full_name, method_name), Request::default_instance(),
        Response::default_instance(),
        [service, body](CallContext* call, const Message* request, Message* response) {
          (service->*body)(call, static_cast<const Request*>(request),
                           static_cast<Response*>(response));
        });
  }

  // nullptr when nothing serves `path`.
  const Method* Find(std::string_view path) const {
    auto it = methods_.find(path);
    return it == methods_.end() ? nullptr : &it->second;
  }

  // OK when every unary method of the service `service_full_name`, as its compiled-in
  // descriptor has it, has a handler whose messages are the method's; otherwise an error
  // naming the first that does not.
  absl::Status CheckServesAll(const std::string& service_full_name) const;

  static std::string Path(const std::string& service_full_name, const std::string& method_name) {
    return "/" + service_full_name + "/" + method_name;
  }

 private:
  void Add(std::string path, const Message& request_prototype, const Message& response_prototype,
           Handler handler);

  std::map<std::string, Method, std::less<>> methods_;
};

}  // namespace labgate
