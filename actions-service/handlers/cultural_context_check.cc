// cultural_context_check: region rules (China/APAC, Middle East, India) and rules for an
// elder audience, each applied to the wording and explained in a note.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

struct Substitution {
  std::string_view from;  // lower case, whole words
  std::string_view to;
};

// Informal shorthand that reads as careless to many audiences.
const std::vector<Substitution>& Shorthand() {
  static const std::vector<Substitution> kRules = {
      {"asap", "as soon as possible"},
      {"btw", "by the way"},
      {"fyi", "for your information"},
      {"pls", "please"},
      {"thx", "thank you"},
      {"gonna", "going to"},
      {"wanna", "want to"},
  };
  return kRules;
}

// Direct imperatives, softened where indirectness is valued.
const std::vector<Substitution>& Directness() {
  static const std::vector<Substitution> kRules = {
      {"you must", "we would kindly ask you to"},
      {"you need to", "could you please"},
      {"you're wrong", "we may see this differently"},
      {"you are wrong", "we may see this differently"},
  };
  return kRules;
}

size_t Apply(std::string& text, const std::vector<Substitution>& rules) {
  size_t count = 0;
  for (const Substitution& rule : rules) count += ReplaceAllIgnoringCase(text, rule.from, rule.to);
  return count;
}

}  // namespace

HandlerResult CulturalContextCheck(const nlohmann::json& input) {
  const std::string message = input.at("message").get<std::string>();
  const std::string audience = input.at("audience").get<std::string>();
  const std::string region = input.value("region", "");
  const std::string audience_lower = AsciiLower(audience);
  const std::string region_lower = AsciiLower(region);

  const bool apac = ContainsAnyLower(region_lower, {"china", "apac", "asia", "japan", "korea",
                                                    "singapore", "hong kong", "taiwan"});
  const bool middle_east =
      ContainsAnyLower(region_lower, {"middle east", "gulf", "saudi", "uae", "emirates", "qatar",
                                      "oman", "kuwait", "bahrain", "jordan", "egypt"});
  const bool india = ContainsLower(region_lower, "india");
  const bool elder = ContainsAnyLower(
      audience_lower,
      {"elder", "older", "seniors", "senior citizen", "retire", "grandparent", "pensioner", "65+"});

  std::string adapted = message;
  std::vector<std::string> notes;
  if (Apply(adapted, Shorthand()) > 0) {
    notes.push_back("Expanded informal shorthand (e.g. 'asap', 'btw') into full words");
  }
  if (apac) {
    if (Apply(adapted, Directness()) > 0) {
      notes.push_back("Softened direct imperatives: indirect requests preserve face");
    }
    notes.push_back(
        "China/APAC: raise disagreement privately and indirectly; avoid singling people out");
    notes.push_back(
        "China/APAC: favour collective framing ('we', 'our team') over individual "
        "praise or blame");
  }
  if (middle_east) {
    notes.push_back("Middle East: use formal greetings and titles until invited otherwise");
    notes.push_back(
        "Middle East: respect the Friday/Saturday weekend and observances such as "
        "Ramadan when setting dates");
  }
  if (india) {
    notes.push_back("India: use respectful forms of address (titles, or 'ji' where appropriate)");
    notes.push_back(
        "India: confirm language preference; English, Hindi and regional languages "
        "all serve different audiences");
  }
  if (elder) {
    size_t greetings = ReplaceAllIgnoringCase(adapted, "hey", "Hello") +
                       ReplaceAllIgnoringCase(adapted, "hi", "Hello");
    if (greetings > 0) {
      notes.push_back("Replaced a casual greeting with 'Hello' for an elder audience");
    }
    notes.push_back(
        "Elder audience: use respectful, plain language without slang or "
        "abbreviations, and offer a phone or in-person alternative");
  }
  if (!apac && !middle_east && !india) {
    notes.push_back(region.empty() ? "No region given: only general adaptations were applied"
                                   : "No specific rules for region '" + Excerpt(region, 40) +
                                         "': only general adaptations were applied");
  }
  notes.push_back("Idioms, humour and sarcasm rarely translate; check them with a native reader");

  HandlerResult result;
  result.output = {
      {"adapted_message", adapted},
      {"notes", notes},
      {"uncertainty",
       "high: norms vary widely within every region and age group; verify with someone from "
       "the audience"},
  };
  result.assumptions.push_back("Audience: " + Excerpt(audience));
  result.assumptions.push_back(region.empty() ? "Region: not specified"
                                              : "Region: " + Excerpt(region));
  result.assumptions.push_back(
      "Cultural rules are broad generalisations and will not fit every individual");
  return result;
}

}  // namespace labgate::actions
