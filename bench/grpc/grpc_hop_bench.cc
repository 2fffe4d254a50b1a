// What one in-process unary call costs on this machine, by who drives it:
//   callback   the callback API on both ends (how the gateway reaches a remote service, and
//              its embedded services' streams): one at a time, then 64 in flight;
//   one_thread an async generic service and a generic stub on one completion queue that the
//              calling thread drains itself, so the call never changes threads;
//   local_call labgate's seam (common/local_call.h), which the embedded gateway's tool calls
//              use: the method's handler called directly, with no gRPC.
// The echo service copies a 100-byte message back; nothing else labgate-specific runs. Table to
// stderr, JSON to stdout. Usage: labgate_grpc_hop_bench [CALLS]   (default 20000)
#include <google/protobuf/wrappers.pb.h>
#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "common/local_call.h"

namespace {

using Clock = std::chrono::steady_clock;
constexpr char kMethod[] = "/labgate.bench.Echo/Echo";
constexpr int kInFlight = 64;

double ProcessCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

grpc::ByteBuffer Payload() {
  grpc::Slice slice(std::string(100, 'x'));
  return grpc::ByteBuffer(&slice, 1);
}

struct Result {
  std::string name;
  int calls = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  std::vector<double> latencies_us;  // empty when calls overlap

