// The reservation service at scale (issue 32's target: 1,000 waiting reservations on 50
// instruments, with grant latency and the service's RSS recorded). A real labgate-session child
// on 127.0.0.1; this program acts for many principals through the gateway token (as a gateway
// does) over gRPC. 50 holders take the 50 supplies, 1,000 waiters queue behind them (20 per
// supply); then every grant is released in turn and the next one granted, 1,000 hand-overs,
// each timed from the Release call to the Watch stream's update granting the next in line.
//
//   build/bench/reservations/labgate_reservation_scale_bench [--session BIN] [--waiting N]
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

extern char** environ;

namespace {

namespace pb = ::labgate::reservations::v1;
using Clock = std::chrono::steady_clock;

constexpr int kInstruments = 50;
constexpr char kToken[] = "scale-bench-gateway-token-0123456789";

long RssKiB(pid_t pid) {
  std::ifstream status(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(status, line)) {
    long kib = 0;
    if (line.rfind("VmRSS:", 0) == 0 &&
        absl::SimpleAtoi(absl::StripAsciiWhitespace(line.substr(6, line.size() - 6 - 3)), &kib)) {
      return kib;
    }
  }
  return -1;
}

// A failure once the helper threads run: the child goes, and so does this process, at once.
[[noreturn]] void Abandon(pid_t child) {
  std::fprintf(stderr, "the bench failed; see above\n");
  kill(child, SIGKILL);
  std::_Exit(1);
}

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

void Report(const char* what, std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  auto at = [&](double p) {
    return ms[std::min(ms.size() - 1, static_cast<size_t>(p * ms.size()))];
  };
  std::printf("%-34s n=%zu  p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n", what, ms.size(),
              at(0.50), at(0.90), at(0.99), ms.back());
}

std::unique_ptr<grpc::ClientContext> As(const std::string& principal) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  context->AddMetadata("authorization", std::string("Bearer ") + kToken);
  if (!principal.empty()) context->AddMetadata("labgate-owner", principal);
  return context;
}

}  // namespace

