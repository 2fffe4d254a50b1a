// The real labgate-session binary as a child process on 127.0.0.1 port 0, driven by a
// C++ gRPC client: health, every RPC, WatchSession, SIGTERM and restart.
#include <grpcpp/grpcpp.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "labgate/session/v1/session.grpc.pb.h"

extern char** environ;

namespace {

namespace pb = ::labgate::session::v1;
using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

class TempDir {
 public:
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "labgate-session-it-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// One labgate-session child process.
class SessionProcess {
 public:
  // `data_dir` empty: rely on LABGATE_DATA_DIR=`env_data_dir` instead of the flag.
  SessionProcess(const std::string& data_dir, const std::string& port_file,
                 const std::string& env_data_dir = "") {
    std::filesystem::remove(port_file);
    std::vector<std::string> args = {
        LABGATE_SESSION_BINARY, "--listen", "127.0.0.1:0", "--port-file", port_file,
        "--log-level",          "warning"};
    if (!data_dir.empty()) {
      args.push_back("--data-dir");
      args.push_back(data_dir);
    }
    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e) {
      if (std::string(*e).rfind("LABGATE_DATA_DIR=", 0) != 0) env_storage.push_back(*e);
    }
    if (!env_data_dir.empty()) env_storage.push_back("LABGATE_DATA_DIR=" + env_data_dir);
    std::vector<char*> argv, envp;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : env_storage) envp.push_back(e.data());
    envp.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), envp.data()) != 0) {
      ADD_FAILURE() << "cannot spawn " << LABGATE_SESSION_BINARY;
      pid_ = -1;
      return;
    }
    // The port file appears (atomically) once the server is up.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file);
      if (in >> port_ && port_ > 0) break;
      port_ = 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (port_ == 0) ADD_FAILURE() << "labgate-session did not write " << port_file;
  }
  ~SessionProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  std::shared_ptr<grpc::Channel> Channel() const {
    return grpc::CreateChannel("127.0.0.1:" + std::to_string(port_),
                               grpc::InsecureChannelCredentials());
  }

  // Sends `signal` and returns the exit code, or nullopt if it did not exit normally
  // within `timeout`.
  std::optional<int> Stop(int signal, std::chrono::seconds timeout) {
    kill(pid_, signal);
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      pid_t done = waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        pid_ = -1;
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return std::nullopt;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return std::nullopt;
  }

  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

HealthCheckResponse::ServingStatus Health(const std::shared_ptr<grpc::Channel>& channel,
                                          const std::string& service) {
  auto stub = Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  HealthCheckRequest request;
  request.set_service(service);
  HealthCheckResponse response;
  grpc::Status status = stub->Check(&context, request, &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return response.status();
}

// Calls a unary RPC with a deadline.
template <typename Request, typename Response, typename Method>
grpc::Status Call(pb::SessionService::Stub* stub, Method method, const Request& request,
                  Response* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return (stub->*method)(&context, request, response);
}

void WatchScenario(pb::SessionService::Stub* stub);

class SessionIntegrationTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(SessionIntegrationTest, ReportsServingOnHealth) {
  SessionProcess process(dir_.Sub("data"), dir_.Sub("port"));
  ASSERT_GT(process.port(), 0);
  auto channel = process.Channel();
  EXPECT_EQ(Health(channel, "labgate.session.v1.SessionService"), HealthCheckResponse::SERVING);
  EXPECT_EQ(Health(channel, ""), HealthCheckResponse::SERVING);
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("data/sessions.db")));
  // An idle sync client only notices the server's GOAWAY at its next poll, which would
  // hold the server's drain for the whole grace period; so hang up first.
  channel.reset();
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(process.Stop(SIGTERM, std::chrono::seconds(10)), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
}

TEST_F(SessionIntegrationTest, DataDirComesFromTheEnvironmentWhenNoFlag) {
  SessionProcess process("", dir_.Sub("port"), dir_.Sub("from-env"));
  ASSERT_GT(process.port(), 0);
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("from-env/sessions.db")));
  EXPECT_EQ(process.Stop(SIGINT, std::chrono::seconds(10)), 0);
}