  nlohmann::json ToJson() const {
    nlohmann::json out = {{"calls_per_s", calls / seconds},
                          {"cpu_us_per_call", cpu_seconds / calls * 1e6}};
    if (!latencies_us.empty()) {
      out["p50_us"] = Percentile(0.50);
      out["p99_us"] = Percentile(0.99);
    }
    return out;
  }
  double Percentile(double q) const {
    return latencies_us[static_cast<size_t>(q * (latencies_us.size() - 1))];
  }
};

// Times `body`, which makes `calls` calls; fills in the rates.
Result Measure(std::string name, int calls, const std::function<void(Result&)>& body) {
  Result result;
  result.name = std::move(name);
  result.calls = calls;
  const double cpu_before = ProcessCpuSeconds();
  const auto before = Clock::now();
  body(result);
  result.seconds = std::chrono::duration<double>(Clock::now() - before).count();
  result.cpu_seconds = ProcessCpuSeconds() - cpu_before;
  std::sort(result.latencies_us.begin(), result.latencies_us.end());
  return result;
}

double MicrosSince(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Callback-API echo: a unary call reaches a generic service as a stream of one message.
class EchoReactor : public grpc::ServerGenericBidiReactor {
 public:
  EchoReactor() { StartRead(&message_); }
  void OnReadDone(bool ok) override {
    if (ok) {
      StartWrite(&message_);
    } else {
      Finish(grpc::Status::OK);
    }
  }
  void OnWriteDone(bool ok) override {
    if (ok) {
      StartRead(&message_);
    } else {
      Finish(grpc::Status::OK);
    }
  }
  void OnDone() override { delete this; }

 private:
  grpc::ByteBuffer message_;
};

class CallbackEcho : public grpc::CallbackGenericService {
  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* /*context*/) override {
    return new EchoReactor();
  }
};

std::vector<Result> RunCallback(int calls) {
  CallbackEcho service;
  grpc::ServerBuilder builder;
  builder.RegisterCallbackGenericService(&service);
  auto server = builder.BuildAndStart();
  grpc::GenericStub stub(server->InProcessChannel(grpc::ChannelArguments()));
  const grpc::ByteBuffer request = Payload();
  std::vector<Result> results;

  results.push_back(Measure("callback_sequential", calls, [&](Result& result) {
    for (int i = 0; i < calls; ++i) {
      grpc::ClientContext context;
      grpc::ByteBuffer response;
      std::mutex mutex;
      std::condition_variable answered;
      bool done = false;
      const auto start = Clock::now();
      stub.UnaryCall(&context, kMethod, grpc::StubOptions(), &request, &response,
                     [&](const grpc::Status&) {
                       std::lock_guard lock(mutex);
                       done = true;
                       answered.notify_one();
                     });
      std::unique_lock lock(mutex);
      answered.wait(lock, [&] { return done; });
      result.latencies_us.push_back(MicrosSince(start));
    }
  }));

  results.push_back(Measure("callback_64_in_flight", calls, [&](Result&) {
    struct Call {
      grpc::ClientContext context;
      grpc::ByteBuffer response;
    };
    std::atomic<int> started{0};
    std::atomic<int> finished{0};
    std::mutex mutex;
    std::condition_variable all_done;
    std::function<void()> start_next = [&] {
      if (started.fetch_add(1) >= calls) return;
      auto* call = new Call;
      stub.UnaryCall(&call->context, kMethod, grpc::StubOptions(), &request, &call->response,
                     [&, call](const grpc::Status&) {
                       delete call;
                       // Before counting this call: once the last is counted, start_next
                       // may be gone.
                       start_next();
                       if (finished.fetch_add(1) + 1 == calls) {
                         std::lock_guard lock(mutex);
                         all_done.notify_one();
                       }
                     });
    };
    for (int i = 0; i < kInFlight; ++i) start_next();
    std::unique_lock lock(mutex);
    all_done.wait(lock, [&] { return finished.load() == calls; });
  }));
  server->Shutdown();
  return results;
}

Result RunOneThread(int calls) {
  grpc::AsyncGenericService service;
  grpc::ServerBuilder builder;
  builder.RegisterAsyncGenericService(&service);
  std::unique_ptr<grpc::ServerCompletionQueue> queue = builder.AddCompletionQueue();
  auto server = builder.BuildAndStart();
  grpc::GenericStub stub(server->InProcessChannel(grpc::ChannelArguments()));
  const grpc::ByteBuffer request = Payload();

  // A completion's tag says which step of the call it ends: the address of one of these.
  char server_got_call = 0;
  char server_read = 0;
  char server_finished = 0;
  char client_finished = 0;

  Result result = Measure("one_thread", calls, [&](Result& timed) {
    for (int i = 0; i < calls; ++i) {
      const auto start = Clock::now();
      grpc::GenericServerContext server_context;
      grpc::GenericServerAsyncReaderWriter server_stream(&server_context);
      service.RequestCall(&server_context, &server_stream, queue.get(), queue.get(),
                          &server_got_call);
      grpc::ClientContext context;
      grpc::ByteBuffer response;
      grpc::ByteBuffer received;
      grpc::Status status;
      auto call = stub.PrepareUnaryCall(&context, kMethod, request, queue.get());
      call->StartCall();
      call->Finish(&response, &status, &client_finished);
      bool server_done = false;
      bool client_done = false;
      while (!server_done || !client_done) {
        void* got = nullptr;
        bool ok = false;
        if (!queue->Next(&got, &ok)) std::abort();
        if (got == &server_got_call) {
          server_stream.Read(&received, &server_read);
        } else if (got == &server_read) {
          server_stream.WriteAndFinish(received, grpc::WriteOptions(), grpc::Status::OK,
                                       &server_finished);
        } else if (got == &server_finished) {
          server_done = true;
        } else if (got == &client_finished) {
          client_done = true;
        }
      }
      if (!status.ok()) std::abort();
      timed.latencies_us.push_back(MicrosSince(start));
    }
  });
  server->Shutdown();
  queue->Shutdown();
  void* ignored_tag = nullptr;
  bool ignored_ok = false;
  while (queue->Next(&ignored_tag, &ignored_ok)) {
  }
  return result;
}

// The embedded seam's in-process call (common/local_call.h), which embedded labgate's tool
// calls make instead of a gRPC hop: beside the hops above for scale.
Result RunLocalCall(int calls) {
  using google::protobuf::StringValue;
  struct Echo {
    void Serve(labgate::CallContext* call, const StringValue* request, StringValue* response) {
      *response = *request;
      call->Finish(absl::OkStatus());
    }
  } echo;
  labgate::LocalMethods methods;
  methods.Add("labgate.bench.Hop", "Echo", &echo, &Echo::Serve);
  labgate::LocalCalls local(std::move(methods));
  const labgate::LocalMethods::Method* method = local.methods().Find("/labgate.bench.Hop/Echo");
  Result result = Measure("local_call", calls, [&](Result& timed) {
    for (int i = 0; i < calls; ++i) {
      const auto start = Clock::now();
      auto request = std::make_unique<StringValue>();
      request->set_value(std::string(100, 'x'));
      labgate::LocalCallOptions options;
      options.deadline = absl::Now() + absl::Seconds(10);
      bool ok = false;
      local.Start(
          *method, std::move(options), std::move(request),
          [&ok](const absl::Status& status,
                const std::shared_ptr<const google::protobuf::Message>&) { ok = status.ok(); });
      if (!ok) std::abort();  // answered at once, before Start returned
      timed.latencies_us.push_back(MicrosSince(start));
    }
  });
  return result;
}

int Run(int argc, char** argv) {
  // As labgate's binaries do (SkipMutexDeadlockDetection): Debian's Abseil checks lock order
  // on every absl::Mutex lock, gRPC's included.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const int calls = argc > 1 ? std::atoi(argv[1]) : 20000;
  if (calls <= 0) {
    std::fprintf(stderr, "usage: labgate_grpc_hop_bench [CALLS > 0]\n");
    return 2;
  }
  std::vector<Result> results = RunCallback(calls);
  results.push_back(RunOneThread(calls));
  results.push_back(RunLocalCall(calls));

  nlohmann::json report = {{"calls", calls}};
  std::fprintf(stderr, "%-22s %12s %14s %9s %9s\n", "path", "calls/s", "CPU us/call", "p50 us",
               "p99 us");
  for (const Result& result : results) {
    nlohmann::json figures = result.ToJson();
    std::fprintf(stderr, "%-22s %12.0f %14.1f", result.name.c_str(),
                 figures["calls_per_s"].get<double>(), figures["cpu_us_per_call"].get<double>());
    if (figures.contains("p50_us")) {
      std::fprintf(stderr, " %9.1f %9.1f", figures["p50_us"].get<double>(),
                   figures["p99_us"].get<double>());
    }
    std::fprintf(stderr, "\n");
    report[result.name] = std::move(figures);
  }
  std::printf("%s\n", report.dump(2).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "labgate_grpc_hop_bench: %s\n", e.what());
    return 1;
  }
}
