// The floor under any stdio MCP server on this machine, for labgate_stdio_compare (--floor):
// a server that does the least a tools/call needs. It reads stdin, finds each request's id
// and method by searching the line, and writes a fixed result, all on one thread, the
// replies to one read in one write (as labgate does). With --local-call every tools/call also
// makes one call through labgate's seam (common/local_call.h), as the embedded gateway's tool
// calls do, and answers with what came back. With --grpc-stream each
// tools/call is instead one message each way on a single long-lived in-process bidi stream
// (serialized, on one completion queue this thread drains): a gRPC hop without a call per
// request, which labgate does not have.
//
// So "floor echo" is what the pipes, the wake-ups and the benchmark's client cost whatever
// the server, and "floor+local echo" adds the in-process call that labgate's tool calls pay. With
// --spin-us N the server polls stdin without sleeping for up to N µs after each read, so a
// request that follows its reply quickly finds it awake (labgate's --stdio-spin-us).
// With --lanes N (and --local-call), the calls of one read are shared among N threads: the
// call with both cores.
// It understands the benchmark client's requests only (no JSON parser: the first "id" and
// "method" members of a line are taken as the request's).
//
//   labgate_stdio_floor [--local-call [--lanes N] | --grpc-stream] [--spin-us N]
#include <fcntl.h>
#include <google/protobuf/wrappers.pb.h>
#include <grpcpp/client_context.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/impl/codegen/proto_utils.h>
#include <grpcpp/server.h>
#include <grpcpp/server_builder.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/local_call.h"

namespace {

using google::protobuf::StringValue;

constexpr char kEchoMethod[] = "/labgate.bench.Floor/Echo";
constexpr char kStreamMethod[] = "/labgate.bench.Floor/EchoStream";

grpc::ByteBuffer Serialized(const StringValue& message) {
  grpc::ByteBuffer buffer;
  bool own = false;
  if (!grpc::SerializationTraits<StringValue>::Serialize(message, &buffer, &own).ok()) {
    std::abort();
  }
  return buffer;
}

StringValue Parsed(grpc::ByteBuffer* buffer) {
  StringValue message;
  if (!grpc::SerializationTraits<StringValue>::Deserialize(buffer, &message).ok()) std::abort();
  return message;
}

// One in-process bidi stream that echoes StringValue messages, both ends on one completion
// queue that the calling thread drains. A stream takes one write at a time at each end, so
// messages wait in a queue for the write before them to complete.
class StreamHop {
 public:
  StreamHop() {
    grpc::ServerBuilder builder;
    builder.RegisterAsyncGenericService(&service_);
    queue_ = builder.AddCompletionQueue();
    server_ = builder.BuildAndStart();
    if (!server_) std::abort();
    stub_ =
        std::make_unique<grpc::GenericStub>(server_->InProcessChannel(grpc::ChannelArguments()));
    service_.RequestCall(&server_context_, &server_stream_, queue_.get(), queue_.get(), &kAccepted);
    client_ = stub_->PrepareCall(&client_context_, kStreamMethod, queue_.get());
    client_->StartCall(&kStarted);
  }
  ~StreamHop() {
    client_context_.TryCancel();
    server_->Shutdown(std::chrono::system_clock::now());
    queue_->Shutdown();
    void* tag = nullptr;
    bool ok = false;
    while (queue_->Next(&tag, &ok)) {
    }
  }
  StreamHop(const StreamHop&) = delete;
  StreamHop& operator=(const StreamHop&) = delete;

  void Send(std::string text) {
    StringValue message;
    message.set_value(std::move(text));
    client_writes_.push_back(Serialized(message));
    ++awaited_;
    WriteNext(client_.get(), &client_writes_, &client_writing_, &kClientWrote, client_started_);
  }

  // The answers to everything sent, in order.
  std::vector<std::string> TakeAnswers() {
    while (answers_.size() < awaited_) Step();
    awaited_ = 0;
    return std::exchange(answers_, {});
  }

 private:
  // The tags: which completion is which.
  static inline char kAccepted, kStarted, kClientWrote, kClientRead, kServerRead, kServerWrote;

