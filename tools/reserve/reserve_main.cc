// labgate-reserve: a bench reservation around a command, for CI jobs and people (issue 32).
// It reserves (waiting in the queue up to --wait), runs the command with the grant in its
// environment, renews the lease while the command runs, releases when it ends, and exits with
// the command's status. A labgate-reserve that is killed stops renewing, so its grant ends one
// lease later and the next in line gets the bench. A grant that ends while the command runs (an
// operator's --end) stops the command. `--list` shows who holds what.
#include <grpcpp/create_channel.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/caller_auth.h"
#include "common/cli.h"
#include "common/tls_flags.h"
#include "labgate/reservations/v1/reservations.grpc.pb.h"

ABSL_FLAG(std::string, addr, "127.0.0.1:50052", "labgate-session's HOST:PORT");
ABSL_FLAG(std::string, token_file, "",
          "File whose first line is your client token (labgate-session's --client-token-file)");
ABSL_FLAG(std::vector<std::string>, targets, {}, "Ports or named instruments, all of them");
ABSL_FLAG(std::vector<std::string>, tags, {}, "Or: --count reservables carrying all these tags");
ABSL_FLAG(int32_t, count, 1, "How many to reserve by --tags");
ABSL_FLAG(int32_t, priority, 0, "0 to 9; higher is granted first");
ABSL_FLAG(int64_t, wait, 0, "Seconds to wait in the queue (0: now or not at all)");
ABSL_FLAG(int64_t, lease, 60, "Seconds the grant outlives this process if it stops renewing");
ABSL_FLAG(int64_t, hold, 3600, "Longest the grant may last");
ABSL_FLAG(bool, list, false, "Show who holds what and who waits, and exit");
ABSL_FLAG(std::string, end, "",
          "An operator's: end reservation ID (anyone's; needs an --admin-token-file token of "
          "labgate-session) with --reason, and exit");
ABSL_FLAG(std::string, reason, "", "Why --end ends the reservation (kept with it)");

extern char** environ;

namespace {

namespace pb = ::labgate::reservations::v1;

constexpr char kUsage[] =
    "labgate-reserve [--addr HOST:PORT] [--token-file FILE] (--targets A,B | --tags T,U "
    "[--count N]) [--wait S] [--lease S] [--priority P] -- COMMAND [ARG...]\n"
    "       labgate-reserve [--addr HOST:PORT] --list\n"
    "       labgate-reserve [--addr HOST:PORT] --token-file OPERATOR --end ID --reason TEXT\n"
    "Exits with COMMAND's status; 75 when the reservation was not granted in time, 69 when the "
    "service refused or could not be reached, 64 for bad usage.";
constexpr int kUsageError = 64;
constexpr int kUnavailable = 69;
constexpr int kNotGranted = 75;

class Client {
 public:
  Client(std::shared_ptr<grpc::Channel> channel, std::string token)
      : stub_(pb::ReservationService::NewStub(std::move(channel))), token_(std::move(token)) {}

  std::unique_ptr<grpc::ClientContext> Context() const {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token_.empty()) context->AddMetadata("authorization", "Bearer " + token_);
    return context;
  }
  pb::ReservationService::Stub& stub() { return *stub_; }

  // The reservation `id` as List shows it; state "" when it is no longer active.
  grpc::Status Find(const std::string& id, pb::Reservation* found) {
    pb::ListReservationsResponse listed;
    grpc::Status status = stub_->List(Context().get(), pb::ListReservationsRequest(), &listed);
    if (!status.ok()) return status;
    found->Clear();
    for (const pb::Reservation& reservation : listed.reservations()) {
      if (reservation.id() == id) *found = reservation;
    }
    return status;
  }

 private:
  std::unique_ptr<pb::ReservationService::Stub> stub_;
  std::string token_;
};

