// Closed-loop append benchmark against SqliteSessionStore alone (no gateway, no gRPC):
// `in_flight` appends outstanding; one client thread takes each acknowledgement, spends
// `client_us` of CPU on it (standing in for the gateway and the MCP client), and sends
// the next append. Prints throughput, latency percentiles and the writer's batching.
// Usage: labgate_session_store_bench [appends] [in_flight] [client_us] [commit_delay_max_us]
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "session-service/store/sqlite_session_store.h"

namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(p * static_cast<double>(values.size() - 1))];
}

void Spin(int64_t us) {
  auto until = Clock::now() + std::chrono::microseconds(us);
  while (Clock::now() < until) {
  }
}

}  // namespace

int main(int argc, char** argv) {
  using labgate::session::AppendParams;
  using labgate::session::MessageRecord;
  const int appends = argc > 1 ? std::atoi(argv[1]) : 20000;
  const int in_flight = argc > 2 ? std::atoi(argv[2]) : 64;
  const int64_t client_us = argc > 3 ? std::atoll(argv[3]) : 20;
  const int64_t delay_us = argc > 4 ? std::atoll(argv[4]) : 4000;

  char data_template[] = "/tmp/labgate-store-bench-XXXXXX";
  std::string data_dir = mkdtemp(data_template);
  labgate::session::SqliteSessionStoreOptions options;
  options.data_dir = data_dir;
  options.commit_delay_max_us = delay_us;
  auto store = labgate::session::SqliteSessionStore::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", std::string(store.status().message()).c_str());
    return 1;
  }
  std::mutex mu;
  std::condition_variable cv;
  std::string session_id;
  (*store)->CreateSession({"bench", ""}, [&](absl::StatusOr<labgate::session::SessionRecord> s) {
    std::lock_guard<std::mutex> lock(mu);
    session_id = s->id;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return !session_id.empty(); });
  }

  std::deque<Clock::time_point> acked;  // send times of acknowledged appends
  int errors = 0;
  auto send = [&] {
    AppendParams params;
    params.session_id = session_id;
    params.content = "MEAS:VOLT? -> 5.0012";
    params.direction = "rx";
    params.features = "scpi,meas";
    Clock::time_point sent = Clock::now();
    (*store)->AppendMessage(std::move(params), [&, sent](absl::StatusOr<MessageRecord> result) {
      std::lock_guard<std::mutex> lock(mu);
      if (!result.ok()) ++errors;
      acked.push_back(sent);
      cv.notify_one();
    });
  };
  const labgate::session::WriterStats before = (*store)->writer_stats();
  std::vector<double> latencies_ms;
  latencies_ms.reserve(static_cast<size_t>(appends));
  int issued = 0;
  Clock::time_point start = Clock::now();
  for (; issued < std::min(in_flight, appends); ++issued) send();
  while (static_cast<int>(latencies_ms.size()) < appends) {
    Clock::time_point sent;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !acked.empty(); });
      sent = acked.front();
      acked.pop_front();
    }
    Spin(client_us);
    latencies_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - sent).count());
    if (issued < appends) {
      send();
      ++issued;
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  labgate::session::WriterStats after = (*store)->writer_stats();
  uint64_t transactions = after.transactions - before.transactions;
  std::printf(
      "{\"append_per_s\": %.0f, \"p50_ms\": %.2f, \"p99_ms\": %.2f, \"transactions\": %llu, "
      "\"mean_batch\": %.1f, \"largest_batch\": %llu, \"delayed_batches\": %llu, "
      "\"mean_delay_us\": %.0f, \"mean_execute_us\": %.0f, \"mean_commit_us\": %.0f, "
      "\"errors\": %d}\n",
      appends / seconds, Percentile(latencies_ms, 0.5), Percentile(latencies_ms, 0.99),
      static_cast<unsigned long long>(transactions),
      static_cast<double>(after.writes - before.writes) / static_cast<double>(transactions),
      static_cast<unsigned long long>(after.largest_batch),
      static_cast<unsigned long long>(after.delayed_batches - before.delayed_batches),
      after.delayed_batches == before.delayed_batches
          ? 0.0
          : static_cast<double>(after.delay_us - before.delay_us) /
                static_cast<double>(after.delayed_batches - before.delayed_batches),
      static_cast<double>(after.execute_us - before.execute_us) / static_cast<double>(transactions),
      static_cast<double>(after.commit_us - before.commit_us) / static_cast<double>(transactions),
      errors);
  (*store)->Shutdown();
  std::error_code ignored;
  std::filesystem::remove_all(data_dir, ignored);
  return errors == 0 ? 0 : 1;
}
