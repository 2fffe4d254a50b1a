// wcagaaa_check: heuristic checks of HTML markup against WCAG 2.2 success criteria up to
// the requested level. A URL is not fetched; it gets the checks that need a person.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

int LevelRank(const std::string& level) { return level == "AAA" ? 3 : level == "AA" ? 2 : 1; }

// Each <img ...> tag that has no alt attribute.
size_t ImagesWithoutAlt(const std::string& lowered) {
  size_t count = 0;
  for (size_t at = lowered.find("<img"); at != std::string::npos;
       at = lowered.find("<img", at + 4)) {
    size_t end = lowered.find('>', at);
    std::string_view tag(lowered.data() + at,
                         (end == std::string::npos ? lowered.size() : end) - at);
    if (tag.find(" alt=") == std::string_view::npos && tag.find(" alt ") == std::string_view::npos)
      ++count;
  }
  return count;
}

}  // namespace

HandlerResult WcagAaaCheck(const nlohmann::json& input) {
  const std::string target = input.at("target").get<std::string>();
  const std::string level = input.at("level").get<std::string>();
  const std::string context = input.value("context", "");
  const std::string lowered = AsciiLower(target);
  const int rank = LevelRank(level);
  const bool is_url = lowered.rfind("http://", 0) == 0 || lowered.rfind("https://", 0) == 0;
  const bool is_html = !is_url && ContainsLower(lowered, "<");

  nlohmann::json findings = nlohmann::json::array();
  auto add = [&](const char* severity, const std::string& issue, const std::string& fix) {
    findings.push_back({{"severity", severity}, {"issue", issue}, {"fix", fix}});
  };

  if (is_html) {
    if (size_t missing = ImagesWithoutAlt(lowered); missing > 0) {
      add("high", std::to_string(missing) + " image(s) without alt text (1.1.1, A)",
          "Add alt text that conveys the image's purpose, or alt=\"\" for decorative images");
    }
    if (ContainsLower(lowered, "<input") && !ContainsLower(lowered, "<label") &&
        !ContainsLower(lowered, "aria-label")) {
      add("high", "Form inputs without labels (1.3.1 / 3.3.2, A)",
          "Associate a visible <label for=...> with every input");
    }
    if (ContainsLower(lowered, "<html") && !ContainsLower(lowered, "lang=")) {
      add("medium", "Page language is not declared (3.1.1, A)", "Add lang=\"...\" to <html>");
    }
    if (ContainsLower(lowered, "onclick") &&
        (ContainsLower(lowered, "<div") || ContainsLower(lowered, "<span")) &&
        !ContainsLower(lowered, "tabindex")) {
      add("high", "Click handlers on non-interactive elements (2.1.1, A)",
          "Use <button> or <a href>, or add tabindex=\"0\", a role and key handlers");
    }
    if (ContainsLower(lowered, "autoplay")) {
      add("medium", "Media starts automatically (1.4.2, A)",
          "Remove autoplay, or give a control to pause or mute it within the first 3 seconds");
    }
    if (ContainsLower(lowered, "<table") && !ContainsLower(lowered, "<th")) {
      add("medium", "Data table without header cells (1.3.1, A)",
          "Mark header cells with <th> and scope");
    }
    if (rank >= 2 && ContainsLower(lowered, "user-scalable=no")) {
      add("high", "Zoom is disabled (1.4.4, AA)", "Remove user-scalable=no from the viewport");
    }
    if (rank >= 3 &&
        ContainsAnyLower(lowered, {">click here<", ">read more<", ">more<", ">here<"})) {
      add("medium", "Link text does not describe its destination (2.4.9, AAA)",
          "Write link text that makes sense on its own, e.g. 'Download the 2026 report'");
    }
  } else if (is_url) {
    add("low", "The page was not fetched; only manual checks can be listed",
        "Run an automated checker on the live page and paste its HTML here for heuristics");
  }
  if (rank >= 3) {
    add("low", "Verify enhanced contrast of at least 7:1 for body text (1.4.6, AAA)",
        "Check text and background colours with a contrast checker");
    add("low", "Verify that content is readable at lower secondary education level (3.1.5, AAA)",
        "Offer a plain-language summary of complex content");
  } else if (rank == 2) {
    add("low", "Verify contrast of at least 4.5:1 for body text (1.4.3, AA)",
        "Check text and background colours with a contrast checker");
  }

  size_t high = 0, medium = 0, low = 0;
  for (const nlohmann::json& finding : findings) {
    const std::string severity = finding["severity"].get<std::string>();
    (severity == "high" ? high : severity == "medium" ? medium : low)++;
  }
  std::string kind = is_url ? "URL (not fetched)" : is_html ? "HTML markup" : "plain text";
  std::string summary = std::to_string(findings.size()) + " potential WCAG " + level +
                        " finding(s) for the " + kind + ": " + std::to_string(high) + " high, " +
                        std::to_string(medium) + " medium, " + std::to_string(low) + " low";
  std::string next_step =
      high > 0 ? "Fix the high-severity findings first, then re-run this check"
               : "Confirm the manual checks with assistive technology (screen reader, keyboard "
                 "only, zoom to 400%)";

  HandlerResult result;
  result.output = {{"summary", summary}, {"findings", findings}, {"next_step", next_step}};
  result.assumptions.push_back("Conformance level: " + level);
  result.assumptions.push_back("Target treated as " + kind);
  if (!context.empty()) result.assumptions.push_back("Context: " + Excerpt(context));
  result.assumptions.push_back(
      "Heuristic checks cannot confirm conformance; test with assistive technology");
  result.assumptions.push_back("Not legal advice; accessibility law varies by jurisdiction");
  return result;
}

}  // namespace labgate::actions
