// Several lab benches behind one gateway: each bench is a labgate-serial reached by
// --serial-addr NAME=HOST:PORT, and its ports are named NAME:PORT (bench2:/dev/ttyUSB0).
// A bare --serial-addr HOST:PORT is the unnamed bench, whose ports keep their names.
#pragma once

#include <grpcpp/channel.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace labgate::gateway {

struct Bench {
  std::string name;  // "" = the unnamed bench
  std::string address;
  std::shared_ptr<grpc::Channel> channel;
};

// Parses NAME=HOST:PORT or HOST:PORT values: at most one unnamed bench, names unique and
// made of letters, digits, '-' and '_'.
absl::StatusOr<std::vector<Bench>> ParseBenches(const std::vector<std::string>& values);

class SerialBenches {
 public:
  explicit SerialBenches(std::vector<Bench> benches) : benches_(std::move(benches)) {}

  const std::vector<Bench>& all() const { return benches_; }
  // True when ports carry bench names (some bench is named).
  bool named() const;

  struct Route {
    const Bench* bench;
    std::string local_port;  // the name the bench's serial service knows
  };
  // The bench of `port_name`: a prefix counts only if it is a configured bench name;
  // otherwise the unnamed bench, or an error naming the unknown bench.
  absl::StatusOr<Route> Resolve(const std::string& port_name) const;
  // A port as the gateway's clients see it.
  static std::string Qualify(const Bench& bench, const std::string& local_port);
  // Qualifies the port names in a bench's reply (as JSON): `port_name`, `port.port_name`,
  // each of `ports` and `open_ports`.
  static void QualifyReply(const Bench& bench, nlohmann::json* reply);
  // A bench's error names its ports without the bench ("port loop://x is not open");
  // the caller knows them as BENCH:PORT, so it says that instead.
  static absl::Status QualifyError(const Bench& bench, const std::string& local_port,
                                   const absl::Status& status);

 private:
  const Bench* Unnamed() const;
  std::string Names() const;
  std::vector<Bench> benches_;
};

}  // namespace labgate::gateway