int List(Client& client) {
  pb::ListReservationsResponse listed;
  grpc::Status status =
      client.stub().List(client.Context().get(), pb::ListReservationsRequest(), &listed);
  if (!status.ok()) {
    std::cerr << "labgate-reserve: " << status.error_message() << "\n";
    return kUnavailable;
  }
  for (const pb::Reservable& reservable : listed.reservables()) {
    std::cout << reservable.name() << (reservable.present() ? "" : " (absent)") << ": "
              << (reservable.has_holder() ? "held by " + reservable.holder() : "free");
    for (const pb::Reservation& reservation : listed.reservations()) {
      const auto& granted = reservation.granted();
      if (std::find(granted.begin(), granted.end(), reservable.name()) != granted.end()) {
        std::cout << " (reservation " << reservation.id() << ", until " << reservation.expires_at()
                  << ")";
      }
    }
    std::cout << "\n";
  }
  for (const pb::Reservation& reservation : listed.reservations()) {
    if (reservation.state() != "waiting") continue;
    std::cout << "waiting #" << reservation.position() << ": " << reservation.holder() << " for "
              << absl::StrJoin(
                     reservation.targets().empty() ? reservation.tags() : reservation.targets(),
                     ",")
              << " since " << reservation.created_at() << " (reservation " << reservation.id()
              << ")\n";
  }
  return 0;
}

// An operator ends reservation `id`, saying why.
int End(Client& client, const std::string& id, const std::string& reason) {
  pb::EndReservationRequest request;
  request.set_id(id);
  request.set_reason(reason);
  pb::Reservation ended;
  grpc::Status status = client.stub().End(client.Context().get(), request, &ended);
  if (!status.ok()) {
    std::cerr << "labgate-reserve: " << status.error_message() << "\n";
    return status.error_code() == grpc::StatusCode::INVALID_ARGUMENT ? kUsageError : kUnavailable;
  }
  std::cerr << "labgate-reserve: ended reservation " << ended.id() << " of " << ended.holder()
            << " (" << ended.end_reason() << ")\n";
  return 0;
}

