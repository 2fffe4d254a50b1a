#include "common/metrics/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "common/tests/exposition_parser.h"

namespace labgate::metrics {
namespace {

using testing::ParseExposition;
using testing::ValueOf;

TEST(MetricsTest, ExpositionOfEveryTypeParses) {
  Registry registry;
  auto& requests =
      registry.Counter("labgate_test_requests_total", "Requests answered.", {"method", "outcome"});
  auto& open = registry.Gauge("labgate_test_open", "Things open now.");
  auto& latency =
      registry.Histogram("labgate_test_seconds", "Latency.", {"method"}, {0.001, 0.01, 0.1});
  requests.With({"tools/call", "ok"}).Increment();
  requests.With({"tools/call", "ok"}).Increment(2);
  requests.With({"ping", "invalid_params"}).Increment();
  open.Get().Set(3);
  open.Get().Decrement();
  latency.With({"ping"}).Observe(0.0005);
  latency.With({"ping"}).Observe(0.01);  // on a bound: that bucket (le is inclusive)
  latency.With({"ping"}).Observe(5);

  const std::string text = registry.Render();
  auto parsed = ParseExposition(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status() << "\n" << text;
  EXPECT_EQ(parsed->at("labgate_test_requests_total").type, "counter");
  EXPECT_EQ(parsed->at("labgate_test_requests_total").help, "Requests answered.");
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_requests_total",
                    {{"method", "tools/call"}, {"outcome", "ok"}}),
            3);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_requests_total",
                    {{"method", "ping"}, {"outcome", "invalid_params"}}),
            1);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_open"), 2);
  EXPECT_EQ(parsed->at("labgate_test_seconds").type, "histogram");
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_seconds_bucket", {{"method", "ping"}, {"le", "0.001"}}),
            1);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_seconds_bucket", {{"method", "ping"}, {"le", "0.01"}}),
            2);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_seconds_bucket", {{"method", "ping"}, {"le", "0.1"}}),
            2);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_seconds_bucket", {{"method", "ping"}, {"le", "+Inf"}}),
            3);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_seconds_count", {{"method", "ping"}}), 3);
  EXPECT_DOUBLE_EQ(ValueOf(*parsed, "labgate_test_seconds_sum", {{"method", "ping"}}), 5.0105);
}

TEST(MetricsTest, FamiliesWithoutSeriesStillHaveHelpAndType) {
  Registry registry;
  registry.Counter("labgate_test_nothing_total", "Nothing yet.", {"kind"});
  const std::string text = registry.Render();
  EXPECT_EQ(text,
            "# HELP labgate_test_nothing_total Nothing yet.\n"
            "# TYPE labgate_test_nothing_total counter\n");
  EXPECT_TRUE(ParseExposition(text).ok());
}

TEST(MetricsTest, LabelValuesAndHelpAreEscaped) {
  Registry registry;
  auto& family =
      registry.Counter("labgate_test_escaped_total", "Back\\slash and\nnewline.", {"name"});
  const std::string awkward = "a \"quoted\" back\\slash\nand newline";
  family.With({awkward}).Increment();
  const std::string text = registry.Render();
  EXPECT_NE(text.find(R"(name="a \"quoted\" back\\slash\nand newline")"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP labgate_test_escaped_total Back\\\\slash and\\nnewline.\n"),
            std::string::npos);
  auto parsed = ParseExposition(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_escaped_total", {{"name", awkward}}), 1);
}

TEST(MetricsTest, RegisteringAgainReturnsTheSameFamily) {
  Registry registry;
  auto& first = registry.Counter("labgate_test_again_total", "Once.", {"a"});
  auto& second = registry.Counter("labgate_test_again_total", "Once.", {"a"});
  EXPECT_EQ(&first, &second);
  first.With({"x"}).Increment();
  EXPECT_EQ(second.With({"x"}).value(), 1u);
}

