// Text helpers shared by the configuration parser, loader and dumper.
//
// Internal to sim/config*.cc; not part of the configuration API.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

namespace sim::config_text {

// Parses `text` as at most one YAML document ("" or comments only: a null
// node). A second document, or text the parser cannot consume, is an error
// at its mark. This replaces YAML::Load/LoadAll, which in yaml-cpp 0.7
// silently drop text after a stray ',' (Load) or loop forever on it
// (LoadAll).
struct YamlDocument {
  YAML::Node node;
  bool ok = false;
  YAML::Mark error_mark;  // where the problem is (0-based; may be null)
  std::string error;      // the problem, without location
};
YamlDocument ParseYamlDocument(const std::string& text);

// ASCII lower-case copy of `s` (other bytes unchanged).
std::string ToLower(std::string_view s);

// Optimal-string-alignment edit distance (insert, delete, substitute,
// swap of adjacent characters), comparing ASCII letters case-insensitively
// when `fold_case`. Inputs longer than 256 bytes compare as "very far".
int EditDistance(std::string_view a, std::string_view b, bool fold_case);

// The largest number of edits under which `word` still counts as a likely
// misspelling of a `target` of this length.
int TypoBudget(std::string_view target);

// The candidate closest to `word` within TypoBudget edits (case differences
// first), or "" when none is close. Ties go to the earlier candidate.
std::string Closest(std::string_view word, const std::vector<std::string>& candidates);

// True when `text` reads back verbatim as a YAML plain scalar both as a
// block mapping value and inside a flow sequence.
bool IsPlainSafe(std::string_view text);

// `text` as a YAML scalar: plain when IsPlainSafe, otherwise double-quoted
// with escapes.
std::string QuoteYaml(std::string_view text);

// `text` made printable for an error message: control characters escaped,
// shortened to about 60 bytes (without splitting a UTF-8 sequence).
std::string Excerpt(std::string_view text);

std::string Join(const std::vector<std::string>& parts, std::string_view sep);

}  // namespace sim::config_text
