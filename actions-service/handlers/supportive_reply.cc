// supportive_reply: a warm, non-clinical reply whose escalation guidance grows with risk.
// Crisis language always raises the risk to high, whatever the caller assessed.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {

HandlerResult SupportiveReply(const nlohmann::json& input) {
  const std::string message = input.at("message").get<std::string>();
  const std::string assessed = input.at("risk_level").get<std::string>();
  const std::string locale = input.at("locale").get<std::string>();
  const bool crisis = ContainsCrisisLanguage(message);
  const std::string risk = crisis ? "high" : assessed;

  std::string reply;
  std::vector<std::string> guidance;
  if (risk == "high") {
    reply =
        "I'm really glad you told me, and I'm taking what you said seriously. Your safety "
        "matters most right now. You don't have to carry this alone: please reach out to "
        "someone who can be with you or help right away.";
    guidance = CrisisEscalationGuidance();
  } else if (risk == "medium") {
    reply =
        "I hear you, and I am glad you reached out. What you are feeling matters, and it makes "
        "sense that things feel heavy right now. Taking one small step at a time is enough.";
    guidance = {
        "If things feel harder over time, consider speaking with a mental health professional",
        "It can help to tell someone you trust how you are feeling",
    };
  } else {
    reply =
        "Thank you for sharing this with me. It sounds like you are dealing with a lot, and your "
        "feelings make sense. Be gentle with yourself today.";
    guidance = {"If these feelings stay with you, consider talking with someone you trust"};
  }

  HandlerResult result;
  result.output = {
      {"reply", reply},
      {"escalation_guidance", guidance},
      {"boundaries_notice",
       "This is non-clinical support, not a substitute for professional care. If you are in "
       "danger, contact emergency services."},
  };
  result.assumptions.push_back("Risk level: " + assessed + " (self-reported or system-assessed)");
  if (crisis && assessed != "high") {
    result.assumptions.push_back("Risk level raised to high: the message contains crisis language");
  } else if (crisis) {
    result.assumptions.push_back("The message contains crisis language");
  }
  result.assumptions.push_back("Locale: " + Excerpt(locale));
  if (locale.rfind("en", 0) != 0) {
    result.assumptions.push_back("Replies are written in English; locale '" + Excerpt(locale) +
                                 "' was noted but not translated");
  }
  result.assumptions.push_back("Rule-based, non-clinical response; no model or person reviewed it");
  result.assumptions.push_back("Crisis lines listed are examples; local services may differ");
  return result;
}

}  // namespace labgate::actions