// Runs `command` with the grant in its environment, renewing every lease/3 until it exits.
int RunHolding(Client& client, const pb::Reservation& granted,
               const std::vector<std::string>& command, std::chrono::seconds lease) {
  std::vector<std::string> env_strings = {
      "LABGATE_RESERVATION_ID=" + granted.id(),
      "LABGATE_RESERVED=" + absl::StrJoin(granted.granted(), ",")};
  std::vector<char*> env;
  for (char** variable = environ; *variable != nullptr; ++variable) env.push_back(*variable);
  for (std::string& variable : env_strings) env.push_back(variable.data());
  env.push_back(nullptr);
  std::vector<std::string> args = command;
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  if (posix_spawnp(&child, argv[0], nullptr, nullptr, argv.data(), env.data()) != 0) {
    std::cerr << "labgate-reserve: cannot run " << command[0] << "\n";
    return 127;
  }
  const auto renew_every =
      std::max(std::chrono::milliseconds(200),
               std::chrono::duration_cast<std::chrono::milliseconds>(lease) / 3);
  auto next_renewal = std::chrono::steady_clock::now() + renew_every;
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() >= next_renewal) {
      pb::RenewRequest renew;
      renew.set_id(granted.id());
      pb::Reservation renewed;
      grpc::Status renewed_status = client.stub().Renew(client.Context().get(), renew, &renewed);
      const grpc::StatusCode code = renewed_status.error_code();
      if (code == grpc::StatusCode::FAILED_PRECONDITION || code == grpc::StatusCode::NOT_FOUND) {
        // The grant is gone (an operator ended it, or it lapsed): the command must not go on
        // driving a bench it no longer holds, which labgate-serial would refuse it anyway.
        std::cerr << "labgate-reserve: the grant ended (" << renewed_status.error_message()
                  << "); stopping the command\n";
        kill(child, SIGTERM);
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (waitpid(child, &status, WNOHANG) == 0) {
          if (std::chrono::steady_clock::now() >= give_up) {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            break;
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
      }
      if (!renewed_status.ok()) {
        std::cerr << "labgate-reserve: renewing failed: " << renewed_status.error_message() << "\n";
      }
      next_renewal += renew_every;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  pb::ReleaseRequest release;
  release.set_id(granted.id());
  pb::Reservation released;
  if (grpc::Status done = client.stub().Release(client.Context().get(), release, &released);
      !done.ok()) {
    std::cerr << "labgate-reserve: releasing failed: " << done.error_message() << "\n";
  }
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> command = labgate::ParseFlags(argc, argv, kUsage);
  std::string token;
  if (const std::string path = absl::GetFlag(FLAGS_token_file); !path.empty()) {
    absl::StatusOr<std::string> read = labgate::ReadTokenFile(path, "--token-file");
    if (!read.ok()) {
      std::cerr << "labgate-reserve: " << read.status().message() << "\n";
      return kUsageError;
    }
    token = *read;
  }
  auto credentials = labgate::MakeChannelCredentials(labgate::ClientTlsFromFlags());
  if (!credentials.ok()) {
    std::cerr << "labgate-reserve: " << credentials.status().message() << "\n";
    return kUsageError;
  }
  if (labgate::CheckConfigRequested()) {
    return labgate::FinishCheckConfig(
        "labgate-reserve",
        {"reservation service at " + absl::GetFlag(FLAGS_addr),
         token.empty() ? "no client token: you are anonymous there" : "client token set"},
        absl::OkStatus());
  }
  Client client(grpc::CreateChannel(absl::GetFlag(FLAGS_addr), *credentials), token);
  if (absl::GetFlag(FLAGS_list)) return List(client);
  if (const std::string id = absl::GetFlag(FLAGS_end); !id.empty()) {
    return End(client, id, absl::GetFlag(FLAGS_reason));
  }
  if (command.empty()) {
    std::cerr << "labgate-reserve: give the command to run after --\n" << kUsage << "\n";
    return kUsageError;
  }

  pb::ReserveRequest request;
  for (const std::string& target : absl::GetFlag(FLAGS_targets)) request.add_targets(target);
  for (const std::string& tag : absl::GetFlag(FLAGS_tags)) request.add_tags(tag);
  request.set_count(absl::GetFlag(FLAGS_count));
  request.set_priority(absl::GetFlag(FLAGS_priority));
  request.set_wait_s(absl::GetFlag(FLAGS_wait));
  request.set_lease_s(absl::GetFlag(FLAGS_lease));
  request.set_hold_s(absl::GetFlag(FLAGS_hold));
  pb::Reservation reservation;
  grpc::Status reserved = client.stub().Reserve(client.Context().get(), request, &reservation);
  if (!reserved.ok()) {
    std::cerr << "labgate-reserve: " << reserved.error_message() << "\n";
    return kUnavailable;
  }
  // Waiting: look again until granted, or until the queue lets it go.
  int last_position = -1;
  while (reservation.state() == "waiting") {
    if (reservation.position() != last_position) {
      std::cerr << "labgate-reserve: waiting, #" << reservation.position() << " in the queue\n";
      last_position = reservation.position();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    const std::string id = reservation.id();
    if (grpc::Status found = client.Find(id, &reservation); !found.ok()) {
      std::cerr << "labgate-reserve: " << found.error_message() << "\n";
      return kUnavailable;
    }
  }
  if (reservation.state() != "granted") {
    std::cerr << "labgate-reserve: not granted: "
              << (reservation.has_end_reason() ? reservation.end_reason()
                                               : "its wait ran out, or an operator ended it")
              << "\n";
    return kNotGranted;
  }
  std::cerr << "labgate-reserve: granted " << absl::StrJoin(reservation.granted(), ",")
            << " (reservation " << reservation.id() << ")\n";
  return RunHolding(client, reservation, command, std::chrono::seconds(absl::GetFlag(FLAGS_lease)));
}