int main(int argc, char** argv) {
  std::string session_binary = "build/session-service/labgate-session";
  int waiting = 1000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string(argv[i]) == "--session") session_binary = argv[i + 1];
    if (std::string(argv[i]) == "--waiting") waiting = std::atoi(argv[i + 1]);
  }
  const std::string dir =
      std::filesystem::temp_directory_path() / absl::StrCat("labgate-scale-bench-", getpid());
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/token") << kToken << "\n";
  std::vector<std::string> args = {session_binary,         "--listen",    "127.0.0.1:0",
                                   "--data-dir",           dir,           "--port-file",
                                   dir + "/port",          "--log-level", "warning",
                                   "--gateway-token-file", dir + "/token"};
  std::vector<char*> argv_child;
  argv_child.reserve(args.size() + 1);
  for (std::string& arg : args) argv_child.push_back(arg.data());
  argv_child.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv_child[0], nullptr, nullptr, argv_child.data(), environ) != 0) {
    std::fprintf(stderr, "cannot start %s\n", session_binary.c_str());
    return 1;
  }
  int port = 0;
  for (int i = 0; i < 500 && port == 0; ++i) {
    std::ifstream in(dir + "/port");
    std::string text;
    if (!(in >> text) || !absl::SimpleAtoi(text, &port))
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  auto stub = pb::ReservationService::NewStub(
      grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));
  const long rss_empty = RssKiB(pid);

  pb::PublishInventoryRequest inventory;
  inventory.set_bench("lab");
  for (int i = 0; i < kInstruments; ++i) {
    pb::Reservable* supply = inventory.add_reservables();
    supply->set_name(absl::StrCat("psu-", i));
    supply->add_tags("psu");
    supply->set_present(true);
  }
  pb::PublishInventoryResponse published;
  if (grpc::Status status = stub->PublishInventory(As("").get(), inventory, &published);
      !status.ok()) {
    std::fprintf(stderr, "inventory: %s\n", status.error_message().c_str());
    return 1;
  }

  // Reported again every 2 s, as labgate-serial does: a bench not heard from is unreachable.
  std::atomic<bool> done{false};
  std::thread reporter([&] {
    while (!done) {
      for (int i = 0; i < 20 && !done; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      pb::PublishInventoryResponse again;
      stub->PublishInventory(As("").get(), inventory, &again).IgnoreError();
    }
  });

  // The watcher notes when each reservation was first seen granted.
  absl::Mutex mu;
  std::map<std::string, Clock::time_point> granted_at;
  grpc::ClientContext watch_context;
  watch_context.AddMetadata("authorization", std::string("Bearer ") + kToken);
  auto watch = stub->Watch(&watch_context, pb::WatchReservationsRequest());
  std::thread watcher([&] {
    pb::ReservationUpdate update;
    while (watch->Read(&update)) {
      const Clock::time_point now = Clock::now();
      absl::MutexLock lock(&mu);
      for (const pb::Reservation& reservation : update.reservations()) {
        if (reservation.state() == "granted") granted_at.try_emplace(reservation.id(), now);
      }
    }
  });

  std::vector<std::string> holder_ids(kInstruments);
  for (int i = 0; i < kInstruments; ++i) {
    pb::ReserveRequest request;
    request.add_targets(absl::StrCat("lab:psu-", i));
    pb::Reservation reservation;
    if (!stub->Reserve(As(absl::StrCat("holder-", i)).get(), request, &reservation).ok())
      Abandon(pid);
    holder_ids[i] = reservation.id();
  }
  // Waiters by supply, in arrival order.
  std::vector<std::vector<std::pair<std::string, std::string>>> queue(kInstruments);
  std::vector<double> reserve_ms;
  reserve_ms.reserve(waiting);
  for (int j = 0; j < waiting; ++j) {
    pb::ReserveRequest request;
    request.add_targets(absl::StrCat("lab:psu-", j % kInstruments));
    request.set_wait_s(3600);
    pb::Reservation reservation;
    const std::string principal = absl::StrCat("waiter-", j);
    const Clock::time_point asked = Clock::now();
    grpc::Status status = stub->Reserve(As(principal).get(), request, &reservation);
    reserve_ms.push_back(Ms(Clock::now() - asked));
    if (!status.ok() || reservation.state() != "waiting") {
      std::fprintf(stderr, "waiter %d: %s %s\n", j, status.error_message().c_str(),
                   reservation.state().c_str());
      Abandon(pid);
    }
    queue[j % kInstruments].emplace_back(principal, reservation.id());
  }
  const long rss_queued = RssKiB(pid);
  pb::ListReservationsResponse listed;
  const Clock::time_point list_asked = Clock::now();
  if (!stub->List(As("").get(), pb::ListReservationsRequest(), &listed).ok()) Abandon(pid);
  const double list_ms = Ms(Clock::now() - list_asked);

  // Release every holder in turn; each release grants the next in that supply's queue.
  std::vector<double> handover_ms;
  std::vector<std::pair<std::string, std::string>> current(kInstruments);
  for (int i = 0; i < kInstruments; ++i) current[i] = {absl::StrCat("holder-", i), holder_ids[i]};
  for (size_t depth = 0; depth < queue[0].size(); ++depth) {
    for (int i = 0; i < kInstruments; ++i) {
      if (depth >= queue[i].size()) continue;
      const auto& [next_principal, next_id] = queue[i][depth];
      pb::ReleaseRequest release;
      release.set_id(current[i].second);
      pb::Reservation released;
      const Clock::time_point asked = Clock::now();
      if (!stub->Release(As(current[i].first).get(), release, &released).ok()) Abandon(pid);
      for (;;) {
        {
          absl::MutexLock lock(&mu);
          auto it = granted_at.find(next_id);
          if (it != granted_at.end()) {
            handover_ms.push_back(Ms(it->second - asked));
            break;
          }
        }
        std::this_thread::yield();
      }
      current[i] = queue[i][depth];
    }
  }
  const long rss_after = RssKiB(pid);

  std::printf("reservations: %d instruments, %d waiting (%d per instrument)\n", kInstruments,
              waiting, waiting / kInstruments);
  Report("reserve (joins the queue)", reserve_ms);
  Report("release -> next granted (Watch)", handover_ms);
  std::printf("%-34s %zu reservations in %.2f ms\n", "list with the full queue",
              static_cast<size_t>(listed.reservations_size()), list_ms);
  std::printf("labgate-session RSS: %ld KiB empty, %ld KiB with the queue, %ld KiB after\n",
              rss_empty, rss_queued, rss_after);

  watch_context.TryCancel();
  watcher.join();
  done = true;
  reporter.join();
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  std::filesystem::remove_all(dir);
  return 0;
}
