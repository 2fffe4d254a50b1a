#include "common/status_map.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace labgate {
namespace {

using AC = absl::StatusCode;
using GC = grpc::StatusCode;

// Indexed by the numeric code; absl and gRPC share numbering 0..16.
constexpr std::array<StatusMapping, 17> kTable = {{
    {AC::kOk, GC::OK, 0, false},
    {AC::kCancelled, GC::CANCELLED, jsonrpc_code::kInternalError, true},
    {AC::kUnknown, GC::UNKNOWN, jsonrpc_code::kInternalError, false},
    {AC::kInvalidArgument, GC::INVALID_ARGUMENT, jsonrpc_code::kInvalidParams, false},
    {AC::kDeadlineExceeded, GC::DEADLINE_EXCEEDED, jsonrpc_code::kInternalError, true},
    {AC::kNotFound, GC::NOT_FOUND, jsonrpc_code::kResourceNotFound, false},
    {AC::kAlreadyExists, GC::ALREADY_EXISTS, jsonrpc_code::kInvalidParams, false},
    {AC::kPermissionDenied, GC::PERMISSION_DENIED, jsonrpc_code::kInternalError, false},
    {AC::kResourceExhausted, GC::RESOURCE_EXHAUSTED, jsonrpc_code::kInternalError, true},
    {AC::kFailedPrecondition, GC::FAILED_PRECONDITION, jsonrpc_code::kInvalidParams, false},
    {AC::kAborted, GC::ABORTED, jsonrpc_code::kInternalError, true},
    {AC::kOutOfRange, GC::OUT_OF_RANGE, jsonrpc_code::kInvalidParams, false},
    {AC::kUnimplemented, GC::UNIMPLEMENTED, jsonrpc_code::kMethodNotFound, false},
    {AC::kInternal, GC::INTERNAL, jsonrpc_code::kInternalError, false},
    {AC::kUnavailable, GC::UNAVAILABLE, jsonrpc_code::kInternalError, true},
    {AC::kDataLoss, GC::DATA_LOSS, jsonrpc_code::kInternalError, false},
    {AC::kUnauthenticated, GC::UNAUTHENTICATED, jsonrpc_code::kInternalError, false},
}};

}  // namespace

const StatusMapping& MappingFor(absl::StatusCode code) {
  int index = static_cast<int>(code);
  if (index < 0 || index >= static_cast<int>(kTable.size())) return kTable[2];
  return kTable[index];
}

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(MappingFor(status.code()).grpc_code, std::string(status.message()));
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  int index = static_cast<int>(status.error_code());
  for (const StatusMapping& mapping : kTable) {
    if (static_cast<int>(mapping.grpc_code) == index) {
      return absl::Status(mapping.code, status.error_message());
    }
  }
  return absl::UnknownError(status.error_message());
}

std::string_view StatusCodeName(absl::StatusCode code) {
  switch (code) {
    case AC::kOk:
      return "OK";
    case AC::kCancelled:
      return "CANCELLED";
    case AC::kUnknown:
      return "UNKNOWN";
    case AC::kInvalidArgument:
      return "INVALID_ARGUMENT";
    case AC::kDeadlineExceeded:
      return "DEADLINE_EXCEEDED";
    case AC::kNotFound:
      return "NOT_FOUND";
    case AC::kAlreadyExists:
      return "ALREADY_EXISTS";
    case AC::kPermissionDenied:
      return "PERMISSION_DENIED";
    case AC::kResourceExhausted:
      return "RESOURCE_EXHAUSTED";
    case AC::kFailedPrecondition:
      return "FAILED_PRECONDITION";
    case AC::kAborted:
      return "ABORTED";
    case AC::kOutOfRange:
      return "OUT_OF_RANGE";
    case AC::kUnimplemented:
      return "UNIMPLEMENTED";
    case AC::kInternal:
      return "INTERNAL";
    case AC::kUnavailable:
      return "UNAVAILABLE";
    case AC::kDataLoss:
      return "DATA_LOSS";
    case AC::kUnauthenticated:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

std::string ToolErrorText(const absl::Status& status) {
  std::string_view name = StatusCodeName(status.code());
  return absl::StrCat(absl::string_view(name.data(), name.size()), ": ", status.message());
}

}  // namespace labgate