TEST(MetricsDeathTest, MisuseAbortsWithAMessage) {
  Registry registry;
  EXPECT_DEATH(registry.Counter("labgate bad name", "x"), "bad metric name");
  registry.Counter("labgate_test_typed_total", "x", {"a"});
  EXPECT_DEATH(registry.Gauge("labgate_test_typed_total", "x", {"a"}), "registered twice");
  auto& family = registry.Counter("labgate_test_arity_total", "x", {"a", "b"});
  EXPECT_DEATH(family.With({"only one"}), "takes 2 label value");
  EXPECT_DEATH(registry.Histogram("labgate_test_le", "x", {"le"}, {1}), "bad label name");
  EXPECT_DEATH(registry.Histogram("labgate_test_order", "x", {}, {1, 0.5}), "ascending");
}

TEST(MetricsTest, ConcurrentCountsAreNotLost) {
  Registry registry;
  auto& counter = registry.Counter("labgate_test_concurrent_total", "x", {"worker"});
  auto& histogram = registry.Histogram("labgate_test_concurrent_seconds", "x", {}, {0.5});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 10000; ++i) {
        counter.With({t % 2 == 0 ? "even" : "odd"}).Increment();
        histogram.Get().Observe(i % 2 == 0 ? 0.25 : 1.0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto parsed = ParseExposition(registry.Render());
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_concurrent_total", {{"worker", "even"}}), 20000);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_concurrent_total", {{"worker", "odd"}}), 20000);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_concurrent_seconds_bucket", {{"le", "0.5"}}), 20000);
  EXPECT_EQ(ValueOf(*parsed, "labgate_test_concurrent_seconds_count"), 40000);
  EXPECT_DOUBLE_EQ(ValueOf(*parsed, "labgate_test_concurrent_seconds_sum"), 25000);
}

TEST(MetricsTest, ValuesUseTheExpositionSpellings) {
  EXPECT_EQ(FormatValue(0.25), "0.25");
  EXPECT_EQ(FormatValue(3), "3");
  EXPECT_EQ(FormatValue(INFINITY), "+Inf");
  EXPECT_EQ(FormatValue(-INFINITY), "-Inf");
  EXPECT_EQ(FormatValue(NAN), "NaN");
}

TEST(ExpositionParserTest, RejectsWhatTheFormatForbids) {
  // The parser is the evidence for the tests above, so it must be able to fail.
  const char* bad[] = {
      "labgate_x 1\n",                                                             // no HELP/TYPE
      "# HELP labgate_x x\nlabgate_x 1\n",                                         // no TYPE
      "# HELP labgate_x x\n# TYPE labgate_x counter\nlabgate_x one\n",             // bad value
      "# HELP labgate_x x\n# TYPE labgate_x counter\nlabgate_x{a=\"1} 1\n",        // unterminated
      "# HELP labgate_x x\n# TYPE labgate_x counter\nlabgate_x{a=\"\\t\"} 1\n",    // bad escape
      "# HELP labgate_x x\n# TYPE labgate_x counter\nlabgate_x 1\nlabgate_x 2\n",  // twice
      "# HELP labgate_x x\n# TYPE labgate_x counter\nlabgate_x 1",  // no final newline
      "# HELP labgate_h x\n# TYPE labgate_h histogram\nlabgate_h_bucket{le=\"1\"} 2\n"
      "labgate_h_bucket{le=\"+Inf\"} 1\nlabgate_h_sum 1\nlabgate_h_count 1\n",  // not cumulative
      "# HELP labgate_h x\n# TYPE labgate_h histogram\nlabgate_h_bucket{le=\"+Inf\"} 2\n"
      "labgate_h_sum 1\nlabgate_h_count 1\n",  // +Inf != count
  };
  for (const char* text : bad) EXPECT_FALSE(ParseExposition(text).ok()) << text;
}

}  // namespace
}  // namespace labgate::metrics
