// Benches: the --serial-addr values, which bench a port name goes to, and the names a
// bench's replies and errors are given back under.
#include "gateway/backends/serial_benches.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/cord.h"

namespace labgate::gateway {
namespace {

using nlohmann::json;

SerialBenches Benches(const std::vector<std::string>& values) {
  auto parsed = ParseBenches(values);
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return SerialBenches(parsed.ok() ? *parsed : std::vector<Bench>{});
}

TEST(ParseBenchesTest, NamedAndUnnamedBenches) {
  auto benches = ParseBenches({"lab-a=10.0.0.1:50051", "lab_b=h:2", "h:3"});
  ASSERT_TRUE(benches.ok()) << benches.status();
  ASSERT_EQ(benches->size(), 3u);
  EXPECT_EQ((*benches)[0].name, "lab-a");
  EXPECT_EQ((*benches)[0].address, "10.0.0.1:50051");
  EXPECT_EQ((*benches)[2].name, "");
  EXPECT_EQ((*benches)[2].address, "h:3");
}

TEST(ParseBenchesTest, RefusalsSayWhatIsWrong) {
  EXPECT_EQ(ParseBenches({"=h:1"}).status().message(), "--serial-addr '=h:1': empty bench name");
  EXPECT_EQ(ParseBenches({"lab a=h:1"}).status().message(),
            "--serial-addr 'lab a=h:1': a bench name is letters, digits, '-' and '_'");
  EXPECT_EQ(ParseBenches({"loop=h:1"}).status().message(),
            "--serial-addr: 'loop' would read as loop:// ports");
  EXPECT_EQ(ParseBenches({"a=h:1", "a=h:2"}).status().message(),
            "--serial-addr: bench 'a' given twice");
  EXPECT_EQ(ParseBenches({"h:1", "h:2"}).status().message(),
            "--serial-addr: only one bench may be unnamed");
  EXPECT_EQ(ParseBenches({"=h:1"}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SerialBenchesTest, APortGoesToTheBenchItNames) {
  SerialBenches benches = Benches({"lab-a=h:1", "lab-b=h:2"});
  EXPECT_TRUE(benches.named());
  auto route = benches.Resolve("lab-b:/dev/ttyUSB0");
  ASSERT_TRUE(route.ok()) << route.status();
  EXPECT_EQ(route->bench->name, "lab-b");
  EXPECT_EQ(route->local_port, "/dev/ttyUSB0");
  route = benches.Resolve("lab-a:loop://x");
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->local_port, "loop://x");
}

TEST(SerialBenchesTest, WithoutAnUnnamedBenchAPortMustNameOne) {
  SerialBenches benches = Benches({"lab-a=h:1", "lab-b=h:2"});
  absl::Status unknown = benches.Resolve("lab-c:/dev/ttyS0").status();
  EXPECT_EQ(unknown.code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(unknown.message(),
            "unknown bench 'lab-c' in port 'lab-c:/dev/ttyS0'; configured benches: lab-a, lab-b");
  // A scheme or a path is not a bench name.
  absl::Status bare = benches.Resolve("loop://x").status();
  EXPECT_EQ(bare.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(bare.message(),
            "port 'loop://x' names no bench; write BENCH:PORT with one of: lab-a, lab-b");
  EXPECT_EQ(benches.Resolve("/dev/ttyS0").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(SerialBenchesTest, TheUnnamedBenchTakesEveryOtherPort) {
  SerialBenches benches = Benches({"h:1", "lab-b=h:2"});
  auto route = benches.Resolve("loop://x");
  ASSERT_TRUE(route.ok()) << route.status();
  EXPECT_EQ(route->bench->address, "h:1");
  EXPECT_EQ(route->local_port, "loop://x");
  route = benches.Resolve("lab-c:x");  // not a configured name: the unnamed bench's port
  ASSERT_TRUE(route.ok());
  EXPECT_EQ(route->local_port, "lab-c:x");
  EXPECT_FALSE(Benches({"h:1"}).named());
}

TEST(SerialBenchesTest, RepliesAndErrorsNameThePortAsTheClientDoes) {
  const Bench bench{"lab-b", "h:2", nullptr};
  json reply = {{"port_name", "loop://x"},
                {"port", {{"port_name", "/dev/ttyS0"}}},
                {"ports", {{{"port_name", "/dev/ttyS1"}}, {{"port_name", "loop://"}}}},
                {"open_ports", {"loop://x", "/dev/ttyS0"}},
                {"other", "loop://x"}};
  SerialBenches::QualifyReply(bench, &reply);
  EXPECT_EQ(reply["port_name"], "lab-b:loop://x");
  EXPECT_EQ(reply["port"]["port_name"], "lab-b:/dev/ttyS0");
  EXPECT_EQ(reply["ports"][0]["port_name"], "lab-b:/dev/ttyS1");
  EXPECT_EQ(reply["ports"][1]["port_name"], "lab-b:loop://");
  EXPECT_EQ(reply["open_ports"], json::array({"lab-b:loop://x", "lab-b:/dev/ttyS0"}));
  EXPECT_EQ(reply["other"], "loop://x");

  absl::Status refused = absl::FailedPreconditionError("port loop://x is not open");
  refused.SetPayload("labgate-why", absl::Cord("closed"));
  absl::Status qualified = SerialBenches::QualifyError(bench, "loop://x", refused);
  EXPECT_EQ(qualified.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(qualified.message(), "port lab-b:loop://x is not open");
  EXPECT_EQ(qualified.GetPayload("labgate-why"), absl::Cord("closed"));
  // Only the port itself, not a longer name that starts the same.
  absl::Status longer = absl::NotFoundError("port loop://xy is not open");
  EXPECT_EQ(SerialBenches::QualifyError(bench, "loop://x", longer), longer);
  // The unnamed bench's ports keep their names.
  EXPECT_EQ(SerialBenches::QualifyError(Bench{"", "h:1", nullptr}, "loop://x", refused), refused);
  EXPECT_EQ(SerialBenches::Qualify(Bench{"", "h:1", nullptr}, "loop://x"), "loop://x");
}

}  // namespace
}  // namespace labgate::gateway