  template <typename Stream>
  static void WriteNext(Stream* stream, std::deque<grpc::ByteBuffer>* queue, bool* writing,
                        void* tag, bool ready) {
    if (!ready || *writing || queue->empty()) return;
    *writing = true;
    stream->Write(queue->front(), tag);
    queue->pop_front();
  }

  void Step() {
    void* tag = nullptr;
    bool ok = false;
    if (!queue_->Next(&tag, &ok)) std::abort();
    if (tag == &kAccepted) {
      server_accepted_ = true;
      server_stream_.Read(&server_read_, &kServerRead);
    } else if (tag == &kStarted) {
      client_started_ = true;
      client_->Read(&client_read_, &kClientRead);
      WriteNext(client_.get(), &client_writes_, &client_writing_, &kClientWrote, true);
    } else if (tag == &kClientWrote) {
      client_writing_ = false;
      WriteNext(client_.get(), &client_writes_, &client_writing_, &kClientWrote, true);
    } else if (tag == &kServerRead) {
      if (!ok) std::abort();
      server_writes_.push_back(Serialized(Parsed(&server_read_)));
      WriteNext(&server_stream_, &server_writes_, &server_writing_, &kServerWrote, true);
      server_stream_.Read(&server_read_, &kServerRead);
    } else if (tag == &kServerWrote) {
      server_writing_ = false;
      WriteNext(&server_stream_, &server_writes_, &server_writing_, &kServerWrote, true);
    } else if (tag == &kClientRead) {
      if (!ok) std::abort();
      answers_.push_back(Parsed(&client_read_).value());
      client_->Read(&client_read_, &kClientRead);
    }
  }

  grpc::AsyncGenericService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> queue_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<grpc::GenericStub> stub_;
  grpc::GenericServerContext server_context_;
  grpc::GenericServerAsyncReaderWriter server_stream_{&server_context_};
  grpc::ClientContext client_context_;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> client_;
  bool server_accepted_ = false;
  bool client_started_ = false;
  bool client_writing_ = false;
  bool server_writing_ = false;
  std::deque<grpc::ByteBuffer> client_writes_;
  std::deque<grpc::ByteBuffer> server_writes_;
  grpc::ByteBuffer client_read_;
  grpc::ByteBuffer server_read_;
  size_t awaited_ = 0;
  std::vector<std::string> answers_;
};

// The raw text of member `key`'s value (a number or a string with its quotes), or empty.
std::string_view RawMember(std::string_view line, std::string_view key) {
  const std::string pattern = "\"" + std::string(key) + "\":";
  const size_t at = line.find(pattern);
  if (at == std::string_view::npos) return {};
  size_t start = at + pattern.size();
  while (start < line.size() && line[start] == ' ') ++start;
  if (start >= line.size()) return {};
  size_t end = start;
  if (line[start] == '"') {
    for (end = start + 1; end < line.size() && line[end] != '"'; ++end) {
      if (line[end] == '\\') ++end;
    }
    return line.substr(start, end + 1 - start);
  }
  while (end < line.size() && line[end] != ',' && line[end] != '}') ++end;
  return line.substr(start, end - start);
}

struct EchoService {
  void Serve(labgate::CallContext* call, const StringValue* request, StringValue* response) {
    *response = *request;
    call->Finish(absl::OkStatus());
  }
};

std::unique_ptr<labgate::LocalCalls> StartEchoServer() {
  static EchoService echo;
  labgate::LocalMethods methods;
  methods.Add("labgate.bench.Floor", "Echo", &echo, &EchoService::Serve);
  return std::make_unique<labgate::LocalCalls>(std::move(methods));
}

// `text` there and back through one call on the seam.
std::string ThroughSeam(labgate::LocalCalls* hop, std::string_view text) {
  static const labgate::LocalMethods::Method* method = hop->methods().Find(kEchoMethod);
  auto request = std::make_unique<StringValue>();
  request->set_value(std::string(text));
  labgate::LocalCallOptions options;
  options.deadline = absl::Now() + absl::Seconds(10);
  std::string answer = "(the call failed)";
  hop->Start(*method, std::move(options), std::move(request),
             [&answer](const absl::Status& status,
                       const std::shared_ptr<const google::protobuf::Message>& response) {
               if (status.ok()) answer = static_cast<const StringValue*>(response.get())->value();
             });
  return answer;
}

void AppendEcho(std::string_view id, std::string_view message, std::string* out) {
  *out += R"({"jsonrpc":"2.0","id":)";
  *out += id;
  *out += R"(,"result":{"content":[{"type":"text","text":"Echo: )";
  *out += message;
  *out += "\"}]}}\n";
}

