// The start and the announcement that every standalone service (labgate-session,
// labgate-serial, labgate-actions) shares, so that each main.cc holds only its own service.
// Defines --log-level and --port-file; each binary defines --listen with its own default.
#pragma once

#include <string>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "common/service_flags.h"

namespace labgate {

// Blocks SIGTERM/SIGINT (and SIGHUP when `reload_on_hup`) before any thread starts, parses
// argv (hyphenated names, --help) and checks the flags every service has: --listen (given as
// the binary's flag), --log-level, stray arguments, TLS and metrics. `own_flags` is the
// usage of the binary's other flags, e.g. "[--data-dir DIR]"; --help shows it among the
// shared ones.
ServiceConfig BeginService(int argc, char** argv, const std::string& program,
                           const std::string& own_flags, const absl::Flag<std::string>& listen,
                           bool reload_on_hup = false);

// The usage line BeginService gives --help.
std::string ServiceUsage(const std::string& program, const std::string& own_flags);

// "HOST:PORT" of `listen` with the port replaced by the one bound.
std::string BoundAddress(const std::string& listen, int port);

// Once the gRPC server serves: writes --port-file and logs "PROGRAM listening on HOST:PORT".
absl::Status AnnounceServing(const std::string& program, const std::string& listen, int port);

}  // namespace labgate
