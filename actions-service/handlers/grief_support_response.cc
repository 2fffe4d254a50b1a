// grief_support_response: a non-clinical bereavement reply in one of three modes.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {

HandlerResult GriefSupportResponse(const nlohmann::json& input) {
  const std::string message = input.at("message").get<std::string>();
  const std::string mode = input.at("support_mode").get<std::string>();
  const std::string lowered = AsciiLower(message);
  const bool crisis = ContainsCrisisLanguage(message);

  std::string reply = "I'm so sorry for your loss. ";
  std::vector<std::string> care_notes;
  if (mode == "practical") {
    reply +=
        "When you feel ready, it can help to take things one small step at a time; nothing has "
        "to be done all at once.";
    care_notes = {
        "Write down only the next one or two practical tasks",
        "Accept specific offers of help, such as meals, errands or paperwork",
        "Separate what needs doing soon from what can wait",
    };
  } else if (mode == "reflection") {
    reply +=
        "If you would like to, you could share a memory of them, or something they meant to you. "
        "There is no right way to remember.";
    care_notes = {
        "Invite memories without pushing for them",
        "Let meaning-making happen at the person's own pace",
    };
  } else {
    reply +=
        "I'm here with you. There is no right way to feel right now, and you don't need to "
        "explain anything.";
    care_notes = {
        "Listen more than you speak; silence is fine",
        "Avoid phrases like 'everything happens for a reason' or 'at least'",
    };
  }
  if (ContainsWord(lowered, "dog") || ContainsWord(lowered, "cat") ||
      ContainsWord(lowered, "pet")) {
    care_notes.push_back("The loss of a companion animal is a real loss; treat it as one");
  }
  care_notes.push_back("Grief has no timetable; anniversaries and holidays can be hard");

  std::vector<std::string> escalation;
  if (crisis) {
    escalation = CrisisEscalationGuidance();
  } else {
    escalation = {
        "If grief feels overwhelming for a long time, or daily life becomes very hard, consider a "
        "bereavement counsellor or support group",
    };
  }

  HandlerResult result;
  result.output = {
      {"reply", reply}, {"care_notes", care_notes}, {"escalation_guidance", escalation}};
  result.assumptions.push_back("Support mode: " + mode);
  if (crisis) {
    result.assumptions.push_back("Risk level: high (crisis language detected in the message)");
  }
  result.assumptions.push_back(
      "Non-clinical bereavement support; not a substitute for counselling");
  return result;
}

}  // namespace labgate::actions