// (id, message) of tools/calls to answer through a hop.
using PendingCalls = std::vector<std::pair<std::string, std::string>>;

std::string AnswerThroughSeam(labgate::LocalCalls* hop, const PendingCalls& calls, size_t begin,
                              size_t end) {
  std::string out;
  for (size_t i = begin; i < end; ++i) {
    AppendEcho(calls[i].first, ThroughSeam(hop, calls[i].second), &out);
  }
  return out;
}

// Another thread with its own in-process server, answering its share of a read's calls.
class HopLane {
 public:
  HopLane() : hop_(StartEchoServer()), thread_([this] { Run(); }) {}
  ~HopLane() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  HopLane(const HopLane&) = delete;
  HopLane& operator=(const HopLane&) = delete;

  void Start(const PendingCalls* calls, size_t begin, size_t end) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      calls_ = calls;
      begin_ = begin;
      end_ = end;
      started_ = true;
    }
    wake_.notify_one();
  }
  std::string Wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_wake_.wait(lock, [this] { return finished_; });
    finished_ = false;
    return std::move(out_);
  }

 private:
  void Run() {
    for (;;) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return started_ || stopping_; });
      if (stopping_) return;
      started_ = false;
      const PendingCalls* calls = calls_;
      const size_t begin = begin_;
      const size_t end = end_;
      lock.unlock();
      std::string out = AnswerThroughSeam(hop_.get(), *calls, begin, end);
      lock.lock();
      out_ = std::move(out);
      finished_ = true;
      finished_wake_.notify_one();
    }
  }

  std::unique_ptr<labgate::LocalCalls> hop_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable finished_wake_;
  const PendingCalls* calls_ = nullptr;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool started_ = false;
  bool finished_ = false;
  bool stopping_ = false;
  std::string out_;
  std::thread thread_;
};

class FloorServer {
 public:
  enum class Hop { kNone, kUnaryCall, kStreamMessage };

  FloorServer(Hop hop, int lanes) {
    if (hop == Hop::kStreamMessage) stream_ = std::make_unique<StreamHop>();
    if (hop != Hop::kUnaryCall) return;
    hop_ = StartEchoServer();
    for (int i = 1; i < lanes; ++i) lanes_.push_back(std::make_unique<HopLane>());
  }
  FloorServer(const FloorServer&) = delete;
  FloorServer& operator=(const FloorServer&) = delete;

  // Reads stdin until it closes; after each read, polls for up to `spin` before sleeping.
  int Serve(std::chrono::microseconds spin) {
    std::string input;
    char chunk[1 << 16];
    const int blocking = fcntl(STDIN_FILENO, F_GETFL);
    for (;;) {
      ssize_t n = -1;
      if (spin.count() > 0) {
        fcntl(STDIN_FILENO, F_SETFL, blocking | O_NONBLOCK);
        const auto until = std::chrono::steady_clock::now() + spin;
        do {
          n = read(STDIN_FILENO, chunk, sizeof(chunk));
        } while (n < 0 && errno == EAGAIN && std::chrono::steady_clock::now() < until);
        fcntl(STDIN_FILENO, F_SETFL, blocking);
      }
      if (n < 0) n = read(STDIN_FILENO, chunk, sizeof(chunk));
      if (n <= 0) return 0;
      input.append(chunk, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t newline; (newline = input.find('\n', start)) != std::string::npos;
           start = newline + 1) {
        Answer(std::string_view(input.data() + start, newline - start));
      }
      input.erase(0, start);
      if (stream_) AppendStreamAnswers();
      if (!pending_.empty()) AnswerPending();
      if (!WriteAll()) return 1;
    }
  }