TEST_F(SessionIntegrationTest, EveryRpcWorksAndDataSurvivesSigterm) {
  const std::string data = dir_.Sub("data");
  std::string session_id;
  {
    SessionProcess process(data, dir_.Sub("port"));
    ASSERT_GT(process.port(), 0);
    auto stub = pb::SessionService::NewStub(process.Channel());
    auto* s = stub.get();
    using Stub = pb::SessionService::Stub;

    // Watch every session before anything happens.
    auto watch_context = std::make_unique<grpc::ClientContext>();
    auto watch = stub->WatchSession(watch_context.get(), pb::WatchSessionRequest());
    watch->WaitForInitialMetadata();

    pb::CreateSessionRequest create;
    create.set_device_id("scope-1");
    create.set_port_name("/dev/ttyUSB0");
    pb::CreateSessionResponse created;
    ASSERT_TRUE(Call(s, &Stub::CreateSession, create, &created).ok());
    session_id = created.session().id();
    EXPECT_EQ(created.session().device_id(), "scope-1");
    EXPECT_FALSE(created.session().closed());

    pb::GetSessionRequest get;
    get.set_session_id(session_id);
    pb::GetSessionResponse got;
    ASSERT_TRUE(Call(s, &Stub::GetSession, get, &got).ok());
    EXPECT_EQ(got.session().port_name(), "/dev/ttyUSB0");

    const std::vector<std::pair<std::string, std::string>> lines = {
        {"*IDN?", "scpi idn"}, {"ACME,1000", "scpi2"}, {"MEAS:VOLT?", "SCPI, meas"}};
    for (size_t i = 0; i < lines.size(); ++i) {
      pb::AppendMessageRequest append;
      append.set_session_id(session_id);
      append.set_content(lines[i].first);
      append.set_features(lines[i].second);
      append.set_direction(i % 2 == 0 ? "tx" : "rx");
      pb::AppendMessageResponse appended;
      ASSERT_TRUE(Call(s, &Stub::AppendMessage, append, &appended).ok());
      EXPECT_EQ(appended.message_id(), static_cast<int64_t>(i + 1));
      EXPECT_EQ(appended.session_id(), session_id);
      EXPECT_FALSE(appended.created_at().empty());
    }

    pb::ListMessagesRequest list;
    list.set_session_id(session_id);
    list.set_limit(2);
    pb::ListMessagesResponse page;
    ASSERT_TRUE(Call(s, &Stub::ListMessages, list, &page).ok());
    ASSERT_EQ(page.count(), 2);
    EXPECT_EQ(page.messages(0).content(), "*IDN?");
    ASSERT_TRUE(page.has_next_cursor());
    list.set_after_message_id(page.next_cursor());
    pb::ListMessagesResponse last_page;
    ASSERT_TRUE(Call(s, &Stub::ListMessages, list, &last_page).ok());
    ASSERT_EQ(last_page.count(), 1);
    EXPECT_EQ(last_page.messages(0).message_id(), 3);
    EXPECT_FALSE(last_page.has_next_cursor());

    pb::FilterMessagesRequest filter;
    filter.set_session_id(session_id);
    filter.set_feature("scpi");
    pb::FilterMessagesResponse filtered;
    ASSERT_TRUE(Call(s, &Stub::FilterMessages, filter, &filtered).ok());
    ASSERT_EQ(filtered.count(), 2);
    EXPECT_EQ(filtered.messages(0).message_id(), 1);
    EXPECT_EQ(filtered.messages(1).message_id(), 3);
    filter.set_direction("rx");
    ASSERT_TRUE(Call(s, &Stub::FilterMessages, filter, &filtered).ok());
    EXPECT_EQ(filtered.count(), 0);

    pb::ExportSessionRequest export_request;
    export_request.set_session_id(session_id);
    pb::ExportSessionResponse exported;
    ASSERT_TRUE(Call(s, &Stub::ExportSession, export_request, &exported).ok());
    EXPECT_EQ(exported.export_().session().id(), session_id);
    ASSERT_EQ(exported.export_().messages_size(), 3);
    EXPECT_EQ(exported.export_().messages(2).features(), "scpi,meas");

    pb::FeatureIndexRequest index_request;
    index_request.set_session_id(session_id);
    pb::FeatureIndexResponse index;
    ASSERT_TRUE(Call(s, &Stub::FeatureIndex, index_request, &index).ok());
    EXPECT_EQ(index.features().at("scpi"), 2);
    EXPECT_EQ(index.features().at("scpi2"), 1);
    EXPECT_EQ(index.features().size(), 4u);

    pb::SessionStatsRequest stats_request;
    stats_request.set_session_id(session_id);
    pb::SessionStatsResponse stats;
    ASSERT_TRUE(Call(s, &Stub::SessionStats, stats_request, &stats).ok());
    EXPECT_EQ(stats.message_count(), 3);
    EXPECT_EQ(stats.last_message_id(), 3);
    EXPECT_GT(stats.messages_per_min(), 0.0);

    pb::ListSessionsRequest sessions_request;
    pb::ListSessionsResponse sessions;
    ASSERT_TRUE(Call(s, &Stub::ListSessions, sessions_request, &sessions).ok());
    ASSERT_EQ(sessions.count(), 1);
    EXPECT_EQ(sessions.sessions(0).id(), session_id);

    pb::CloseSessionRequest close;
    close.set_session_id(session_id);
    pb::CloseSessionResponse closed;
    ASSERT_TRUE(Call(s, &Stub::CloseSession, close, &closed).ok());
    EXPECT_TRUE(closed.session().closed());
    ASSERT_TRUE(Call(s, &Stub::ListSessions, sessions_request, &sessions).ok());
    EXPECT_EQ(sessions.count(), 0);
    sessions_request.set_include_closed(true);
    ASSERT_TRUE(Call(s, &Stub::ListSessions, sessions_request, &sessions).ok());
    EXPECT_EQ(sessions.count(), 1);

    // Error codes over the wire.
    pb::AppendMessageRequest refused;
    refused.set_session_id(session_id);
    refused.set_content("late");
    pb::AppendMessageResponse ignored;
    EXPECT_EQ(Call(s, &Stub::AppendMessage, refused, &ignored).error_code(),
              grpc::StatusCode::FAILED_PRECONDITION);
    refused.set_session_id("no-such-session");
    EXPECT_EQ(Call(s, &Stub::AppendMessage, refused, &ignored).error_code(),
              grpc::StatusCode::NOT_FOUND);
    refused.set_content(std::string(1048577, 'x'));
    grpc::Status too_big = Call(s, &Stub::AppendMessage, refused, &ignored);
    EXPECT_EQ(too_big.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(too_big.error_message().find("content"), std::string::npos);
    refused.set_session_id("");
    EXPECT_EQ(Call(s, &Stub::AppendMessage, refused, &ignored).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);

    // The watch saw created, three appends and closed, in commit order.
    std::vector<pb::SessionEvent::Type> types;
    pb::SessionEvent event;
    while (types.size() < 5 && watch->Read(&event)) {
      EXPECT_EQ(event.session().id(), session_id);
      if (event.type() == pb::SessionEvent::TYPE_APPENDED) {
        EXPECT_EQ(event.message().message_id(), static_cast<int64_t>(types.size()));
      }
      types.push_back(event.type());
    }
    EXPECT_EQ(types, (std::vector<pb::SessionEvent::Type>{
                         pb::SessionEvent::TYPE_CREATED, pb::SessionEvent::TYPE_APPENDED,
                         pb::SessionEvent::TYPE_APPENDED, pb::SessionEvent::TYPE_APPENDED,
                         pb::SessionEvent::TYPE_CLOSED}));

    // SIGTERM with the watch still open: the server finishes the stream and exits 0.
    // The client hangs up once the stream ends, as an idle sync client would otherwise
    // notice the server's GOAWAY only at its next poll and hold up the drain.
    grpc::Status watch_end;
    std::thread watcher([&] {
      while (watch->Read(&event)) {
      }
      watch_end = watch->Finish();
      watch.reset();
      watch_context.reset();  // it holds the call, and the call the connection
      stub.reset();
    });
    auto started = std::chrono::steady_clock::now();
    EXPECT_EQ(process.Stop(SIGTERM, std::chrono::seconds(15)), 0);
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
    watcher.join();
    EXPECT_EQ(watch_end.error_code(), grpc::StatusCode::UNAVAILABLE);
  }

  // Restart on the same data dir: everything acknowledged is still there.
  SessionProcess restarted(data, dir_.Sub("port"));
  ASSERT_GT(restarted.port(), 0);
  auto stub = pb::SessionService::NewStub(restarted.Channel());
  pb::ExportSessionRequest export_request;
  export_request.set_session_id(session_id);
  pb::ExportSessionResponse exported;
  ASSERT_TRUE(
      Call(stub.get(), &pb::SessionService::Stub::ExportSession, export_request, &exported).ok());
  EXPECT_TRUE(exported.export_().session().closed());
  ASSERT_EQ(exported.export_().messages_size(), 3);
  EXPECT_EQ(exported.export_().messages(0).content(), "*IDN?");
  stub.reset();
  EXPECT_EQ(restarted.Stop(SIGTERM, std::chrono::seconds(10)), 0);
}

TEST_F(SessionIntegrationTest, WatchOfOneSessionIgnoresOthers) {
  SessionProcess process(dir_.Sub("data"), dir_.Sub("port"));
  ASSERT_GT(process.port(), 0);
  auto stub = pb::SessionService::NewStub(process.Channel());
  WatchScenario(stub.get());
  stub.reset();
  EXPECT_EQ(process.Stop(SIGTERM, std::chrono::seconds(10)), 0);
}

void WatchScenario(pb::SessionService::Stub* stub) {
  using Stub = pb::SessionService::Stub;
  pb::CreateSessionRequest create;
  create.set_device_id("a");
  pb::CreateSessionResponse watched, other;
  ASSERT_TRUE(Call(stub, &Stub::CreateSession, create, &watched).ok());
  ASSERT_TRUE(Call(stub, &Stub::CreateSession, create, &other).ok());

  grpc::ClientContext watch_context;
  pb::WatchSessionRequest watch_request;
  watch_request.set_session_id(watched.session().id());
  auto watch = stub->WatchSession(&watch_context, watch_request);
  watch->WaitForInitialMetadata();

  for (const auto* target : {&other, &watched}) {
    pb::AppendMessageRequest append;
    append.set_session_id(target->session().id());
    append.set_content("x");
    pb::AppendMessageResponse appended;
    ASSERT_TRUE(Call(stub, &Stub::AppendMessage, append, &appended).ok());
  }
  pb::SessionEvent event;
  ASSERT_TRUE(watch->Read(&event));
  EXPECT_EQ(event.type(), pb::SessionEvent::TYPE_APPENDED);
  EXPECT_EQ(event.session().id(), watched.session().id());
  watch_context.TryCancel();
  EXPECT_FALSE(watch->Read(&event));
  watch->Finish();
}

TEST_F(SessionIntegrationTest, UnusableDataDirExitsNonZero) {
  std::ofstream(dir_.Sub("file")) << "x";
  const std::string port_file = dir_.Sub("port");
  pid_t pid = 0;
  std::vector<std::string> args = {
      LABGATE_SESSION_BINARY, "--listen", "127.0.0.1:0", "--data-dir", dir_.Sub("file/data"),
      "--port-file",          port_file,  "--log-level", "off"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_FALSE(std::filesystem::exists(port_file));
}

}  // namespace
