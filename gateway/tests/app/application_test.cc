// Application, embedded, with neither stdio nor HTTP served (so the test's own stdin stays
// out of it): it starts on real in-process services, Run() returns once the shutdown latch
// trips, and bad start-up input is refused with a clear error.
#include "gateway/app/application.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <string>
#include <thread>

#include "gateway/tests/temp_dir.h"

namespace labgate::gateway {
namespace {

class ApplicationTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.backend.data_dir = dir_;
    options_.serve_stdio = false;
    options_.serve_http = false;
  }
  testing::TempDir temp_;
  const std::string& dir_ = temp_.path();
  ApplicationOptions options_;
};

TEST_F(ApplicationTest, RunReturnsZeroOnceShutdownIsRequested) {
  auto application = Application::Start(options_);
  ASSERT_TRUE(application.ok()) << application.status();
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(dir_) / "sessions.db"));
  std::future<int> ran = std::async(std::launch::async, [&] { return (*application)->Run(); });
  EXPECT_EQ(ran.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "Run() waits for the latch";
  (*application)->RequestShutdown("test");
  (*application)->RequestShutdown("test again");  // any number of times
  ASSERT_EQ(ran.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  EXPECT_EQ(ran.get(), 0);
}

TEST_F(ApplicationTest, AnUnreadableStateKeyFileIsRefused) {
  options_.state_key_file = dir_ + "/no-such-key";
  auto application = Application::Start(options_);
  EXPECT_EQ(application.status(),
            absl::NotFoundError("cannot read --state-key-file " + dir_ + "/no-such-key"));
}

TEST_F(ApplicationTest, AnUnreadablePolicyIsRefused) {
  options_.backend.policy_file = dir_ + "/no-such-policy.json";
  auto application = Application::Start(options_);
  ASSERT_FALSE(application.ok());
  EXPECT_NE(application.status().message().find("no-such-policy.json"), absl::string_view::npos)
      << application.status();
}

}  // namespace
}  // namespace labgate::gateway
