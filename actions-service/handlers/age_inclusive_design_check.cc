// age_inclusive_design_check: keyword rules on the flow plus rules for each age group.
#include <algorithm>

#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

struct KeywordRule {
  std::vector<std::string_view> keywords;  // lower case, matched at word starts
  std::string_view recommendation;
};

const std::vector<KeywordRule>& KeywordRules() {
  static const std::vector<KeywordRule> kRules = {
      {{"password", "login", "log in", "sign in", "sign-in"},
       "Offer simple sign-in (passkeys or email links) with clear, human account recovery"},
      {{"captcha"}, "Avoid CAPTCHA, or offer an accessible alternative that needs no puzzle"},
      {{"timeout", "timer", "time limit", "countdown"},
       "Give generous time limits and warn before a session expires"},
      {{"gesture", "swipe", "pinch", "drag"},
       "Provide a visible button for every gesture, such as swipe or drag"},
      {{"small text", "font", "tiny"},
       "Use at least 16px body text that survives 200% zoom without breaking the layout"},
      {{"install", "download the app", "app store"},
       "Keep a web or phone alternative for people who cannot install an app"},
      {{"payment", "checkout", "card"},
       "Confirm payments in plain words and let people review before they pay"},
  };
  return kRules;
}

struct GroupRule {
  std::vector<std::string_view> names;  // lower case, matched as substrings
  std::string_view label;
  std::string_view recommendation;
  std::string_view access_note;
};

const std::vector<GroupRule>& GroupRules() {
  static const std::vector<GroupRule> kRules = {
      {{"child", "kid", "under 13"},
       "children",
       "Use short words, big targets and pictures with labels; ask a parent for anything "
       "involving data or money",
       "Children: collect as little data as possible and follow child-privacy rules (e.g. COPPA, "
       "UK Age Appropriate Design Code)"},
      {{"teen", "adolescent", "young people", "youth"},
       "teens",
       "Respect autonomy: explain choices plainly and avoid manipulative streaks or pressure",
       "Teens: default to private settings and explain data use in plain language"},
      {{"older", "senior", "elder", "65", "retire"},
       "older adults",
       "Use larger text and targets, high contrast, and one task per screen with clear labels",
       "Older adults: offer phone or in-person help, and do not assume a smartphone"},
      {{"adult"},
       "adults",
       "Keep flows efficient with sensible defaults, and let people skip optional steps",
       "Adults: support interrupted sessions; people often finish on another device"},
  };
  return kRules;
}

}  // namespace

HandlerResult AgeInclusiveDesignCheck(const nlohmann::json& input) {
  const std::string flow = input.at("flow_description").get<std::string>();
  const std::string lowered = AsciiLower(flow);
  std::vector<std::string> groups;
  if (input.contains("age_groups")) groups = input.at("age_groups").get<std::vector<std::string>>();

  std::vector<std::string> recommendations;
  for (const KeywordRule& rule : KeywordRules()) {
    bool hit = false;
    for (std::string_view keyword : rule.keywords) hit = hit || ContainsWordStart(lowered, keyword);
    if (hit) recommendations.emplace_back(rule.recommendation);
  }

  std::vector<std::string> access_notes;
  std::vector<std::string> applied;
  std::vector<std::string> unknown;
  for (const std::string& requested : groups) {
    std::string wanted = AsciiLower(requested);
    const GroupRule* match = nullptr;
    // "older adults" must not match "adults" first, so the more specific rules come first.
    for (const GroupRule& rule : GroupRules()) {
      for (std::string_view name : rule.names) {
        if (match == nullptr && ContainsLower(wanted, name)) match = &rule;
      }
    }
    if (match == nullptr) {
      unknown.push_back(Excerpt(requested, 40));
      continue;
    }
    if (std::find(applied.begin(), applied.end(), match->label) != applied.end()) continue;
    applied.emplace_back(match->label);
    recommendations.emplace_back(match->recommendation);
    access_notes.emplace_back(match->access_note);
  }
  recommendations.push_back("Write in plain language and keep every step reversible");
  access_notes.push_back("Test the flow with participants from every age group it serves");

  HandlerResult result;
  result.output = {{"recommendations", recommendations}, {"access_notes", access_notes}};
  std::string groups_text;
  for (const std::string& label : applied) groups_text += (groups_text.empty() ? "" : ", ") + label;
  result.assumptions.push_back(groups_text.empty()
                                   ? "Age groups: all (no recognised age group given)"
                                   : "Age groups: " + groups_text);
  for (const std::string& name : unknown) {
    result.assumptions.push_back("Age group '" + name + "' is not recognised and was ignored");
  }
  result.assumptions.push_back(
      "Age groups are broad; abilities vary more within a group than "
      "between groups");
  return result;
}

}  // namespace labgate::actions
