// cognitive_accessibility_audit: flags long sentences (average over 20 words), long text
// (over 150 words) and jargon.
#include <cstdio>

#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

constexpr double kMaxAverageSentenceWords = 20.0;
constexpr size_t kMaxWords = 150;

const std::vector<std::string_view>& JargonTerms() {
  static const std::vector<std::string_view> kTerms = {
      "aforementioned", "bandwidth",       "deliverable",    "facilitate", "heretofore",
      "leverage",       "notwithstanding", "operationalize", "paradigm",   "pursuant",
      "stakeholder",    "synergy",         "utilize",        "whereas",
  };
  return kTerms;
}

std::string OneDecimal(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.1f", value);
  return buffer;
}

}  // namespace

HandlerResult CognitiveAccessibilityAudit(const nlohmann::json& input) {
  const std::string content = input.at("content").get<std::string>();
  const std::string context = input.value("target_context", "");
  const std::string lowered = AsciiLower(content);
  const size_t words = CountWords(content);
  const size_t sentences = CountSentences(content);
  const double average = sentences == 0 ? 0.0 : static_cast<double>(words) / sentences;

  std::vector<std::string> findings;
  std::vector<std::string> recommendations;
  if (average > kMaxAverageSentenceWords) {
    findings.push_back("Average sentence length is " + OneDecimal(average) + " words (over 20)");
    recommendations.push_back("Split long sentences; aim for 15 to 20 words, one idea each");
  }
  if (words > kMaxWords) {
    findings.push_back("Text is " + std::to_string(words) + " words long (over 150)");
    recommendations.push_back(
        "Shorten the text or break it into sections with headings and bullet points");
  }
  std::string jargon;
  for (std::string_view term : JargonTerms()) {
    if (!ContainsWordStart(lowered, term)) continue;
    if (!jargon.empty()) jargon += ", ";
    jargon += term;
  }
  if (!jargon.empty()) {
    findings.push_back("Jargon or complex terms: " + jargon);
    recommendations.push_back("Replace jargon with everyday words, or explain each term once");
  }
  if (findings.empty()) {
    recommendations.push_back(
        "No major cognitive-load issues detected; keep sentences short and structure clear");
  }
  recommendations.push_back("Test the content with people who have cognitive disabilities");

  HandlerResult result;
  result.output = {{"findings", findings}, {"recommendations", recommendations}};
  result.assumptions.push_back(context.empty() ? "Target context: general (not specified)"
                                               : "Target context: " + Excerpt(context));
  result.assumptions.push_back("Measured " + std::to_string(words) + " word(s) in " +
                               std::to_string(sentences) + " sentence(s)");
  result.assumptions.push_back(
      "Words are counted between spaces, so scripts written without spaces (e.g. Chinese) count "
      "as few words");
  result.assumptions.push_back(
      "Sentence length, word count and a jargon list approximate "
      "cognitive load; they do not measure comprehension");
  return result;
}

}  // namespace labgate::actions
