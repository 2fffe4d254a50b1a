// rewrite_depression_sensitive_content: flags shame, urgency and cognitive-load phrasing
// and, in rewrite mode, replaces each phrase with a gentler one.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

struct Pattern {
  std::string_view category;  // the safety flag's prefix
  std::string_view phrase;    // lower case, matched as whole words
  std::string_view gentler;
};

const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> kPatterns = {
      // Longer phrases first, so that a shorter one inside them does not match first. Each
      // gentler phrase must read well wherever its phrase stood: "it is imperative that you
      // use" becomes "please use", and "all of the following steps" does not become "these
      // steps steps".
      {"cognitive_load", "failure to comply", "not completing this"},
      // Shame: blames the reader for struggling.
      {"shame", "your fault", "not something you caused"},
      {"shame", "you should have", "if possible, you could have"},
      {"shame", "no excuse", "a reason to get support"},
      {"shame", "just try harder", "take it one step at a time"},
      {"shame", "lazy", "low on energy"},
      {"shame", "you failed", "this did not work out"},
      {"shame", "failure", "setback"},
      // Urgency: pressure that feeds anxiety and overwhelm.
      {"urgency", "act now", "when you are ready"},
      {"urgency", "immediately", "when you can"},
      {"urgency", "last chance", "another opportunity will come"},
      {"urgency", "don't miss out", "you can come back to this"},
      {"urgency", "before it's too late", "in your own time"},
      {"urgency", "hurry", "take your time"},
      {"urgency", "urgent", "important"},
      {"urgency", "final warning", "reminder"},
      {"urgency", "final notice", "reminder"},
      // Cognitive load: dense, demanding wording.
      {"cognitive_load", "it is imperative that you", "please"},
      {"cognitive_load", "it is imperative that", "it helps if"},
      {"cognitive_load", "in order to", "to"},
      {"cognitive_load", "utilize", "use"},
      {"cognitive_load", "all of the following steps", "these steps"},
      {"cognitive_load", "all of the following", "the following"},
      {"cognitive_load", "must be completed", "can be done"},
  };
  return kPatterns;
}

}  // namespace

HandlerResult RewriteDepressionSensitiveContent(const nlohmann::json& input) {
  const std::string text = input.at("text").get<std::string>();
  const std::string mode = input.at("mode").get<std::string>();
  const std::string domain = input.value("domain", "");

  // One pass over the original text, so that no gentler phrase is itself rewritten.
  static const std::vector<WordReplacement>* rules = [] {
    auto* built = new std::vector<WordReplacement>;
    for (const Pattern& pattern : Patterns()) built->push_back({pattern.phrase, pattern.gentler});
    return built;
  }();
  std::vector<size_t> counts;
  const std::string rewritten = ReplaceWordsInOnePass(text, *rules, &counts);
  std::vector<std::string> flags;
  std::vector<std::string> found_phrases;
  int pattern_count = 0;
  for (size_t i = 0; i < Patterns().size(); ++i) {
    const Pattern& pattern = Patterns()[i];
    const size_t count = counts[i];
    if (count == 0) continue;
    pattern_count += static_cast<int>(count);
    flags.push_back(std::string(pattern.category) + ": '" + std::string(pattern.phrase) + "'" +
                    (count > 1 ? " x" + std::to_string(count) : ""));
    found_phrases.emplace_back(pattern.phrase);
  }
  const bool crisis = ContainsCrisisLanguage(text);
  if (crisis) flags.push_back("crisis_language: route readers to crisis support");

  std::string result_text;
  if (mode == "audit") {
    if (pattern_count == 0) {
      result_text = "No shame, urgency or cognitive-load phrasing found.";
    } else {
      result_text = "Found " + std::to_string(pattern_count) +
                    " phrase(s) that may weigh on readers living with depression:";
      for (size_t i = 0; i < found_phrases.size(); ++i) {
        result_text += (i == 0 ? " '" : ", '") + found_phrases[i] + "'";
      }
      result_text += ". Run mode 'rewrite' for gentler wording.";
    }
  } else {
    result_text = rewritten;
  }

  HandlerResult result;
  result.output = {
      {"result", result_text},
      {"safety_flags", flags},
      {"pattern_count", pattern_count},
      {"review_recommended", pattern_count > 0 || crisis},
  };
  result.assumptions.push_back("Mode: " + mode);
  result.assumptions.push_back(domain.empty() ? "Domain: general (not specified)"
                                              : "Domain: " + Excerpt(domain));
  result.assumptions.push_back(
      "Phrase lists cover common shame, urgency and cognitive-load wording in English only");
  result.assumptions.push_back("Non-clinical content guidance; have rewritten text reviewed");
  return result;
}

}  // namespace labgate::actions
