// Table-driven tests of each handler's behaviour, invoked through the real registry (so
// validation and defaults apply as in production).
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "actions-service/tests/test_registry.h"

namespace labgate::actions {
namespace {

using nlohmann::json;
using testing::AnyContains;
using testing::BuiltinRegistry;
using testing::Contains;

struct HandlerCase {
  std::string name;
  std::string action;
  json input;
  std::function<void(const ActionResult&)> expect;
};

void PrintTo(const HandlerCase& c, std::ostream* os) { *os << c.action << "/" << c.name; }

class HandlerTest : public ::testing::TestWithParam<HandlerCase> {};

TEST_P(HandlerTest, BehavesAsSpecified) {
  const HandlerCase& c = GetParam();
  absl::StatusOr<ActionResult> result = BuiltinRegistry().Invoke(c.action, c.input);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->action, c.action);
  EXPECT_FALSE(result->assumptions.empty());
  c.expect(*result);
  // Deterministic: the same input gives the same response.
  absl::StatusOr<ActionResult> again = BuiltinRegistry().Invoke(c.action, c.input);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->ToJson(), result->ToJson());
}

std::string CaseName(const ::testing::TestParamInfo<HandlerCase>& info) { return info.param.name; }

const std::string kCrisisLine = "Samaritans 116 123 | US: 988 | findahelpline.com";

// --- supportive_reply: escalation tiers and crisis phrases -------------------------------

