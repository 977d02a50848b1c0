#include "host/trace/field_parse.h"

#include <algorithm>

#include <fmt/format.h>

namespace host {
namespace {

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsBlank(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsBlank(s.back())) s.remove_suffix(1);
  return s;
}

std::string Quote(std::string_view text) { return Excerpt(text, 40); }

void NumberError(std::string_view text, std::string_view what, std::string_view kind, std::string* error) {
  if (text.empty()) {
    *error = fmt::format("{}: empty field", what);
  } else if (text.front() == '-') {
    *error = fmt::format("{}: negative value '{}'", what, Quote(text));
  } else {
    *error = fmt::format("{}: not {}: '{}'", what, kind, Quote(text));
  }
}

}  // namespace

std::string Excerpt(std::string_view text, size_t max) {
  std::string out;
  out.reserve(std::min(text.size(), max) + 3);
  for (size_t i = 0; i < text.size() && i < max; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

size_t SplitAt(std::string_view line, char sep, std::string_view* out, size_t max) {
  size_t n = 0;
  size_t start = 0;
  for (;;) {
    const size_t p = line.find(sep, start);
    if (n == max) return max + 1;
    if (p == std::string_view::npos) {
      out[n++] = Trim(line.substr(start));
      return n;
    }
    out[n++] = Trim(line.substr(start, p - start));
    start = p + 1;
  }
}

size_t SplitBlanks(std::string_view line, std::string_view* out, size_t max) {
  size_t n = 0;
  size_t i = 0;
  const size_t size = line.size();
  for (;;) {
    while (i < size && IsBlank(line[i])) ++i;
    if (i == size) return n;
    if (n == max) return max + 1;
    const size_t start = i;
    while (i < size && !IsBlank(line[i])) ++i;
    out[n++] = line.substr(start, i - start);
  }
}

bool EqualsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    char y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

bool ParseU64(std::string_view text, std::string_view what, uint64_t* value, std::string* error) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  if (ec == std::errc() && ptr == end) return true;
  if (ec == std::errc::result_out_of_range) {
    *error = fmt::format("{}: out of range: '{}'", what, Quote(text));
  } else {
    NumberError(text, what, "a non-negative integer", error);
  }
  return false;
}

bool ParseU32(std::string_view text, std::string_view what, uint32_t* value, std::string* error) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  if (ec == std::errc() && ptr == end) return true;
  if (ec == std::errc::result_out_of_range) {
    *error = fmt::format("{}: out of range (max {}): '{}'", what, UINT32_MAX, Quote(text));
  } else {
    NumberError(text, what, "a non-negative integer", error);
  }
  return false;
}

bool ParseHexU64(std::string_view text, std::string_view what, uint64_t* value, std::string* error) {
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  const char* end = digits.data() + digits.size();
  const auto [ptr, ec] = std::from_chars(digits.data(), end, *value, 16);
  if (ec == std::errc() && ptr == end) return true;
  if (ec == std::errc::result_out_of_range) {
    *error = fmt::format("{}: out of range: '{}'", what, Quote(text));
  } else {
    NumberError(text, what, "a hexadecimal number", error);
  }
  return false;
}

bool ParseDecimalTime(std::string_view text, std::string_view what, int64_t unit_ns, WideNs* ns,
                      std::string* error) {
  // Mantissa "W.F" and an optional exponent "e[+-]X" (as printf's %g and
  // Python's str(float) write small and large values: 7.3902e-05, 1e+16).
  std::string_view mantissa = text;
  std::string_view exponent;
  bool has_exponent = false;
  if (const size_t e = text.find_first_of("eE"); e != std::string_view::npos) {
    mantissa = text.substr(0, e);
    exponent = text.substr(e + 1);
    has_exponent = true;
  }
  const size_t dot = mantissa.find('.');
  const std::string_view whole = mantissa.substr(0, dot);
  const std::string_view frac = dot == std::string_view::npos ? std::string_view() : mantissa.substr(dot + 1);
  auto all_digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  // "5." and ".5" are accepted; "." and "" are not.
  bool ok = all_digits(whole) && all_digits(frac) && (!whole.empty() || !frac.empty());
  // The exponent: optional sign, then digits; beyond +-kMaxExponent the
  // value is out of range (or below 1 ns: zero).
  constexpr int kMaxExponent = 400;
  int x = 0;
  if (ok && has_exponent) {
    std::string_view digits = exponent;
    const bool negative = !digits.empty() && digits.front() == '-';
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
    ok = !digits.empty() && all_digits(digits);
    for (size_t i = 0; ok && i < digits.size(); ++i) {
      x = std::min(x * 10 + (digits[i] - '0'), kMaxExponent + 1);
    }
    if (negative) x = -x;
  }
  if (!ok) {
    NumberError(text, what, "a non-negative decimal number", error);
    return false;
  }
  // The digits of W and F with the decimal point moved x places: digit i of
  // W+F, whole digits are those before `point` (zeros past the end), the
  // fraction those from `point` on (zeros before the start).
  const int n = static_cast<int>(whole.size() + frac.size());
  auto digit = [&](int i) -> uint64_t {
    if (i < 0 || i >= n) return 0;
    const size_t u = static_cast<size_t>(i);
    return static_cast<uint64_t>((u < whole.size() ? whole[u] : frac[u - whole.size()]) - '0');
  };
  const int point = static_cast<int>(whole.size()) + x;
  uint64_t w = 0;
  for (int i = 0; i < point; ++i) {
    if (__builtin_mul_overflow(w, uint64_t{10}, &w) || __builtin_add_overflow(w, digit(i), &w)) {
      *error = fmt::format("{}: out of range: '{}'", what, Quote(text));
      return false;
    }
  }
  // Only the fraction digits that can matter at 1 ns resolution are kept (a
  // unit is at most ~1e10 ns here), so the fraction fits in 64 bits.
  constexpr int kMaxFracDigits = 18;
  uint64_t f = 0;
  uint64_t scale = 1;
  for (int k = 0; k < kMaxFracDigits && point + k < n; ++k) {
    f = f * 10 + digit(point + k);
    scale *= 10;
  }
  *ns = static_cast<WideNs>(w) * unit_ns + static_cast<WideNs>(f) * unit_ns / static_cast<WideNs>(scale);
  return true;
}

bool ParseReadWrite(std::string_view text, std::string_view what, ssd::BlockOp* op, std::string* error) {
  if (EqualsNoCase(text, "r") || EqualsNoCase(text, "read")) {
    *op = ssd::BlockOp::kRead;
    return true;
  }
  if (EqualsNoCase(text, "w") || EqualsNoCase(text, "write")) {
    *op = ssd::BlockOp::kWrite;
    return true;
  }
  *error = fmt::format("{}: unknown operation '{}' (expected R/Read or W/Write)", what, Quote(text));
  return false;
}

bool ScaleToBytes(uint64_t count, uint64_t unit_bytes, std::string_view what, uint64_t* bytes,
                  std::string* error) {
  if (__builtin_mul_overflow(count, unit_bytes, bytes)) {
    *error = fmt::format("{}: {} x {} bytes overflows 64 bits", what, count, unit_bytes);
    return false;
  }
  return true;
}

void FieldCountError(size_t got, size_t max, std::string_view expected, std::string* error) {
  if (got > max) {
    *error = fmt::format("too many fields, expected {}", expected);
  } else {
    *error = fmt::format("{} field{}, expected {}", got, got == 1 ? "" : "s", expected);
  }
}

}  // namespace host
