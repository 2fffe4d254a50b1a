// One deterministic handler per contract. Each receives input that already passed the
// contract's input schema, with defaults applied.
#pragma once

#include "actions-service/action_handler.h"

namespace labgate::actions {

HandlerResult WcagAaaCheck(const nlohmann::json& input);
HandlerResult RewriteDepressionSensitiveContent(const nlohmann::json& input);
HandlerResult SupportiveReply(const nlohmann::json& input);
HandlerResult CognitiveAccessibilityAudit(const nlohmann::json& input);
HandlerResult CulturalContextCheck(const nlohmann::json& input);
HandlerResult DeescalationPlan(const nlohmann::json& input);
HandlerResult EmpatheticReframe(const nlohmann::json& input);
HandlerResult GriefSupportResponse(const nlohmann::json& input);
HandlerResult NeurodiversityDesignCheck(const nlohmann::json& input);
HandlerResult AgeInclusiveDesignCheck(const nlohmann::json& input);

}  // namespace labgate::actions
