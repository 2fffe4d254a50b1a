// A direct gRPC caller of the serial service for auth and access tests: it presents `token`
// as "authorization: Bearer" and names `owner` as labgate-owner (either may be empty).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::serial {

class Caller {
 public:
  Caller(std::shared_ptr<grpc::Channel> channel, std::string token, std::string owner)
      : stub_(v1::SerialService::NewStub(std::move(channel))),
        token_(std::move(token)),
        owner_(std::move(owner)) {}

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
    if (!owner_.empty()) context->AddMetadata("labgate-owner", owner_);
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
    return context;
  }
  grpc::Status Open(const std::string& port) {
    v1::OpenPortRequest request;
    request.set_port_name(port);
    request.set_baud_rate(9600);
    v1::OpenPortResponse response;
    return stub_->OpenPort(Context().get(), request, &response);
  }
  grpc::Status Write(const std::string& port, const std::string& data) {
    v1::WriteRequest request;
    request.set_port_name(port);
    request.set_data(data);
    v1::WriteResponse response;
    return stub_->Write(Context().get(), request, &response);
  }
  grpc::Status ForceClose(const std::string& port, const std::string& by,
                          const std::string& reason) {
    v1::ForceCloseRequest request;
    request.set_port_name(port);
    request.set_by(by);
    request.set_reason(reason);
    v1::ClosePortResponse response;
    return stub_->ForceClose(Context().get(), request, &response);
  }
  // Starts a Subscribe stream on `port` and reads its first event into `event`, then ends it:
  // OK once an event came, else the status the stream was refused with.
  grpc::Status Subscribe(const std::string& port, v1::PortEvent* event) {
    v1::SubscribeRequest request;
    request.set_port_name(port);
    std::unique_ptr<grpc::ClientContext> context = Context();
    return FirstEvent(*context, stub_->Subscribe(context.get(), request), event);
  }
  // The same for a WatchPorts stream (its first event is an open port's current state).
  grpc::Status WatchPorts(v1::PortEvent* event) {
    std::unique_ptr<grpc::ClientContext> context = Context();
    return FirstEvent(*context, stub_->WatchPorts(context.get(), v1::WatchPortsRequest()), event);
  }
  absl::StatusOr<v1::GetStatusResponse> Status(const std::string& port) {
    v1::GetStatusRequest request;
    request.set_port_name(port);
    v1::GetStatusResponse response;
    grpc::Status status = stub_->GetStatus(Context().get(), request, &response);
    if (!status.ok()) return absl::UnknownError(status.error_message());
    return response;
  }

 private:
  static grpc::Status FirstEvent(grpc::ClientContext& context,
                                 std::unique_ptr<grpc::ClientReader<v1::PortEvent>> reader,
                                 v1::PortEvent* event) {
    if (!reader->Read(event)) return reader->Finish();
    context.TryCancel();
    v1::PortEvent ignored;
    while (reader->Read(&ignored)) {
    }
    reader->Finish().IgnoreError();
    return grpc::Status::OK;
  }

  std::unique_ptr<v1::SerialService::Stub> stub_;
  std::string token_;
  std::string owner_;
};

}  // namespace labgate::serial
