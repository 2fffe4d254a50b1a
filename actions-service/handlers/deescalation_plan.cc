// deescalation_plan: non-coercive steps scaled to intensity, with alerts for threats,
// harm and legal issues.
#include "actions-service/handlers/handlers.h"
#include "actions-service/text_rules.h"

namespace labgate::actions {

HandlerResult DeescalationPlan(const nlohmann::json& input) {
  const std::string situation = input.at("situation").get<std::string>();
  const std::string intensity = input.at("intensity").get<std::string>();
  const std::string lowered = AsciiLower(situation);

  std::vector<std::string> plan;
  if (intensity == "high") {
    plan = {
        "Put safety first: keep a calm distance and make sure everyone has a clear way out",
        "Speak slowly and quietly, in short sentences",
        "Do not argue, threaten, block or touch anyone",
        "Suggest a pause and, if possible, move to a quieter space",
        "Call in a trained colleague, supervisor or security if the situation does not settle",
        "Return to the issue only once everyone is calm, and agree a follow-up",
    };
  } else if (intensity == "low") {
    plan = {
        "Acknowledge the other person's view in your own words",
        "Name the goal you share",
        "Agree one small next step together",
    };
  } else {
    plan = {
        "Pause, and slow down your voice and pace",
        "Listen without interrupting, then reflect back what you heard",
        "Acknowledge feelings without arguing about the facts",
        "Offer two or three options rather than an ultimatum",
        "Agree when you will follow up",
    };
  }

  std::vector<std::string> risk_notes;
  if (ContainsWordStart(lowered, "threat")) {
    risk_notes.push_back(
        "ALERT: threats were mentioned; record what was said and involve a manager or security");
  }
  if (ContainsWordStart(lowered, "harm")) {
    risk_notes.push_back(
        "ALERT: possible harm; if anyone is in immediate danger, contact emergency services");
  }
  if (ContainsWordStart(lowered, "legal")) {
    risk_notes.push_back(
        "ALERT: legal issues were mentioned; involve HR or legal counsel and do not give legal "
        "advice");
  }
  risk_notes.push_back(
      "Use no coercive tactics: no deception, intimidation, ultimatums or pressure");

  HandlerResult result;
  result.output = {{"plan", plan}, {"risk_notes", risk_notes}};
  result.assumptions.push_back("Intensity: " + intensity);
  result.assumptions.push_back("Situation: " + Excerpt(situation));
  result.assumptions.push_back("General guidance; follow your organisation's safety procedures");
  return result;
}

}  // namespace labgate::actions
