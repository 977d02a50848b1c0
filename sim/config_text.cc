#include "sim/config_text.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include <fmt/format.h>

namespace sim::config_text {

namespace {

char FoldAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool IsAsciiAlnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// Records where each document starts; builds nothing.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  std::vector<YAML::Mark> starts;
};

}  // namespace

YamlDocument ParseYamlDocument(const std::string& text) {
  YamlDocument doc;
  try {
    // First pass: syntax, and whether anything follows the first document.
    // Stopping after the second start keeps the parser from spinning on
    // a token it never consumes.
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts starts;
    if (parser.HandleNextDocument(starts) && parser.HandleNextDocument(starts)) {
      const YAML::Mark m = starts.starts.back();
      doc.error_mark = m;
      const bool separator = m.pos >= 0 && text.compare(static_cast<size_t>(m.pos), 3, "---") == 0;
      if (separator) {
        doc.error = "only one YAML document per file is allowed";
      } else {
        const char c = m.pos >= 0 && static_cast<size_t>(m.pos) < text.size() ? text[m.pos] : '?';
        doc.error = fmt::format("YAML syntax error: unexpected '{}'", Excerpt(std::string_view(&c, 1)));
      }
      return doc;
    }
    doc.node = YAML::Load(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp reports this as "bad file"; say what it is.
    doc.error_mark = e.mark;
    doc.error = "YAML syntax error: nested too deeply";
    return doc;
  } catch (const YAML::Exception& e) {
    doc.error_mark = e.mark;
    doc.error = "YAML syntax error: " + e.msg;
    return doc;
  }
  doc.ok = true;
  return doc;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = FoldAscii(c);
  return out;
}

int EditDistance(std::string_view a, std::string_view b, bool fold_case) {
  constexpr size_t kMaxLen = 256;  // keeps the quadratic cost bounded on junk input
  if (a.size() > kMaxLen || b.size() > kMaxLen) return 1 << 20;
  auto eq = [fold_case](char x, char y) { return fold_case ? FoldAscii(x) == FoldAscii(y) : x == y; };
  const size_t n = a.size(), m = b.size();
  // Three rolling rows: i-2, i-1, i.
  std::vector<int> prev2(m + 1), prev(m + 1), cur(m + 1);
  std::iota(prev.begin(), prev.end(), 0);
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= m; ++j) {
      const int cost = eq(a[i - 1], b[j - 1]) ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1])) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

int TypoBudget(std::string_view target) { return std::max<int>(1, static_cast<int>(target.size()) / 3); }

std::string Closest(std::string_view word, const std::vector<std::string>& candidates) {
  for (const std::string& c : candidates) {
    if (EditDistance(word, c, /*fold_case=*/true) == 0) return c;
  }
  int best = 1 << 30;
  std::string best_candidate;
  for (const std::string& c : candidates) {
    const int d = EditDistance(word, c, /*fold_case=*/true);
    if (d <= TypoBudget(c) && d < best) {
      best = d;
      best_candidate = c;
    }
  }
  return best_candidate;
}

bool IsPlainSafe(std::string_view text) {
  if (text.empty()) return false;
  // Words YAML would read as null rather than as text.
  if (text == "null" || text == "Null" || text == "NULL" || text == "~") return false;
  const char first = text[0];
  if (!(IsAsciiAlnum(first) || first == '.' || first == '_' || first == '/')) {
    // A sign is fine when a digit or letter follows ("-5", "+1e3").
    if (!((first == '-' || first == '+') && text.size() > 1 && (IsAsciiAlnum(text[1]) || text[1] == '.'))) {
      return false;
    }
  }
  // Only characters with no meaning to YAML in block or flow context.
  return std::all_of(text.begin(), text.end(), [](char c) {
    return IsAsciiAlnum(c) || c == '.' || c == '_' || c == '-' || c == '+' || c == '/' || c == '%';
  });
}

std::string QuoteYaml(std::string_view text) {
  if (IsPlainSafe(text)) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (u < 0x20 || u == 0x7f) {
          out += fmt::format("\\x{:02x}", u);
        } else {
          out += c;  // printable ASCII and UTF-8 bytes pass through
        }
    }
  }
  out += '"';
  return out;
}

std::string Excerpt(std::string_view text) {
  constexpr size_t kMax = 60;
  size_t cut = text.size();
  if (cut > kMax) {
    cut = kMax;
    // Do not split a UTF-8 sequence: back off over continuation bytes.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  }
  std::string out;
  for (size_t i = 0; i < cut; ++i) {
    const char c = text[i];
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (u < 0x20 || u == 0x7f) out += fmt::format("\\x{:02x}", u);
    else out += c;
  }
  if (cut < text.size()) out += "…";
  return out;
}

std::string Join(const std::vector<std::string>& parts, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i) out += sep;
    out += parts[i];
  }
  return out;
}

}  // namespace sim::config_text
