// A blocking test client for labgate.serial.v1.SerialService that sends an owner id, and the
// bearer token that lets the service believe it when one is given.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>

#include "labgate/serial/v1/serial.grpc.pb.h"

namespace labgate::serial::testing {

class SerialClient {
 public:
  SerialClient(std::shared_ptr<grpc::Channel> channel, std::string owner, std::string token = "")
      : stub_(v1::SerialService::NewStub(std::move(channel))),
        owner_(std::move(owner)),
        token_(std::move(token)) {}

  v1::SerialService::Stub* stub() { return stub_.get(); }
  const std::string& owner() const { return owner_; }

  // A context carrying the owner id and a deadline.
  std::unique_ptr<grpc::ClientContext> Context(
      std::chrono::milliseconds deadline = std::chrono::seconds(20)) const {
    auto context = std::make_unique<grpc::ClientContext>();
    if (!owner_.empty()) context->AddMetadata("labgate-owner", owner_);
    if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
    context->set_deadline(std::chrono::system_clock::now() + deadline);
    return context;
  }

  grpc::Status Open(const v1::OpenPortRequest& request, v1::OpenPortResponse* response = nullptr) {
    v1::OpenPortResponse ignored;
    return stub_->OpenPort(Context().get(), request, response ? response : &ignored);
  }
  grpc::Status Open(const std::string& port, int64_t baud_rate,
                    const std::string& terminator = "") {
    v1::OpenPortRequest request;
    request.set_port_name(port);
    request.set_baud_rate(baud_rate);
    if (!terminator.empty()) request.set_terminator(terminator);
    return Open(request);
  }
  grpc::Status Write(const std::string& port, const std::string& data,
                     v1::Encoding encoding = v1::ENCODING_TEXT,
                     v1::WriteResponse* response = nullptr) {
    v1::WriteRequest request;
    if (!port.empty()) request.set_port_name(port);
    request.set_data(data);
    request.set_encoding(encoding);
    v1::WriteResponse ignored;
    return stub_->Write(Context().get(), request, response ? response : &ignored);
  }
  grpc::Status Read(const std::string& port, int64_t timeout_ms, v1::ReadResponse* response,
                    v1::Encoding encoding = v1::ENCODING_TEXT, int64_t max_bytes = 0) {
    v1::ReadRequest request;
    if (!port.empty()) request.set_port_name(port);
    request.set_timeout_ms(timeout_ms);
    request.set_encoding(encoding);
    if (max_bytes > 0) request.set_max_bytes(max_bytes);
    return stub_->Read(Context().get(), request, response);
  }
  grpc::Status Query(const std::string& port, const std::string& data, int64_t timeout_ms,
                     v1::QueryResponse* response, v1::Encoding encoding = v1::ENCODING_TEXT,
                     int64_t max_bytes = 0) {
    v1::QueryRequest request;
    if (!port.empty()) request.set_port_name(port);
    request.set_data(data);
    request.set_timeout_ms(timeout_ms);
    request.set_encoding(encoding);
    if (max_bytes > 0) request.set_max_bytes(max_bytes);
    return stub_->Query(Context().get(), request, response);
  }
  grpc::Status Close(const std::string& port, v1::ClosePortResponse* response = nullptr) {
    v1::ClosePortRequest request;
    if (!port.empty()) request.set_port_name(port);
    v1::ClosePortResponse ignored;
    return stub_->ClosePort(Context().get(), request, response ? response : &ignored);
  }
  grpc::Status Status(const std::string& port, v1::GetStatusResponse* response) {
    v1::GetStatusRequest request;
    if (!port.empty()) request.set_port_name(port);
    return stub_->GetStatus(Context().get(), request, response);
  }
  grpc::Status Metrics(const std::string& port, v1::GetMetricsResponse* response) {
    v1::GetMetricsRequest request;
    if (!port.empty()) request.set_port_name(port);
    return stub_->GetMetrics(Context().get(), request, response);
  }

 private:
  std::unique_ptr<v1::SerialService::Stub> stub_;
  std::string owner_;
  std::string token_;
};

}  // namespace labgate::serial::testing
