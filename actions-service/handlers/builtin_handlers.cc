#include "actions-service/handlers/handlers.h"

namespace labgate::actions {

HandlerTable BuiltinHandlers() {
  return {
      {"age_inclusive_design_check", AgeInclusiveDesignCheck},
      {"cognitive_accessibility_audit", CognitiveAccessibilityAudit},
      {"cultural_context_check", CulturalContextCheck},
      {"deescalation_plan", DeescalationPlan},
      {"empathetic_reframe", EmpatheticReframe},
      {"grief_support_response", GriefSupportResponse},
      {"neurodiversity_design_check", NeurodiversityDesignCheck},
      {"rewrite_depression_sensitive_content", RewriteDepressionSensitiveContent},
      {"supportive_reply", SupportiveReply},
      {"wcagaaa_check", WcagAaaCheck},
  };
}

}  // namespace labgate::actions
