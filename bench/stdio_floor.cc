// The floor under any stdio MCP server on this machine, for labgate_stdio_compare (--floor):
// a server that does the least a tools/call needs. It reads stdin, finds each request's id
// and method by searching the line, and writes a fixed result, all on one thread, the
// replies to one read in one write (as labgate does). With --grpc-hop every tools/call also
// makes one in-process gRPC call on labgate's InlineUnaryServer, the transport of the
// embedded gateway's tool calls, and answers with what came back.
//
// So "floor echo" is what the pipes, the wake-ups and the benchmark's client cost whatever
// the server, and "floor+grpc echo" adds the bare hop that the issue requires of labgate.
// It understands the benchmark client's requests only (no JSON parser: the first "id" and
// "method" members of a line are taken as the request's).
//
//   labgate_stdio_floor [--grpc-hop]
#include <google/protobuf/wrappers.pb.h>
#include <grpcpp/client_context.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "common/inline_unary.h"

namespace {

using google::protobuf::StringValue;

constexpr char kEchoMethod[] = "/labgate.bench.Floor/Echo";

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

class FloorServer {
 public:
  explicit FloorServer(bool grpc_hop) {
    if (!grpc_hop) return;
    hop_ = std::make_unique<labgate::InlineUnaryServer>();
    hop_->Add(kEchoMethod, StringValue::default_instance(), StringValue::default_instance(),
              [](labgate::UnaryCall* call, const google::protobuf::Message* request,
                 google::protobuf::Message* response) {
                response->CopyFrom(*request);
                call->Finish(grpc::Status::OK);
              });
    if (!hop_->Start().ok()) {
      std::fprintf(stderr, "stdio floor: the in-process gRPC server did not start\n");
      std::abort();
    }
  }
  ~FloorServer() {
    if (hop_) hop_->Shutdown(std::chrono::milliseconds(100));
  }
  FloorServer(const FloorServer&) = delete;
  FloorServer& operator=(const FloorServer&) = delete;

  // Reads stdin until it closes.
  int Serve() {
    std::string input;
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = read(STDIN_FILENO, chunk, sizeof(chunk));
      if (n <= 0) return 0;
      input.append(chunk, static_cast<size_t>(n));
      size_t start = 0;
      for (size_t newline; (newline = input.find('\n', start)) != std::string::npos;
           start = newline + 1) {
        Answer(std::string_view(input.data() + start, newline - start));
      }
      input.erase(0, start);
      if (!WriteAll()) return 1;
    }
  }

 private:
  void Answer(std::string_view line) {
    const std::string_view id = RawMember(line, "id");
    if (id.empty()) return;  // a notification
    const std::string_view method = RawMember(line, "method");
    out_ += R"({"jsonrpc":"2.0","id":)";
    out_ += id;
    if (method == R"("initialize")") {
      out_ += R"(,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},)"
              R"("serverInfo":{"name":"labgate-stdio-floor","version":"1"}}})";
    } else if (method == R"("tools/list")") {
      out_ += R"(,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object",)"
              R"("properties":{"message":{"type":"string"}}}}]}})";
    } else if (method == R"("tools/call")") {
      std::string_view message = RawMember(line, "message");
      if (message.size() >= 2) message = message.substr(1, message.size() - 2);
      out_ += R"(,"result":{"content":[{"type":"text","text":"Echo: )";
      out_ += hop_ ? ThroughGrpc(message) : std::string(message);
      out_ += R"("}]}})";
    } else {
      out_ += R"(,"error":{"code":-32601,"message":"method not found"}})";
    }
    out_ += '\n';
  }

  // `text` there and back through one unary call on the in-process server.
  std::string ThroughGrpc(std::string_view text) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    StringValue request;
    request.set_value(std::string(text));
    StringValue response;
    std::atomic<bool> answered{false};
    bool ok = false;
    hop_->Call(&context, kEchoMethod, request, &response, [&](const grpc::Status& status) {
      ok = status.ok();
      answered.store(true, std::memory_order_release);
    });
    while (!answered.load(std::memory_order_acquire)) hop_->Pump();
    return ok ? response.value() : "(the gRPC call failed)";
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

  std::unique_ptr<labgate::InlineUnaryServer> hop_;
  std::string out_;
};

}  // namespace

int main(int argc, char** argv) {
  const bool grpc_hop = argc > 1 && std::strcmp(argv[1], "--grpc-hop") == 0;
  if (argc > 2 || (argc == 2 && !grpc_hop)) {
    std::fprintf(stderr, "usage: labgate_stdio_floor [--grpc-hop]\n");
    return 2;
  }
  FloorServer server(grpc_hop);
  return server.Serve();
}