 private:
  void Answer(std::string_view line) {
    const std::string_view id = RawMember(line, "id");
    if (id.empty()) return;  // a notification
    const std::string_view method = RawMember(line, "method");
    if (method == R"("tools/call")") {
      std::string_view message = RawMember(line, "message");
      if (message.size() >= 2) message = message.substr(1, message.size() - 2);
      if (stream_) {
        // Answered once the stream has brought back every message of this read.
        stream_->Send(std::string(message));
        stream_ids_.emplace_back(id);
        return;
      }
      if (!lanes_.empty()) {
        pending_.emplace_back(id, message);
        return;
      }
      AppendEcho(id, hop_ ? ThroughSeam(hop_.get(), message) : message, &out_);
      return;
    }
    out_ += R"({"jsonrpc":"2.0","id":)";
    out_ += id;
    if (method == R"("initialize")") {
      out_ += R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},)"
              R"("serverInfo":{"name":"labgate-stdio-floor","version":"1"}}})";
    } else if (method == R"("tools/list")") {
      out_ += R"(,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object",)"
              R"("properties":{"message":{"type":"string"}}}}]}})";
    } else {
      out_ += R"(,"error":{"code":-32601,"message":"method not found"}})";
    }
    out_ += '\n';
  }

  void AppendStreamAnswers() {
    const std::vector<std::string> answers = stream_->TakeAnswers();
    for (size_t i = 0; i < answers.size(); ++i) AppendEcho(stream_ids_[i], answers[i], &out_);
    stream_ids_.clear();
  }

  // A read's calls, shared between this thread and the lanes.
  void AnswerPending() {
    const size_t share = pending_.size() / (lanes_.size() + 1);
    size_t begin = pending_.size() - share * lanes_.size();
    const size_t own = begin;
    for (auto& lane : lanes_) {
      if (share > 0) lane->Start(&pending_, begin, begin + share);
      begin += share;
    }
    out_ += AnswerThroughSeam(hop_.get(), pending_, 0, own);
    if (share > 0) {
      for (auto& lane : lanes_) out_ += lane->Wait();
    }
    pending_.clear();
  }

  bool WriteAll() {
    std::string_view rest = out_;
    while (!rest.empty()) {
      const ssize_t n = write(STDOUT_FILENO, rest.data(), rest.size());
      if (n <= 0) return false;
      rest.remove_prefix(static_cast<size_t>(n));
    }
    out_.clear();
    return true;
  }

  std::unique_ptr<labgate::LocalCalls> hop_;
  std::vector<std::unique_ptr<HopLane>> lanes_;
  PendingCalls pending_;
  std::unique_ptr<StreamHop> stream_;
  std::vector<std::string> stream_ids_;  // of the calls sent on the stream, in order
  std::string out_;
};

}  // namespace

int main(int argc, char** argv) {
  // As labgate's binaries do (SkipMutexDeadlockDetection): Debian's Abseil checks lock order
  // on every absl::Mutex lock, gRPC's included, which a floor must not pay.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  FloorServer::Hop hop = FloorServer::Hop::kNone;
  long spin_us = 0;
  int lanes = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--local-call") == 0) {
      hop = FloorServer::Hop::kUnaryCall;
    } else if (std::strcmp(argv[i], "--grpc-stream") == 0) {
      hop = FloorServer::Hop::kStreamMessage;
    } else if (std::strcmp(argv[i], "--spin-us") == 0 && i + 1 < argc) {
      spin_us = std::strtol(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--lanes") == 0 && i + 1 < argc) {
      lanes = std::max(1, static_cast<int>(std::strtol(argv[++i], nullptr, 10)));
    } else {
      std::fprintf(
          stderr,
          "usage: labgate_stdio_floor [--local-call [--lanes N] | --grpc-stream] [--spin-us N]\n");
      return 2;
    }
  }
  FloorServer server(hop, lanes);
  return server.Serve(std::chrono::microseconds(spin_us));
}
