#include "host/sqlite/ycsb_properties.h"

#include <fstream>
#include <map>

#include <fmt/format.h>

namespace host::sqlite {

namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Resolves the escapes of one key or value. Returns false on a malformed
// "\u" escape.
bool Unescape(std::string_view in, std::string* out) {
  out->clear();
  uint32_t pending_high = 0;  // a high surrogate waiting for its low half
  auto flush_high = [&] {
    if (pending_high) AppendUtf8(pending_high, out);
    pending_high = 0;
  };
  for (size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c != '\\') {
      flush_high();
      out->push_back(c);
      continue;
    }
    if (++i == in.size()) break;  // a lone trailing backslash stands for nothing
    c = in[i];
    if (c == 'u') {
      if (in.size() - i - 1 < 4) return false;
      uint32_t unit = 0;
      for (int k = 1; k <= 4; ++k) {
        const int d = HexDigit(in[i + static_cast<size_t>(k)]);
        if (d < 0) return false;
        unit = unit * 16 + static_cast<uint32_t>(d);
      }
      i += 4;
      if (unit >= 0xDC00 && unit <= 0xDFFF && pending_high) {
        AppendUtf8(0x10000 + ((pending_high - 0xD800) << 10) + (unit - 0xDC00), out);
        pending_high = 0;
      } else {
        flush_high();
        if (unit >= 0xD800 && unit <= 0xDBFF) {
          pending_high = unit;
        } else {
          AppendUtf8(unit, out);
        }
      }
      continue;
    }
    flush_high();
    switch (c) {
      case 't': out->push_back('\t'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 'f': out->push_back('\f'); break;
      default: out->push_back(c); break;
    }
  }
  flush_high();
  return true;
}

// The natural lines of `text` with their 1-based numbers.
struct NaturalLines {
  explicit NaturalLines(std::string_view t) : text(t) {}
  // Next line without its terminator; false at the end.
  bool Next(std::string_view* line, int* number) {
    if (pos >= text.size()) return false;
    size_t end = pos;
    while (end < text.size() && text[end] != '\n' && text[end] != '\r') ++end;
    *line = text.substr(pos, end - pos);
    *number = ++count;
    pos = end;
    if (pos < text.size()) {
      if (text[pos] == '\r' && pos + 1 < text.size() && text[pos + 1] == '\n') ++pos;
      ++pos;
    }
    return true;
  }
  std::string_view text;
  size_t pos = 0;
  int count = 0;
};

size_t TrailingBackslashes(std::string_view s) {
  size_t n = 0;
  while (n < s.size() && s[s.size() - 1 - n] == '\\') ++n;
  return n;
}

std::string_view SkipBlanks(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsBlank(s[i])) ++i;
  return s.substr(i);
}

}  // namespace

sim::Result<std::vector<JavaProperty>> ParseJavaProperties(std::string_view text, std::string_view source) {
  std::vector<JavaProperty> out;
  std::map<std::string, size_t, std::less<>> index;
  NaturalLines lines(text);
  std::string_view natural;
  int number = 0;
  while (lines.Next(&natural, &number)) {
    std::string_view first = SkipBlanks(natural);
    if (first.empty() || first[0] == '#' || first[0] == '!') continue;
    const int start_line = number;
    // Join continuation lines: an odd run of trailing backslashes.
    std::string logical(first);
    while (TrailingBackslashes(logical) % 2 == 1) {
      logical.pop_back();
      if (!lines.Next(&natural, &number)) break;
      logical.append(SkipBlanks(natural));
    }
    // The key ends at the first unescaped separator or blank.
    size_t key_end = 0;
    bool escaped = false;
    bool has_sep = false;
    size_t value_start = logical.size();
    for (; key_end < logical.size(); ++key_end) {
      const char c = logical[key_end];
      if (!escaped && (c == '=' || c == ':')) {
        has_sep = true;
        value_start = key_end + 1;
        break;
      }
      if (!escaped && IsBlank(c)) {
        value_start = key_end + 1;
        break;
      }
      escaped = c == '\\' ? !escaped : false;
    }
    // Blanks, then at most one separator, then blanks.
    while (value_start < logical.size()) {
      const char c = logical[value_start];
      if (!IsBlank(c)) {
        if (has_sep || (c != '=' && c != ':')) break;
        has_sep = true;
      }
      ++value_start;
    }
    JavaProperty p;
    p.line = start_line;
    if (!Unescape(std::string_view(logical).substr(0, key_end), &p.key) ||
        !Unescape(std::string_view(logical).substr(std::min(value_start, logical.size())), &p.value)) {
      return sim::Status::InvalidInput(
          fmt::format("{}:{}: malformed \\uXXXX escape (four hex digits must follow \\u)", source, start_line));
    }
    auto it = index.find(p.key);
    if (it == index.end()) {
      index.emplace(p.key, out.size());
      out.push_back(std::move(p));
    } else {
      out[it->second].value = std::move(p.value);
      out[it->second].line = p.line;
    }
  }
  return out;
}

sim::Result<std::vector<JavaProperty>> ReadJavaPropertiesFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sim::Status::InvalidInput(fmt::format("{}: cannot read the property file", path));
  std::string text(kMaxPropertiesBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (in.bad()) return sim::Status::InvalidInput(fmt::format("{}: cannot read the property file", path));
  if (text.size() > kMaxPropertiesBytes) {
    return sim::Status::InvalidInput(
        fmt::format("{}: the property file is larger than {} bytes", path, kMaxPropertiesBytes));
  }
  return ParseJavaProperties(text, path);
}

}  // namespace host::sqlite
