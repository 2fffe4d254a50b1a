#include "serial-service/recording/session_reader.h"

#include "absl/strings/str_cat.h"
#include "common/grpc_status.h"

namespace labgate::serial {

void SessionReader::SetChannel(std::shared_ptr<grpc::Channel> channel) {
  absl::MutexLock lock(&mu_);
  stub_ = channel ? std::shared_ptr<session::v1::SessionService::Stub>(
                        session::v1::SessionService::NewStub(std::move(channel)))
                  : nullptr;
}

bool SessionReader::enabled() const {
  absl::MutexLock lock(&mu_);
  return stub_ != nullptr;
}

absl::StatusOr<std::vector<session::v1::Message>> SessionReader::ReadAll(
    const std::string& session_id, std::chrono::milliseconds timeout, int64_t max_messages) const {
  std::shared_ptr<session::v1::SessionService::Stub> stub;
  {
    absl::MutexLock lock(&mu_);
    stub = stub_;
  }
  if (stub == nullptr) {
    return absl::FailedPreconditionError(
        "this labgate-serial has no session service to read recordings from (start it with "
        "--session-addr)");
  }
  const auto deadline = std::chrono::system_clock::now() + timeout;
  auto explain = [&session_id](const grpc::Status& status) {
    absl::Status failed = FromGrpcStatus(status);
    if (absl::IsNotFound(failed)) {
      return absl::NotFoundError(absl::StrCat("no session ", session_id, " to replay"));
    }
    return absl::Status(failed.code(), absl::StrCat("reading session ", session_id,
                                                    " to replay: ", failed.message()));
  };
  {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    session::v1::GetSessionRequest request;
    request.set_session_id(session_id);
    session::v1::GetSessionResponse response;
    if (grpc::Status got = stub->GetSession(&context, request, &response); !got.ok()) {
      return explain(got);
    }
  }
  std::vector<session::v1::Message> messages;
  session::v1::ListMessagesRequest request;
  request.set_session_id(session_id);
  request.set_limit(1000);
  while (true) {
    grpc::ClientContext context;
    context.set_deadline(deadline);
    session::v1::ListMessagesResponse page;
    if (grpc::Status got = stub->ListMessages(&context, request, &page); !got.ok()) {
      return explain(got);
    }
    if (static_cast<int64_t>(messages.size() + page.messages_size()) > max_messages) {
      return absl::ResourceExhaustedError(absl::StrCat("session ", session_id, " has more than ",
                                                       max_messages, " messages to replay"));
    }
    for (session::v1::Message& message : *page.mutable_messages()) {
      messages.push_back(std::move(message));
    }
    if (!page.has_next_cursor()) return messages;
    request.set_after_message_id(page.next_cursor());
  }
}

}  // namespace labgate::serial
