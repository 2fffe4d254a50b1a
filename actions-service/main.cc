// labgate-actions: the actions service on its own gRPC port, with health and reflection.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "actions-service/actions_service.h"
#include "common/log.h"
#include "common/service_host.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50053", "gRPC listen address HOST:PORT (port 0 = any)");
ABSL_FLAG(std::string, contracts_dir, "",
          "Directory of contract *.json files to use instead of the built-in contracts");
ABSL_FLAG(std::string, port_file, "",
          "After the server is up, write the bound port (decimal, newline) to this file");
ABSL_FLAG(std::string, log_level, "info", "debug, info, warning, error or off");

namespace {

// Writes via a temporary file and rename, so a reader never sees a partial port.
bool WritePortFile(const std::string& path, int port) {
  std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    if (!file) return false;
    file << port << "\n";
    if (!file.flush()) return false;
  }
  return std::rename(temporary.c_str(), path.c_str()) == 0;
}

// The documented spellings are --contracts-dir, --port-file and --log-level, but absl flag
// names are identifiers: dashes in a flag's name (not its value) become underscores.
std::vector<char*> NormalizeFlagNames(int argc, char** argv, std::vector<std::string>* storage) {
  storage->assign(argv, argv + argc);
  for (size_t i = 1; i < storage->size(); ++i) {
    std::string& arg = (*storage)[i];
    if (arg == "--") break;
    if (arg.rfind("--", 0) != 0) continue;
    size_t name_end = std::min(arg.find('='), arg.size());
    for (size_t j = 2; j < name_end; ++j) {
      if (arg[j] == '-') arg[j] = '_';
    }
  }
  std::vector<char*> normalized;
  for (std::string& arg : *storage) normalized.push_back(arg.data());
  normalized.push_back(nullptr);
  return normalized;
}

std::string HostOf(const std::string& address) {
  size_t colon = address.rfind(':');
  return colon == std::string::npos ? address : address.substr(0, colon);
}

}  // namespace

int main(int argc, char** argv) {
  labgate::BlockShutdownSignals();
  labgate::SkipMutexDeadlockDetection();
  absl::SetProgramUsageMessage("labgate-actions --listen HOST:PORT [--contracts-dir DIR]");
  std::vector<std::string> arg_storage;
  std::vector<char*> args = NormalizeFlagNames(argc, argv, &arg_storage);
  absl::ParseCommandLine(static_cast<int>(arg_storage.size()), args.data());

  labgate::LogLevel level;
  if (!labgate::ParseLogLevel(absl::GetFlag(FLAGS_log_level), &level)) {
    std::fprintf(stderr, "labgate-actions: unknown --log-level '%s'\n",
                 absl::GetFlag(FLAGS_log_level).c_str());
    return 2;
  }
  labgate::SetLogLevel(level);

  labgate::actions::ActionsServiceOptions options;
  options.contracts_dir = absl::GetFlag(FLAGS_contracts_dir);
  auto service = labgate::actions::CreateActionsService(options);
  if (!service.ok()) {
    LG_LOG(kError) << "labgate-actions cannot start: " << service.status().message();
    return 1;
  }
  LG_LOG(kInfo) << "loaded " << (*service)->registry().List().size() << " action contracts from "
                << (options.contracts_dir.empty() ? "the built-in set" : options.contracts_dir);

  const std::string listen = absl::GetFlag(FLAGS_listen);
  auto host = labgate::ServiceHost::Start(listen, {service->get()});
  if (!host.ok()) {
    LG_LOG(kError) << "labgate-actions cannot start: " << host.status().message();
    return 1;
  }
  (*host)->SetServing(labgate::actions::v1::ActionsService::service_full_name(), true);

  const std::string port_file = absl::GetFlag(FLAGS_port_file);
  if (!port_file.empty() && !WritePortFile(port_file, (*host)->port())) {
    LG_LOG(kError) << "cannot write --port-file " << port_file;
    (*host)->Shutdown(std::chrono::milliseconds(0));
    return 1;
  }
  LG_LOG(kInfo) << "labgate-actions listening on " << HostOf(listen) << ":" << (*host)->port();

  int signal_number = labgate::WaitForShutdownSignal();
  LG_LOG(kInfo) << "signal " << signal_number << " received; draining";
  (*service)->Shutdown();
  (*host)->Shutdown(std::chrono::seconds(5));
  LG_LOG(kInfo) << "labgate-actions stopped";
  return 0;
}
