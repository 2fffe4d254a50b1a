// grpc.reflection.v1 beside the v1alpha service that Debian's grpc++ builds in. Both
// answer from the generated descriptor pool, so a client of either sees the same
// services and files.
#pragma once

#include <grpcpp/impl/server_builder_option.h>

#include <memory>

namespace labgate {

// Pass to ServerBuilder::SetOption: registers grpc.reflection.v1.ServerReflection and
// lists every service of the server it is built into.
std::unique_ptr<grpc::ServerBuilderOption> ReflectionV1Option();

}  // namespace labgate
