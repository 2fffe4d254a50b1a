// neurodiversity_design_check: keyword rules on the UI description plus rules for each
// requested focus (ADHD, autism, dyslexia, sensory, anxiety).
#include <algorithm>

#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

struct KeywordRule {
  std::vector<std::string_view> keywords;  // lower case, matched at word starts
  std::string_view recommendation;
  std::string_view tradeoff;  // may be empty
};

const std::vector<KeywordRule>& KeywordRules() {
  static const std::vector<KeywordRule> kRules = {
      {{"animation", "animated", "autoplay", "carousel", "parallax"},
       "Respect prefers-reduced-motion and give moving content a pause control",
       "Less motion can make state changes easier to miss; pair it with clear static cues"},
      {{"timer", "timeout", "countdown", "time limit"},
       "Let people extend, pause or turn off time limits",
       "Longer sessions can hold locks or seats longer; warn before releasing them"},
      {{"popup", "pop-up", "modal", "notification", "alert"},
       "Limit interruptions: batch notifications and never open unrequested modals",
       "Fewer interruptions can mean missed updates; offer an opt-in digest"},
      {{"dense", "wall of text", "long form", "many fields", "dashboard"},
       "Break content into small chunks with headings and progressive disclosure",
       "Progressive disclosure hides detail some expert users want; keep a show-all option"},
      {{"flashing", "flash", "bright", "sound", "audio"},
       "Avoid flashing content and autoplaying sound; offer a calm or low-stimulation theme",
       ""},
      {{"icon", "icons"},
       "Pair icons with text labels; do not rely on icons alone",
       "Text labels take space; allow a compact mode that keeps tooltips"},
  };
  return kRules;
}

struct FocusRule {
  std::vector<std::string_view> names;  // lower case
  std::string_view label;
  std::vector<std::string_view> recommendations;
};

const std::vector<FocusRule>& FocusRules() {
  static const std::vector<FocusRule> kRules = {
      {{"adhd", "attention"},
       "ADHD",
       {"Show progress and save work automatically so interruptions cost nothing",
        "Keep one primary action per screen"}},
      {{"autism", "autistic"},
       "autism",
       {"Keep layouts and wording predictable; announce changes before they happen",
        "Use literal language instead of idioms and metaphors"}},
      {{"dyslexia", "dyslexic"},
       "dyslexia",
       {"Use a clear sans-serif font, left-aligned text and generous line spacing",
        "Avoid long blocks of italics or all-caps text"}},
      {{"sensory", "sensory processing"},
       "sensory sensitivity",
       {"Offer muted colours and let people turn off sounds and haptics"}},
      {{"anxiety", "anxious"},
       "anxiety",
       {"Explain what happens next before each commitment, and make actions undoable"}},
      {{"executive function", "executive"},
       "executive function",
       {"Break tasks into steps with checklists and reminders the user controls"}},
  };
  return kRules;
}

}  // namespace

HandlerResult NeurodiversityDesignCheck(const nlohmann::json& input) {
  const std::string description = input.at("ui_description").get<std::string>();
  const std::string lowered = AsciiLower(description);
  std::vector<std::string> focus;
  if (input.contains("focus")) focus = input.at("focus").get<std::vector<std::string>>();

  std::vector<std::string> recommendations;
  std::vector<std::string> tradeoffs;
  for (const KeywordRule& rule : KeywordRules()) {
    bool hit = false;
    for (std::string_view keyword : rule.keywords) hit = hit || ContainsWordStart(lowered, keyword);
    if (!hit) continue;
    recommendations.emplace_back(rule.recommendation);
    if (!rule.tradeoff.empty()) tradeoffs.emplace_back(rule.tradeoff);
  }

  std::vector<std::string> applied;
  std::vector<std::string> unknown;
  for (const std::string& requested : focus) {
    std::string wanted = AsciiLower(requested);
    const FocusRule* match = nullptr;
    for (const FocusRule& rule : FocusRules()) {
      for (std::string_view name : rule.names) {
        if (wanted == name) match = &rule;
      }
    }
    if (match == nullptr) {
      unknown.push_back(Excerpt(requested, 40));
      continue;
    }
    if (std::find(applied.begin(), applied.end(), match->label) != applied.end()) continue;
    applied.emplace_back(match->label);
    for (std::string_view text : match->recommendations) recommendations.emplace_back(text);
  }
  recommendations.push_back("Offer consistent navigation and let people customise the display");
  tradeoffs.push_back(
      "Needs differ and can conflict (e.g. calm visuals vs. strong cues); prefer user settings "
      "over one fixed design");

  HandlerResult result;
  result.output = {{"recommendations", recommendations}, {"tradeoffs", tradeoffs}};
  std::string focus_text;
  for (const std::string& label : applied) focus_text += (focus_text.empty() ? "" : ", ") + label;
  result.assumptions.push_back(focus_text.empty() ? "Focus: general (no recognised focus given)"
                                                  : "Focus: " + focus_text);
  for (const std::string& name : unknown) {
    result.assumptions.push_back("Focus '" + name + "' is not recognised and was ignored");
  }
  result.assumptions.push_back(
      "Keyword rules read the description only; test with neurodivergent "
      "users");
  return result;
}

}  // namespace labgate::actions
