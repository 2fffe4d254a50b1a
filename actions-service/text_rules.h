// Small text helpers shared by the rule-based handlers. Matching is ASCII
// case-insensitive and byte-based, so UTF-8 text (emoji, CJK, RTL) passes through intact.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace labgate::actions {

// ASCII letters lowered; every other byte unchanged (so offsets match the input).
std::string AsciiLower(std::string_view text);

// `needle` must already be lower case.
bool ContainsLower(std::string_view lowered_text, std::string_view needle);
bool ContainsAnyLower(std::string_view lowered_text, const std::vector<std::string_view>& needles);

// True when `needle` (lower case) occurs where a word starts (not preceded by a letter or
// digit), so "harm" matches "harmed" but not "pharmacy".
bool ContainsWordStart(std::string_view lowered_text, std::string_view needle);

// True when `needle` (lower case) occurs as a whole word or phrase, or with a plural "s".
bool ContainsWord(std::string_view lowered_text, std::string_view needle);

// Replaces every case-insensitive whole-word occurrence of `needle` (lower case) with
// `replacement`, capitalising the replacement where the match started with a capital.
// A match directly preceded by `unless_after` (lower case, e.g. "not ") is left alone.
// Returns the count.
size_t ReplaceAllIgnoringCase(std::string& text, std::string_view needle,
                              std::string_view replacement, std::string_view unless_after = "");

// One phrase of ReplaceWordsInOnePass.
struct WordReplacement {
  std::string_view needle;  // lower case, matched as a whole word or phrase
  std::string_view replacement;
};

// Replaces whole-word matches of `rules` in one left-to-right pass over `text`: at each
// position the first rule that matches wins (so list longer phrases first), and replaced text
// is never looked at again, so one rule's replacement cannot feed another. Capitalises as
// ReplaceAllIgnoringCase does. `counts` gets, per rule, how often it was replaced.
std::string ReplaceWordsInOnePass(std::string_view text, const std::vector<WordReplacement>& rules,
                                  std::vector<size_t>* counts);

// Crisis language: "suicid", "self-harm", "end my life", "no point", "don't want to be
// here" (with ' or ’ or no apostrophe), plus "self harm", "kill myself", "want to die".
bool ContainsCrisisLanguage(std::string_view text);

// The high-risk escalation tier: emergency services, a 24/7 crisis line, a trusted person.
std::vector<std::string> CrisisEscalationGuidance();

// `text` cut to at most `max_bytes` on a UTF-8 boundary, with "..." when cut. For echoing
// inputs in assumptions without copying a 100 KB message.
std::string Excerpt(std::string_view text, size_t max_bytes = 60);

// Whitespace-separated tokens.
size_t CountWords(std::string_view text);
// Runs of text ending in '.', '!' or '?' (or the end); at least 1 for non-blank text.
size_t CountSentences(std::string_view text);

}  // namespace labgate::actions
