// empathetic_reframe: acknowledges feelings first and softens absolute, self-critical
// wording. Crisis language is never reframed away: it gets crisis routing instead.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {
namespace {

struct Softening {
  std::string_view from;  // lower case
  std::string_view to;
  std::string_view why;
};

const std::vector<Softening>& Softenings() {
  static const std::vector<Softening> kRules = {
      {"i'm a failure", "I'm going through a really hard time",
       "Separated the person from the setback"},
      {"i am a failure", "I am going through a really hard time",
       "Separated the person from the setback"},
      {"i can't", "I'm finding it hard to", "Turned a fixed limit into something that can change"},
      {"always", "often", "Replaced an absolute ('always') with a softer word"},
      {"never", "rarely", "Replaced an absolute ('never') with a softer word"},
      {"everyone", "not everyone", "Questioned a generalisation ('everyone')"},
      {"nobody", "not everyone", "Questioned a generalisation ('nobody')"},
      {"you should", "you might consider", "Turned a demand into an invitation"},
      {"you must", "it may help to", "Turned a demand into an invitation"},
  };
  return kRules;
}

}  // namespace

HandlerResult EmpatheticReframe(const nlohmann::json& input) {
  const std::string message = input.at("message").get<std::string>();
  const std::string tone = input.at("tone").get<std::string>();
  const bool crisis = ContainsCrisisLanguage(message);

  std::string opener;
  if (tone == "formal") {
    opener = "Thank you for sharing this. I recognise that this is a difficult situation.";
  } else if (tone == "neutral") {
    opener = "I understand this situation is difficult.";
  } else {
    opener = "It sounds like this has been really hard, and your feelings make sense.";
  }

  std::vector<std::string> rationale;
  rationale.push_back("Tone '" + tone + "': acknowledges the feeling before the content");
  std::string reframed;
  std::vector<std::string> escalation;
  if (crisis) {
    reframed = opener +
               " What you are going through matters, and you deserve support right now. Please "
               "reach out to someone who can help today.";
    rationale.push_back(
        "Crisis language detected: the message was not reframed; crisis routing was added");
    escalation = CrisisEscalationGuidance();
  } else {
    std::string body = message;
    for (const Softening& rule : Softenings()) {
      // "not everyone" is already the reframe; do not turn it into "not not everyone".
      if (ReplaceAllIgnoringCase(body, rule.from, rule.to, "not ") > 0) {
        rationale.emplace_back(rule.why);
      }
    }
    reframed = opener + " " + body;
    if (rationale.size() == 1) {
      rationale.push_back("No absolute or self-critical wording found; the message was kept as is");
    }
  }

  HandlerResult result;
  result.output = {
      {"reframed_message", reframed},
      {"rationale", rationale},
      {"escalation_guidance", escalation},
  };
  result.assumptions.push_back("Tone: " + tone);
  result.assumptions.push_back(crisis ? "Risk level: high (crisis language detected in the message)"
                                      : "No crisis language detected in the message");
  result.assumptions.push_back("Empathy is expressed honestly; nothing is promised or invented");
  result.assumptions.push_back("Rule-based wording changes; review before sending");
  return result;
}

}  // namespace labgate::actions