INSTANTIATE_TEST_SUITE_P(
    SupportiveReply, HandlerTest,
    ::testing::Values(
        HandlerCase{"LowRiskOneGentleSuggestion",
                    "supportive_reply",
                    {{"message", "Work has been a bit stressful"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      ASSERT_EQ(r.output["escalation_guidance"].size(), 1u);
                      EXPECT_FALSE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                      EXPECT_TRUE(AnyContains(
                          r.assumptions, "Risk level: low (self-reported or system-assessed)"));
                      EXPECT_EQ(r.uncertainty, "medium");
                      EXPECT_EQ(r.boundary_notice,
                                "Non-clinical support; must provide escalation cues when risk "
                                "is elevated");
                    }},
        HandlerCase{"MediumRiskTwoSuggestions",
                    "supportive_reply",
                    {{"message", "I feel overwhelmed"}, {"risk_level", "medium"}},
                    [](const ActionResult& r) {
                      ASSERT_EQ(r.output["escalation_guidance"].size(), 2u);
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"],
                                              "mental health professional"));
                      EXPECT_FALSE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                      EXPECT_TRUE(Contains(r.output["reply"].get<std::string>(),
                                           "I am glad you reached out"));
                      EXPECT_TRUE(AnyContains(
                          r.assumptions, "Risk level: medium (self-reported or system-assessed)"));
                    }},
        HandlerCase{"HighRiskEmergencyCrisisLineTrustedPerson",
                    "supportive_reply",
                    {{"message", "Everything is falling apart"}, {"risk_level", "high"}},
                    [](const ActionResult& r) {
                      const json& guidance = r.output["escalation_guidance"];
                      ASSERT_EQ(guidance.size(), 3u);
                      EXPECT_TRUE(AnyContains(guidance, "emergency services"));
                      EXPECT_TRUE(AnyContains(guidance, kCrisisLine));
                      EXPECT_TRUE(AnyContains(guidance, "trusted person"));
                    }},
        HandlerCase{"CrisisPhraseSuicidRaisesLowToHigh",
                    "supportive_reply",
                    {{"message", "I keep having SUICIDAL thoughts"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                      EXPECT_TRUE(
                          AnyContains(r.output["escalation_guidance"], "emergency services"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Risk level raised to high"));
                    }},
        HandlerCase{"CrisisPhraseSelfHarm",
                    "supportive_reply",
                    {{"message", "thinking about self-harm again"}, {"risk_level", "medium"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["escalation_guidance"].size(), 3u);
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{"CrisisPhraseEndMyLife",
                    "supportive_reply",
                    {{"message", "I want to End My Life"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{"CrisisPhraseNoPoint",
                    "supportive_reply",
                    {{"message", "There is no point anymore"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{"CrisisPhraseDontWantToBeHere",
                    "supportive_reply",
                    {{"message", "I don't want to be here"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{"CrisisPhraseTypographicApostrophe",
                    "supportive_reply",
                    {{"message", "I don\u2019t want to be here"}, {"risk_level", "low"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{
            "LocaleDefaultsToEn",
            "supportive_reply",
            {{"message", "hello"}, {"risk_level", "low"}},
            [](const ActionResult& r) { EXPECT_TRUE(AnyContains(r.assumptions, "Locale: en")); }},
        HandlerCase{"OtherLocaleIsNoted",
                    "supportive_reply",
                    {{"message", "bonjour"}, {"risk_level", "low"}, {"locale", "fr"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.assumptions, "Locale: fr"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "not translated"));
                    }}),
    CaseName);

// --- empathetic_reframe -------------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    EmpatheticReframe, HandlerTest,
    ::testing::Values(
        HandlerCase{"WarmIsDefaultAndSoftensAbsolutes",
                    "empathetic_reframe",
                    {{"message", "I always mess up and nobody cares"}},
                    [](const ActionResult& r) {
                      std::string text = r.output["reframed_message"].get<std::string>();
                      EXPECT_TRUE(Contains(text, "really hard")) << text;
                      EXPECT_TRUE(Contains(text, "I often mess up and not everyone cares")) << text;
                      EXPECT_TRUE(r.output["escalation_guidance"].empty());
                      EXPECT_TRUE(AnyContains(r.assumptions, "Tone: warm"));
                      EXPECT_EQ(r.uncertainty, "low");
                    }},
        HandlerCase{"FormalTone",
                    "empathetic_reframe",
                    {{"message", "You must fix this"}, {"tone", "formal"}},
                    [](const ActionResult& r) {
                      std::string text = r.output["reframed_message"].get<std::string>();
                      EXPECT_TRUE(Contains(text, "Thank you for sharing this")) << text;
                      EXPECT_TRUE(Contains(text, "It may help to fix this")) << text;
                    }},
        HandlerCase{"NeutralToneKeepsPlainMessage",
                    "empathetic_reframe",
                    {{"message", "The meeting moved to Tuesday"}, {"tone", "neutral"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["reframed_message"],
                                "I understand this situation is difficult. The meeting moved to "
                                "Tuesday");
                      EXPECT_TRUE(AnyContains(r.output["rationale"], "kept as is"));
                    }},
        HandlerCase{
            "NegatedAbsolutesKept",
            "empathetic_reframe",
            {{"message", "Not everyone agrees and I do not always win"}, {"tone", "neutral"}},
            [](const ActionResult& r) {
              EXPECT_EQ(r.output["reframed_message"],
                        "I understand this situation is difficult. Not everyone agrees "
                        "and I do not always win");
            }},
        HandlerCase{"WholeWordsOnly",
                    "empathetic_reframe",
                    {{"message", "The hallways are nevertheless clean"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(Contains(r.output["reframed_message"].get<std::string>(),
                                           "The hallways are nevertheless clean"));
                    }},
        HandlerCase{"CrisisRoutingOnSuicid",
                    "empathetic_reframe",
                    {{"message", "I have been feeling suicidal"}},
                    [](const ActionResult& r) {
                      const json& guidance = r.output["escalation_guidance"];
                      EXPECT_TRUE(AnyContains(guidance, kCrisisLine));
                      EXPECT_TRUE(AnyContains(guidance, "emergency services"));
                      EXPECT_TRUE(AnyContains(guidance, "trusted person"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Risk level: high"));
                      // The crisis statement is not reframed away.
                      EXPECT_FALSE(
                          Contains(r.output["reframed_message"].get<std::string>(), "suicidal"));
                    }},
        HandlerCase{"CrisisRoutingOnNoPoint",
                    "empathetic_reframe",
                    {{"message", "There's NO POINT in trying"}, {"tone", "neutral"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }},
        HandlerCase{"CrisisRoutingOnDontWantToBeHere",
                    "empathetic_reframe",
                    {{"message", "honestly i don't want to be here"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }}),
    CaseName);

// --- deescalation_plan ----------------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    DeescalationPlan, HandlerTest,
    ::testing::Values(
        HandlerCase{"MediumIsDefault",
                    "deescalation_plan",
                    {{"situation", "Two colleagues disagree about a deadline"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["plan"].size(), 5u);
                      EXPECT_TRUE(AnyContains(r.assumptions, "Intensity: medium"));
                      EXPECT_EQ(r.output["risk_notes"].size(), 1u);  // only the no-coercion note
                      EXPECT_TRUE(AnyContains(r.output["risk_notes"], "no coercive tactics"));
                    }},
        HandlerCase{"LowIntensityShortPlan",
                    "deescalation_plan",
                    {{"situation", "A mild disagreement"}, {"intensity", "low"}},
                    [](const ActionResult& r) { EXPECT_EQ(r.output["plan"].size(), 3u); }},
        HandlerCase{"HighIntensitySafetyFirst",
                    "deescalation_plan",
                    {{"situation", "A customer is shouting"}, {"intensity", "high"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["plan"].size(), 6u);
                      EXPECT_TRUE(Contains(r.output["plan"][0].get<std::string>(), "safety"));
                    }},
        HandlerCase{"ThreatAlert",
                    "deescalation_plan",
                    {{"situation", "He made a Threat to the team"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["risk_notes"], "ALERT: threats"));
                    }},
        HandlerCase{"HarmAndLegalAlerts",
                    "deescalation_plan",
                    {{"situation", "She says she was harmed and mentions legal action"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["risk_notes"], "ALERT: possible harm"));
                      EXPECT_TRUE(AnyContains(r.output["risk_notes"], "ALERT: legal"));
                      EXPECT_FALSE(AnyContains(r.output["risk_notes"], "ALERT: threats"));
                    }},
        HandlerCase{"NoAlertForPharmacy",
                    "deescalation_plan",
                    {{"situation", "Queue at the pharmacy"}},
                    [](const ActionResult& r) {
                      EXPECT_FALSE(AnyContains(r.output["risk_notes"], "ALERT"));
                    }}),
    CaseName);

// --- cognitive_accessibility_audit ----------------------------------------------------------

std::string Words(size_t count, const std::string& word = "word") {
  std::string text;
  for (size_t i = 0; i < count; ++i) text += (i == 0 ? "" : " ") + word;
  return text;
}

INSTANTIATE_TEST_SUITE_P(
    CognitiveAccessibilityAudit, HandlerTest,
    ::testing::Values(
        HandlerCase{"PlainTextHasNoFindings",
                    "cognitive_accessibility_audit",
                    {{"content", "Press the green button. Then wait."}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(r.output["findings"].empty());
                      EXPECT_FALSE(r.output["recommendations"].empty());
                      EXPECT_TRUE(AnyContains(r.assumptions, "general (not specified)"));
                    }},
        HandlerCase{
            "LongSentences",
            "cognitive_accessibility_audit",
            {{"content", Words(25) + ". " + Words(25) + "."}, {"target_context", "onboarding"}},
            [](const ActionResult& r) {
              EXPECT_TRUE(
                  AnyContains(r.output["findings"], "Average sentence length is 25.0 words"));
              EXPECT_TRUE(AnyContains(r.assumptions, "Target context: onboarding"));
            }},
        HandlerCase{"ExactlyTwentyWordsIsFine",
                    "cognitive_accessibility_audit",
                    {{"content", Words(20) + "."}},
                    [](const ActionResult& r) { EXPECT_TRUE(r.output["findings"].empty()); }},
        HandlerCase{"OverOneHundredFiftyWords",
                    "cognitive_accessibility_audit",
                    {{"content",
                      [] {
                        std::string text;
                        for (int i = 0; i < 16; ++i) text += Words(10) + ". ";
                        return text;
                      }()}},
                    [](const ActionResult& r) {
                      ASSERT_EQ(r.output["findings"].size(), 1u);
                      EXPECT_TRUE(AnyContains(r.output["findings"], "160 words long"));
                    }},
        HandlerCase{"Jargon",
                    "cognitive_accessibility_audit",
                    {{"content", "We leverage synergy to utilize stakeholders."}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["findings"],
                                              "Jargon or complex terms: leverage, stakeholder, "
                                              "synergy, utilize"));
                    }}),
    CaseName);

// --- rewrite_depression_sensitive_content ---------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    RewriteDepressionSensitiveContent, HandlerTest,
    ::testing::Values(
        HandlerCase{"RewriteIsDefault",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Act now! It is your fault if you miss this. Don't be lazy."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"],
                                "When you are ready! It is not something you caused if you miss "
                                "this. Don't be low on energy.");
                      EXPECT_EQ(r.output["pattern_count"], 3);
                      EXPECT_EQ(r.output["review_recommended"], true);
                      EXPECT_TRUE(AnyContains(r.output["safety_flags"], "urgency: 'act now'"));
                      EXPECT_TRUE(AnyContains(r.output["safety_flags"], "shame: 'your fault'"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Mode: rewrite"));
                    }},
        HandlerCase{"AuditListsWithoutRewriting",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Hurry, last chance!"}, {"mode", "audit"}, {"domain", "retail"}},
                    [](const ActionResult& r) {
                      std::string text = r.output["result"].get<std::string>();
                      EXPECT_TRUE(Contains(text, "Found 2 phrase(s)")) << text;
                      EXPECT_TRUE(Contains(text, "'last chance'")) << text;
                      EXPECT_EQ(r.output["pattern_count"], 2);
                      EXPECT_TRUE(AnyContains(r.assumptions, "Domain: retail"));
                    }},
        HandlerCase{"CognitiveLoadAndRepeats",
                    "rewrite_depression_sensitive_content",
                    {{"text",
                      "In order to continue, utilize the form. Utilize it twice. "
                      "Failure to comply ends access."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"],
                                "To continue, use the form. Use it twice. Not completing this "
                                "ends access.");
                      EXPECT_TRUE(
                          AnyContains(r.output["safety_flags"], "cognitive_load: 'utilize' x2"));
                      EXPECT_EQ(r.output["pattern_count"], 4);
                    }},
        HandlerCase{"ShameRewrittenGently",
                    "rewrite_depression_sensitive_content",
                    {{"text", "You should have paid. Failure to comply will be reported."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"],
                                "If possible, you could have paid. Not completing this will be "
                                "reported.");
                    }},
        HandlerCase{"CleanTextUnchanged",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Your appointment is on Monday."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"], "Your appointment is on Monday.");
                      EXPECT_EQ(r.output["pattern_count"], 0);
                      EXPECT_EQ(r.output["review_recommended"], false);
                      EXPECT_TRUE(r.output["safety_flags"].empty());
                    }},
        HandlerCase{"ImperativeAndStepsReadAsOneSentence",
                    "rewrite_depression_sensitive_content",
                    {{"text", "It is imperative that you utilize all of the following steps."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"], "Please use these steps.");
                      EXPECT_EQ(r.output["safety_flags"],
                                json({"cognitive_load: 'it is imperative that you'",
                                      "cognitive_load: 'utilize'",
                                      "cognitive_load: 'all of the following steps'"}));
                      EXPECT_EQ(r.output["pattern_count"], 3);
                    }},
        HandlerCase{"UrgencyThenImperative",
                    "rewrite_depression_sensitive_content",
                    {{"text", "URGENT: it is imperative that you complete all of the following."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"], "Important: please complete the following.");
                      EXPECT_EQ(
                          r.output["safety_flags"],
                          json({"urgency: 'urgent'", "cognitive_load: 'it is imperative that you'",
                                "cognitive_load: 'all of the following'"}));
                    }},
        HandlerCase{"ImperativeWithoutYou",
                    "rewrite_depression_sensitive_content",
                    {{"text", "It is imperative that forms are signed."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"], "It helps if forms are signed.");
                    }},
        HandlerCase{"FinalWarningRewritten",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Final warning: your account is overdue. Act now."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"],
                                "Reminder: your account is overdue. When you are ready.");
                      EXPECT_EQ(r.output["safety_flags"],
                                json({"urgency: 'act now'", "urgency: 'final warning'"}));
                      EXPECT_EQ(r.output["pattern_count"], 2);
                      EXPECT_EQ(r.output["review_recommended"], true);
                    }},
        HandlerCase{"FinalWarningAudited",
                    "rewrite_depression_sensitive_content",
                    {{"text", "This is your final warning."}, {"mode", "audit"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"],
                                "Found 1 phrase(s) that may weigh on readers living with "
                                "depression: 'final warning'. Run mode 'rewrite' for gentler "
                                "wording.");
                      EXPECT_EQ(r.output["safety_flags"], json({"urgency: 'final warning'"}));
                    }},
        HandlerCase{"SeveralPhrasesInOneSentence",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Utilize it immediately; this is your final notice."}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["result"], "Use it when you can; this is your reminder.");
                      EXPECT_EQ(r.output["pattern_count"], 3);
                    }},
        HandlerCase{"CrisisLanguageFlagged",
                    "rewrite_depression_sensitive_content",
                    {{"text", "Some days there is no point."}, {"mode", "audit"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["safety_flags"], "crisis_language"));
                      EXPECT_EQ(r.output["review_recommended"], true);
                    }}),
    CaseName);

// --- cultural_context_check -----------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    CulturalContextCheck, HandlerTest,
    ::testing::Values(
        HandlerCase{"ChinaSoftensImperatives",
                    "cultural_context_check",
                    {{"message", "You must send the report asap"},
                     {"audience", "partner team"},
                     {"region", "China"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["adapted_message"],
                                "We would kindly ask you to send the report as soon as possible");
                      EXPECT_TRUE(AnyContains(r.output["notes"], "China/APAC"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Region: China"));
                      EXPECT_EQ(r.uncertainty, "high");
                      EXPECT_TRUE(Contains(r.output["uncertainty"].get<std::string>(), "high"));
                    }},
        HandlerCase{
            "MiddleEast",
            "cultural_context_check",
            {{"message", "Meeting on Friday"}, {"audience", "clients"}, {"region", "Middle East"}},
            [](const ActionResult& r) {
              EXPECT_TRUE(AnyContains(r.output["notes"], "Friday/Saturday"));
              EXPECT_TRUE(AnyContains(r.output["notes"], "formal greetings"));
            }},
        HandlerCase{
            "India",
            "cultural_context_check",
            {{"message", "Please review"}, {"audience", "engineers"}, {"region", "India"}},
            [](const ActionResult& r) { EXPECT_TRUE(AnyContains(r.output["notes"], "India:")); }},
        HandlerCase{"ElderAudience",
                    "cultural_context_check",
                    {{"message", "Hey, btw the app updated"}, {"audience", "Older adults"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["adapted_message"], "Hello, by the way the app updated");
                      EXPECT_TRUE(AnyContains(r.output["notes"], "Elder audience"));
                      EXPECT_TRUE(AnyContains(r.output["notes"], "No region given"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Region: not specified"));
                    }},
        HandlerCase{"SeniorManagersAreNotElders",
                    "cultural_context_check",
                    {{"message", "Hey all"}, {"audience", "senior managers"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["adapted_message"], "Hey all");
                      EXPECT_FALSE(AnyContains(r.output["notes"], "Elder audience"));
                    }},
        HandlerCase{"UnknownRegion",
                    "cultural_context_check",
                    {{"message", "Thanks"}, {"audience", "team"}, {"region", "Atlantis"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["notes"],
                                              "No specific rules for region 'Atlantis'"));
                    }}),
    CaseName);

// --- grief_support_response -----------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    GriefSupportResponse, HandlerTest,
    ::testing::Values(
        HandlerCase{"Presence",
                    "grief_support_response",
                    {{"message", "My father died last week"}, {"support_mode", "presence"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(Contains(r.output["reply"].get<std::string>(), "here with you"));
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], "bereavement"));
                      EXPECT_FALSE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Support mode: presence"));
                    }},
        HandlerCase{"Practical",
                    "grief_support_response",
                    {{"message", "I lost my mum"}, {"support_mode", "practical"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["care_notes"], "offers of help"));
                    }},
        HandlerCase{"ReflectionAndPet",
                    "grief_support_response",
                    {{"message", "Our dog passed away"}, {"support_mode", "reflection"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(Contains(r.output["reply"].get<std::string>(), "memory"));
                      EXPECT_TRUE(AnyContains(r.output["care_notes"], "companion animal"));
                    }},
        HandlerCase{"NoPetForCategory",
                    "grief_support_response",
                    {{"message", "A category of loss"}, {"support_mode", "presence"}},
                    [](const ActionResult& r) {
                      EXPECT_FALSE(AnyContains(r.output["care_notes"], "companion animal"));
                    }},
        HandlerCase{"CrisisPhrase",
                    "grief_support_response",
                    {{"message", "Without her there is no point"}, {"support_mode", "presence"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["escalation_guidance"], kCrisisLine));
                    }}),
    CaseName);

// --- wcagaaa_check --------------------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    WcagAaaCheck, HandlerTest,
    ::testing::Values(
        HandlerCase{"HtmlProblemsAtAaa",
                    "wcagaaa_check",
                    {{"target", "<html><img src=a.png><input id=q><a href=x>click here</a></html>"},
                     {"level", "AAA"}},
                    [](const ActionResult& r) {
                      const json& findings = r.output["findings"];
                      std::string all = findings.dump();
                      EXPECT_TRUE(Contains(all, "without alt text")) << all;
                      EXPECT_TRUE(Contains(all, "without labels")) << all;
                      EXPECT_TRUE(Contains(all, "language is not declared")) << all;
                      EXPECT_TRUE(Contains(all, "2.4.9")) << all;
                      EXPECT_TRUE(Contains(all, "7:1")) << all;
                      EXPECT_TRUE(
                          Contains(r.output["next_step"].get<std::string>(), "high-severity"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Conformance level: AAA"));
                      EXPECT_EQ(r.boundary_notice,
                                "Compliance guidance only; does not replace legal review");
                    }},
        HandlerCase{"LevelAFiltersAaaRules",
                    "wcagaaa_check",
                    {{"target", "<html lang=en><img src=a.png alt=''><a href=x>click here</a>"},
                     {"level", "A"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(r.output["findings"].empty()) << r.output.dump();
                      EXPECT_TRUE(Contains(r.output["summary"].get<std::string>(),
                                           "0 potential WCAG A finding(s)"));
                    }},
        HandlerCase{"LevelAaContrast",
                    "wcagaaa_check",
                    {{"target", "<p>Hello</p>"}, {"level", "AA"}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(Contains(r.output["findings"].dump(), "4.5:1"));
                    }},
        HandlerCase{
            "UrlIsNotFetched",
            "wcagaaa_check",
            {{"target", "https://example.org"}, {"level", "AAA"}, {"context", "public site"}},
            [](const ActionResult& r) {
              EXPECT_TRUE(Contains(r.output["findings"].dump(), "not fetched"));
              EXPECT_TRUE(AnyContains(r.assumptions, "URL (not fetched)"));
              EXPECT_TRUE(AnyContains(r.assumptions, "Context: public site"));
            }}),
    CaseName);

// --- neurodiversity_design_check ------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    NeurodiversityDesignCheck, HandlerTest,
    ::testing::Values(
        HandlerCase{"KeywordsAndFocus",
                    "neurodiversity_design_check",
                    {{"ui_description", "A dashboard with an animated carousel and a countdown"},
                     {"focus", {"ADHD", "dyslexia"}}},
                    [](const ActionResult& r) {
                      const json& recs = r.output["recommendations"];
                      EXPECT_TRUE(AnyContains(recs, "prefers-reduced-motion"));
                      EXPECT_TRUE(AnyContains(recs, "time limits"));
                      EXPECT_TRUE(AnyContains(recs, "small chunks"));
                      EXPECT_TRUE(AnyContains(recs, "one primary action"));
                      EXPECT_TRUE(AnyContains(recs, "sans-serif"));
                      EXPECT_TRUE(AnyContains(r.output["tradeoffs"], "Less motion"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Focus: ADHD, dyslexia"));
                    }},
        HandlerCase{"NoFocusGeneral",
                    "neurodiversity_design_check",
                    {{"ui_description", "A simple settings page"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["recommendations"].size(), 1u);
                      EXPECT_TRUE(AnyContains(r.assumptions, "Focus: general"));
                    }},
        HandlerCase{"UnknownFocusNoted",
                    "neurodiversity_design_check",
                    {{"ui_description", "Modal popups"}, {"focus", {"autism", "juggling"}}},
                    [](const ActionResult& r) {
                      EXPECT_TRUE(AnyContains(r.output["recommendations"], "literal language"));
                      EXPECT_TRUE(AnyContains(r.output["recommendations"], "interruptions"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Focus 'juggling' is not recognised"));
                    }}),
    CaseName);

// --- age_inclusive_design_check -------------------------------------------------------------

INSTANTIATE_TEST_SUITE_P(
    AgeInclusiveDesignCheck, HandlerTest,
    ::testing::Values(
        HandlerCase{"OlderAdultsAndPasswords",
                    "age_inclusive_design_check",
                    {{"flow_description", "Sign in with a password, then swipe to confirm"},
                     {"age_groups", {"older adults"}}},
                    [](const ActionResult& r) {
                      const json& recs = r.output["recommendations"];
                      EXPECT_TRUE(AnyContains(recs, "simple sign-in"));
                      EXPECT_TRUE(AnyContains(recs, "every gesture"));
                      EXPECT_TRUE(AnyContains(recs, "larger text"));
                      EXPECT_TRUE(AnyContains(r.output["access_notes"], "Older adults:"));
                      EXPECT_FALSE(AnyContains(r.output["access_notes"], "Adults:"));
                      EXPECT_TRUE(AnyContains(r.assumptions, "Age groups: older adults"));
                    }},
        HandlerCase{
            "ChildrenAndTeens",
            "age_inclusive_design_check",
            {{"flow_description", "Checkout with a card"}, {"age_groups", {"children", "teens"}}},
            [](const ActionResult& r) {
              EXPECT_TRUE(AnyContains(r.output["access_notes"], "COPPA"));
              EXPECT_TRUE(AnyContains(r.output["access_notes"], "Teens:"));
              EXPECT_TRUE(AnyContains(r.output["recommendations"], "payments"));
            }},
        HandlerCase{"NoGroups",
                    "age_inclusive_design_check",
                    {{"flow_description", "Read an article"}},
                    [](const ActionResult& r) {
                      EXPECT_EQ(r.output["recommendations"].size(), 1u);
                      EXPECT_TRUE(AnyContains(r.assumptions, "Age groups: all"));
                      EXPECT_EQ(r.uncertainty, "low");
                    }}),
    CaseName);

}  // namespace
}  // namespace labgate::actions
