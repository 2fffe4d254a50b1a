// grpc.reflection.v1 is served beside v1alpha by every ServiceHost, from the same pool.
#include <google/protobuf/descriptor.pb.h>
#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "common/service_host.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"

namespace labgate {
namespace {

namespace v1 = grpc::reflection::v1;

class ReflectionV1Test : public testing::Test {
 protected:
  void SetUp() override {
    auto host = ServiceHost::Start("127.0.0.1:0", {});
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
    auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(host_->port()),
                                       grpc::InsecureChannelCredentials());
    stub_ = v1::ServerReflection::NewStub(channel);
    stream_ = stub_->ServerReflectionInfo(&context_);
  }
  void TearDown() override {
    if (stream_) {
      stream_->WritesDone();
      EXPECT_TRUE(stream_->Finish().ok());
    }
  }
  v1::ServerReflectionResponse Ask(const v1::ServerReflectionRequest& request) {
    EXPECT_TRUE(stream_->Write(request));
    v1::ServerReflectionResponse response;
    EXPECT_TRUE(stream_->Read(&response));
    return response;
  }

  std::unique_ptr<ServiceHost> host_;
  std::unique_ptr<v1::ServerReflection::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<
      grpc::ClientReaderWriter<v1::ServerReflectionRequest, v1::ServerReflectionResponse>>
      stream_;
};

TEST_F(ReflectionV1Test, ListsBothReflectionVersionsAndHealth) {
  v1::ServerReflectionRequest request;
  request.set_list_services("");
  v1::ServerReflectionResponse response = Ask(request);
  std::vector<std::string> names;
  for (const auto& service : response.list_services_response().service()) {
    names.push_back(service.name());
  }
  for (const char* want : {"grpc.reflection.v1.ServerReflection",
                           "grpc.reflection.v1alpha.ServerReflection", "grpc.health.v1.Health"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), want), names.end()) << want;
  }
  EXPECT_EQ(response.original_request().list_services(), "");
}

TEST_F(ReflectionV1Test, FileContainingSymbolCarriesItsDependencies) {
  v1::ServerReflectionRequest request;
  request.set_file_containing_symbol("grpc.reflection.v1.ServerReflection");
  v1::ServerReflectionResponse response = Ask(request);
  ASSERT_EQ(response.file_descriptor_response().file_descriptor_proto_size(), 1);
  google::protobuf::FileDescriptorProto file;
  ASSERT_TRUE(file.ParseFromString(response.file_descriptor_response().file_descriptor_proto(0)));
  EXPECT_EQ(file.name(), "grpc/reflection/v1/reflection.proto");
  EXPECT_EQ(file.service(0).name(), "ServerReflection");

  // Asked again on the same stream, the file is sent again.
  response = Ask(request);
  EXPECT_EQ(response.file_descriptor_response().file_descriptor_proto_size(), 1);

  request.set_file_by_filename("grpc/reflection/v1/reflection.proto");
  response = Ask(request);
  EXPECT_EQ(response.file_descriptor_response().file_descriptor_proto_size(), 1);
}

TEST_F(ReflectionV1Test, UnknownSymbolIsNotFound) {
  v1::ServerReflectionRequest request;
  request.set_file_containing_symbol("no.such.Symbol");
  v1::ServerReflectionResponse response = Ask(request);
  EXPECT_EQ(response.error_response().error_code(), static_cast<int>(grpc::StatusCode::NOT_FOUND));
}

}  // namespace
}  // namespace labgate
