// Parsing and canonical formatting of configuration values.
//
// Numbers are lexed once into an exact decimal (digits x 10^exp). Integer
// quantities (counts, ns, bytes) are then scaled with 128-bit integer
// arithmetic, so "3.8ms" is exactly 3'800'000 ns and "1.3KiB" is rejected
// instead of silently rounded. Real quantities (bandwidth, ratio, double)
// are converted by a single correctly rounded decimal-to-binary step, which
// is what makes the Format* functions below round-trip exactly.
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <system_error>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/config.h"
#include "sim/config_text.h"

namespace sim {

namespace {

using u128 = unsigned __int128;
using config_text::Join;

// A decimal number as written: (neg ? -1 : 1) * digits * 10^exp10, with
// `digits` free of leading and trailing zeros ("" means zero).
struct Decimal {
  bool neg = false;
  std::string digits;
  int64_t exp10 = 0;
  bool zero() const { return digits.empty(); }
  // Number of digits before the decimal point of the value.
  int64_t IntegerDigits() const { return static_cast<int64_t>(digits.size()) + exp10; }
};

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct Lexed {
  Decimal num;
  std::string_view rest;  // what follows the number, leading blanks removed (the unit)
};

// Lexes [+-] digits [. digits] [e[+-]digits] at the start of `s`. Digits may
// be grouped with single underscores between digits ("1_000_000"). Returns
// nullopt when `s` does not start with a number.
std::optional<Lexed> LexNumber(std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  Lexed out;
  if (i < n && (s[i] == '+' || s[i] == '-')) {
    out.num.neg = s[i] == '-';
    ++i;
  }
  auto read_digits = [&](std::string& dst) {
    bool any = false;
    while (i < n) {
      if (IsDigit(s[i])) {
        dst.push_back(s[i++]);
        any = true;
      } else if (s[i] == '_' && any && i + 1 < n && IsDigit(s[i + 1])) {
        ++i;
      } else {
        break;
      }
    }
    return any;
  };
  std::string int_digits, frac_digits;
  const bool has_int = read_digits(int_digits);
  bool has_frac = false;
  if (i < n && s[i] == '.') {
    ++i;
    has_frac = read_digits(frac_digits);
  }
  if (!has_int && !has_frac) return std::nullopt;
  int64_t exp = 0;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    bool exp_neg = false;
    if (j < n && (s[j] == '+' || s[j] == '-')) exp_neg = s[j++] == '-';
    if (j < n && IsDigit(s[j])) {
      // Saturate: anything beyond 1e6 is over- or underflow for every kind.
      int64_t e = 0;
      while (j < n && IsDigit(s[j])) {
        if (e < 1000000) e = e * 10 + (s[j] - '0');
        ++j;
      }
      exp = exp_neg ? -e : e;
      i = j;
    }
  }
  std::string digits = int_digits + frac_digits;
  int64_t exp10 = exp - static_cast<int64_t>(frac_digits.size());
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    digits.clear();
    exp10 = 0;
  } else {
    const size_t last = digits.find_last_not_of('0');
    exp10 += static_cast<int64_t>(digits.size() - 1 - last);
    digits = digits.substr(first, last - first + 1);
  }
  out.num.digits = std::move(digits);
  out.num.exp10 = exp10;
  out.rest = Trim(s.substr(i));
  return out;
}

enum class Scaled { kOk, kTooLarge, kNotWhole, kTooPrecise };

// |d| * mult as an integer <= limit. Rounds half away from zero when
// `round`, otherwise requires the result to be exact.
Scaled ScaleToInteger(const Decimal& d, uint64_t mult, bool round, u128 limit, u128* out) {
  if (d.zero()) {
    *out = 0;
    return Scaled::kOk;
  }
  // Beyond 20 integer digits the value exceeds any 64-bit limit; beyond 20
  // significant digits the 128-bit arithmetic below could overflow.
  if (d.IntegerDigits() > 20) return Scaled::kTooLarge;
  if (d.digits.size() > 20) return Scaled::kTooPrecise;
  u128 v = 0;
  for (char c : d.digits) v = v * 10 + static_cast<unsigned>(c - '0');
  v *= mult;  // < 1e20 * 2^52, fits
  int64_t e = d.exp10;
  for (; e > 0; --e) {
    if (v > limit) return Scaled::kTooLarge;
    v *= 10;
  }
  if (e < 0) {
    if (-e > 38) {
      // v < 1e36, so the quotient rounds to zero.
      if (!round) return Scaled::kNotWhole;
      v = 0;
    } else {
      u128 div = 1;
      for (int64_t k = 0; k < -e; ++k) div *= 10;
      const u128 q = v / div, r = v % div;
      if (r != 0 && !round) return Scaled::kNotWhole;
      v = q + ((r != 0 && 2 * r >= div) ? 1 : 0);
    }
  }
  if (v > limit) return Scaled::kTooLarge;
  *out = v;
  return Scaled::kOk;
}

// The double nearest to d * 10^extra_exp10; nullopt on overflow.
std::optional<double> ToDouble(const Decimal& d, int64_t extra_exp10 = 0) {
  if (d.zero()) return d.neg ? -0.0 : 0.0;
  const std::string s = fmt::format("{}{}e{}", d.neg ? "-" : "", d.digits, d.exp10 + extra_exp10);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    if (d.IntegerDigits() + extra_exp10 > 0) return std::nullopt;
    return d.neg ? -0.0 : 0.0;  // underflow: smaller than any double
  }
  if (ec != std::errc() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Shortest decimal that reads back as exactly `v` (finite, non-zero).
Decimal ShortestDecimal(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  CHECK(res.ec == std::errc());
  auto lexed = LexNumber(std::string_view(buf, res.ptr - buf));
  CHECK(lexed.has_value() && lexed->rest.empty()) << std::string_view(buf, res.ptr - buf);
  return lexed->num;
}

// `d` * 10^-shift written without exponent when that stays short.
std::string RenderDecimal(const Decimal& d, int64_t shift) {
  if (d.zero()) return "0";
  const std::string sign = d.neg ? "-" : "";
  const int64_t e = d.exp10 - shift;
  const int64_t len = static_cast<int64_t>(d.digits.size());
  if (e >= 0) {
    if (e > 15) return fmt::format("{}{}e{}", sign, d.digits, e);
    return sign + d.digits + std::string(e, '0');
  }
  const int64_t point = len + e;  // digits before the decimal point
  if (point > 0) return sign + d.digits.substr(0, point) + "." + d.digits.substr(point);
  if (-point > 15) return fmt::format("{}{}e{}", sign, d.digits, e);
  return sign + "0." + std::string(-point, '0') + d.digits;
}

// ---------------------------------------------------------------------------
// Unit tables.

struct DurationUnit {
  std::string_view name;
  uint64_t ns;
};
constexpr DurationUnit kDurationUnits[] = {
    {"ns", 1},          {"us", 1000},       {"\xC2\xB5s", 1000} /* µs, micro sign */,
    {"\xCE\xBCs", 1000} /* μs, Greek mu */, {"ms", 1000000},    {"s", 1000000000},
    {"sec", 1000000000}, {"min", 60000000000}, {"h", 3600000000000},
};
constexpr std::string_view kDurationUnitList = "ns, us, ms, s, min, h";

struct SizeUnit {
  std::string_view name;
  uint64_t bytes;
};
constexpr SizeUnit kSizeUnits[] = {
    {"B", 1},
    {"KB", 1000},         {"kB", 1000},          {"MB", 1000000},          {"GB", 1000000000},
    {"TB", 1000000000000}, {"PB", 1000000000000000},
    {"KiB", 1ULL << 10},  {"MiB", 1ULL << 20},   {"GiB", 1ULL << 30},      {"TiB", 1ULL << 40},
    {"PiB", 1ULL << 50},
};
constexpr std::string_view kSizeUnitList = "B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)";

struct RateUnit {
  std::string_view name;
  int exp10;   // SI prefix
  int shift;   // binary prefix (power of two)
  bool bits;   // a bit rate: divide by 8
};
constexpr RateUnit kRateUnits[] = {
    {"B/s", 0, 0, false},   {"KB/s", 3, 0, false},  {"kB/s", 3, 0, false},  {"MB/s", 6, 0, false},
    {"GB/s", 9, 0, false},  {"TB/s", 12, 0, false}, {"KiB/s", 0, 10, false}, {"MiB/s", 0, 20, false},
    {"GiB/s", 0, 30, false}, {"TiB/s", 0, 40, false}, {"b/s", 0, 0, true},  {"Kb/s", 3, 0, true},
    {"kb/s", 3, 0, true},   {"Mb/s", 6, 0, true},   {"Gb/s", 9, 0, true},   {"Tb/s", 12, 0, true},
};
constexpr std::string_view kRateUnitList =
    "B/s, KB/s, MB/s, GB/s (powers of 1000), KiB/s, MiB/s, GiB/s (powers of 1024) or Kb/s, Mb/s, Gb/s (bits)";

// ---------------------------------------------------------------------------
// Per-kind parsers. Each returns the problem only; the caller adds where.

std::string ScaledProblem(Scaled s, std::string_view what) {
  switch (s) {
    case Scaled::kTooLarge: return fmt::format("too large for {}", what);
    case Scaled::kNotWhole: return fmt::format("not a whole number of {}", what);
    case Scaled::kTooPrecise: return "too many significant digits (at most 20)";
    case Scaled::kOk: break;
  }
  return "";
}

Result<bool> ParseBool(std::string_view text) {
  const std::string t = config_text::ToLower(Trim(text));
  if (t == "true" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "no" || t == "off") return false;
  return Status::InvalidInput("not a boolean; use true/false, yes/no or on/off");
}

Result<int64_t> ParseInt(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed || !lexed->rest.empty()) return Status::InvalidInput("not an integer");
  const u128 limit = lexed->num.neg ? (u128{1} << 63) : (u128{1} << 63) - 1;
  u128 v = 0;
  const Scaled s = ScaleToInteger(lexed->num, 1, /*round=*/false, limit, &v);
  if (s != Scaled::kOk) return Status::InvalidInput(ScaledProblem(s, "a 64-bit integer"));
  if (lexed->num.neg) return v == (u128{1} << 63) ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(v);
  return static_cast<int64_t>(v);
}

Result<uint64_t> ParseUint(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed || !lexed->rest.empty()) return Status::InvalidInput("not an integer");
  if (lexed->num.neg && !lexed->num.zero()) return Status::InvalidInput("must not be negative");
  u128 v = 0;
  const Scaled s = ScaleToInteger(lexed->num, 1, /*round=*/false, std::numeric_limits<uint64_t>::max(), &v);
  if (s != Scaled::kOk) return Status::InvalidInput(ScaledProblem(s, "a 64-bit unsigned integer"));
  return static_cast<uint64_t>(v);
}

Result<double> ParseDouble(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed) return Status::InvalidInput("not a number");
  if (!lexed->rest.empty()) {
    return Status::InvalidInput(fmt::format("unexpected '{}' after the number", config_text::Excerpt(lexed->rest)));
  }
  auto v = ToDouble(lexed->num);
  if (!v) return Status::InvalidInput("too large");
  return *v;
}

Result<SimTime> ParseDuration(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed) return Status::InvalidInput(fmt::format("not a duration; write a number and a unit ({})", kDurationUnitList));
  if (lexed->num.neg && !lexed->num.zero()) return Status::InvalidInput("a duration must not be negative");
  uint64_t mult = 0;
  if (lexed->rest.empty()) {
    if (!lexed->num.zero()) {
      return Status::InvalidInput(fmt::format("missing unit; write e.g. 75us (units: {})", kDurationUnitList));
    }
    mult = 1;
  } else {
    for (const auto& u : kDurationUnits) {
      if (lexed->rest == u.name) mult = u.ns;
    }
    if (mult == 0) {
      std::string hint;
      if (lexed->rest == "m") hint = " ('m' is ambiguous: use min or ms)";
      return Status::InvalidInput(fmt::format("bad unit '{}' for a duration{}; use {}",
                                              config_text::Excerpt(lexed->rest), hint, kDurationUnitList));
    }
  }
  u128 ns = 0;
  const Scaled s = ScaleToInteger(lexed->num, mult, /*round=*/true,
                                  static_cast<u128>(std::numeric_limits<int64_t>::max()), &ns);
  if (s == Scaled::kTooLarge) return Status::InvalidInput("too large for a duration (the limit is about 292 years)");
  if (s != Scaled::kOk) return Status::InvalidInput(ScaledProblem(s, "nanoseconds"));
  if (ns == 0 && !lexed->num.zero()) return Status::InvalidInput("below the 1ns resolution of simulated time");
  return SimTime::FromNs(static_cast<int64_t>(ns));
}

Result<uint64_t> ParseBytes(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed) return Status::InvalidInput(fmt::format("not a size; write a number and a unit ({})", kSizeUnitList));
  if (lexed->num.neg && !lexed->num.zero()) return Status::InvalidInput("a size must not be negative");
  const std::string_view unit = lexed->rest;
  uint64_t mult = unit.empty() ? 1 : 0;  // a bare number counts bytes
  for (const auto& u : kSizeUnits) {
    if (unit == u.name) mult = u.bytes;
  }
  if (mult == 0) {
    if (unit.size() == 1 && std::string_view("KkMmGgTtPp").find(unit[0]) != std::string_view::npos) {
      const char p = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
      return Status::InvalidInput(
          fmt::format("unit '{}' is ambiguous; write {}iB (powers of 1024) or {}B (powers of 1000)", unit, p, p));
    }
    if (unit.size() == 2 && unit[1] == 'b') {
      return Status::InvalidInput(fmt::format("'{}' counts bits; sizes are in bytes: use {}", unit, kSizeUnitList));
    }
    return Status::InvalidInput(
        fmt::format("bad unit '{}' for a size; use {}", config_text::Excerpt(unit), kSizeUnitList));
  }
  u128 v = 0;
  const Scaled s = ScaleToInteger(lexed->num, mult, /*round=*/false, std::numeric_limits<uint64_t>::max(), &v);
  if (s != Scaled::kOk) return Status::InvalidInput(ScaledProblem(s, "bytes"));
  return static_cast<uint64_t>(v);
}

Result<double> ParseBandwidth(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed) return Status::InvalidInput(fmt::format("not a bandwidth; write a number and a unit ({})", kRateUnitList));
  if (lexed->num.neg && !lexed->num.zero()) return Status::InvalidInput("a bandwidth must not be negative");
  const std::string_view unit = lexed->rest;
  if (unit.empty()) {
    if (lexed->num.zero()) return 0.0;
    return Status::InvalidInput(fmt::format("missing unit; write e.g. 333MB/s (units: {})", kRateUnitList));
  }
  const RateUnit* found = nullptr;
  for (const auto& u : kRateUnits) {
    if (unit == u.name) found = &u;
  }
  if (found == nullptr) {
    if (unit.size() >= 3 && unit.substr(unit.size() - 3) == "T/s") {
      return Status::InvalidInput(fmt::format(
          "'{}' is a transfer rate, not a bandwidth; give bytes per second (an 8-bit bus at 800MT/s moves "
          "800MB/s)", unit));
    }
    if (unit.size() >= 3 && unit.substr(unit.size() - 2) == "ps") {
      return Status::InvalidInput(
          fmt::format("write '{}/s' instead of '{}'", unit.substr(0, unit.size() - 2), unit));
    }
    for (const auto& u : kSizeUnits) {
      if (unit == u.name) {
        return Status::InvalidInput(fmt::format("'{}' is a size, not a rate; did you mean '{}/s'?", unit, unit));
      }
    }
    return Status::InvalidInput(
        fmt::format("bad unit '{}' for a bandwidth; use {}", config_text::Excerpt(unit), kRateUnitList));
  }
  auto v = ToDouble(lexed->num, found->exp10);
  if (!v) return Status::InvalidInput("too large");
  double r = std::ldexp(*v, found->shift);
  if (found->bits) r /= 8;
  if (!std::isfinite(r)) return Status::InvalidInput("too large");
  return r;
}

Result<double> ParseRatio(std::string_view text) {
  auto lexed = LexNumber(Trim(text));
  if (!lexed) return Status::InvalidInput("not a ratio; write a fraction (0.07) or a percentage (7%)");
  int64_t shift = 0;
  if (lexed->rest == "%") {
    shift = -2;
  } else if (!lexed->rest.empty()) {
    return Status::InvalidInput(fmt::format("unexpected '{}' after the number; write a fraction (0.07) or a "
                                            "percentage (7%)", config_text::Excerpt(lexed->rest)));
  }
  auto v = ToDouble(lexed->num, shift);
  if (!v) return Status::InvalidInput("too large");
  // A bare number is a fraction of 1: '7' is far more likely a forgotten
  // '%' than 700 %, so it is refused rather than read either way.
  if (shift == 0 && *v > 1) {
    const std::string num(Trim(text));
    return Status::InvalidInput(fmt::format(
        "a bare number is a fraction, at most 1: this would be {}%; write {}% for a percentage",
        RenderDecimal(ShortestDecimal(*v), -2), config_text::Excerpt(num)));
  }
  return *v;
}

Result<std::vector<std::string>> ParseStringList(std::string_view text) {
  const std::string_view t = Trim(text);
  if (t.empty()) return std::vector<std::string>{};
  if (t.front() != '[') return std::vector<std::string>{std::string(text)};  // one item
  config_text::YamlDocument doc = config_text::ParseYamlDocument(std::string(t));
  if (!doc.ok) return Status::InvalidInput(fmt::format("not a valid list: {}", doc.error));
  const YAML::Node& node = doc.node;
  if (!node.IsSequence()) return Status::InvalidInput("not a list; write [a, b, c]");
  std::vector<std::string> items;
  for (const YAML::Node& item : node) {
    if (!item.IsScalar()) {
      return Status::InvalidInput(fmt::format("list item {} is not a single value", items.size() + 1));
    }
    items.push_back(item.Scalar());
  }
  return items;
}

Result<std::string> ParseChoice(const ParamDecl& decl, std::string_view text) {
  for (const std::string& c : decl.choices) {
    if (text == c) return c;
  }
  std::string msg = fmt::format("not one of the choices {}", Join(decl.choices, ", "));
  const std::string near = config_text::Closest(text, decl.choices);
  if (!near.empty()) msg += fmt::format(" — did you mean '{}'?", near);
  return Status::InvalidInput(std::move(msg));
}

// A bound in the kind's base unit, written as a user would.
std::string FormatBound(ParamKind kind, double v) {
  switch (kind) {
    case ParamKind::kDuration:
      if (std::fabs(v) < 9e18) return internal::FormatDuration(SimTime::FromNs(std::llround(v)));
      break;
    case ParamKind::kBytes:
      if (v >= 0 && v < 1.8e19 && v == std::floor(v)) return internal::FormatBytes(Bytes{static_cast<uint64_t>(v)});
      break;
    case ParamKind::kBandwidth: return internal::FormatBandwidth(Bandwidth{v});
    case ParamKind::kRatio: return internal::FormatRatio(Ratio{v});
    default: break;
  }
  return internal::FormatDouble(v);
}

// Checks `v` (base unit) against the declared bounds; ratios default to [0, 1].
Status CheckRange(const ParamDecl& decl, long double v) {
  std::optional<double> lo = decl.min, hi = decl.max;
  if (decl.kind == ParamKind::kRatio && !lo && !hi) {
    lo = 0.0;
    hi = 1.0;
  }
  const bool below = lo && v < static_cast<long double>(*lo);
  const bool above = hi && v > static_cast<long double>(*hi);
  if (!below && !above) return Status::Ok();
  if (lo && hi) {
    return Status::InvalidInput(fmt::format("out of range; must be between {} and {}", FormatBound(decl.kind, *lo),
                                            FormatBound(decl.kind, *hi)));
  }
  if (lo) return Status::InvalidInput(fmt::format("out of range; must be at least {}", FormatBound(decl.kind, *lo)));
  return Status::InvalidInput(fmt::format("out of range; must be at most {}", FormatBound(decl.kind, *hi)));
}

}  // namespace

// ---------------------------------------------------------------------------

std::string_view ParamKindName(ParamKind k) {
  switch (k) {
    case ParamKind::kBool: return "bool";
    case ParamKind::kInt: return "int";
    case ParamKind::kUint: return "uint";
    case ParamKind::kDouble: return "double";
    case ParamKind::kDuration: return "duration";
    case ParamKind::kBytes: return "bytes";
    case ParamKind::kBandwidth: return "bandwidth";
    case ParamKind::kRatio: return "ratio";
    case ParamKind::kString: return "string";
    case ParamKind::kChoice: return "choice";
    case ParamKind::kStringList: return "list";
  }
  return "?";
}

std::string ParamDecl::unit() const {
  switch (kind) {
    case ParamKind::kDuration: return "ns";
    case ParamKind::kBytes: return "bytes";
    case ParamKind::kBandwidth: return "bytes/s";
    case ParamKind::kRatio: return "fraction";
    default: return "";
  }
}

Result<ParamValue> ParseParamValue(const ParamDecl& decl, std::string_view text) {
  ParamValue v;
  v.kind = decl.kind;
  long double base = 0;  // the value in the kind's base unit, for the range check
  switch (decl.kind) {
    case ParamKind::kBool: {
      FS_ASSIGN_OR_RETURN(v.b, ParseBool(text));
      return v;
    }
    case ParamKind::kInt: {
      FS_ASSIGN_OR_RETURN(v.i, ParseInt(text));
      base = static_cast<long double>(v.i);
      break;
    }
    case ParamKind::kUint: {
      FS_ASSIGN_OR_RETURN(v.u, ParseUint(text));
      base = static_cast<long double>(v.u);
      break;
    }
    case ParamKind::kDouble: {
      FS_ASSIGN_OR_RETURN(v.d, ParseDouble(text));
      base = v.d;
      break;
    }
    case ParamKind::kDuration: {
      FS_ASSIGN_OR_RETURN(v.t, ParseDuration(text));
      base = static_cast<long double>(v.t.ns());
      break;
    }
    case ParamKind::kBytes: {
      FS_ASSIGN_OR_RETURN(v.u, ParseBytes(text));
      base = static_cast<long double>(v.u);
      break;
    }
    case ParamKind::kBandwidth: {
      FS_ASSIGN_OR_RETURN(v.d, ParseBandwidth(text));
      base = v.d;
      break;
    }
    case ParamKind::kRatio: {
      FS_ASSIGN_OR_RETURN(v.d, ParseRatio(text));
      base = v.d;
      break;
    }
    case ParamKind::kString:
      v.s = std::string(text);
      return v;
    case ParamKind::kChoice: {
      FS_ASSIGN_OR_RETURN(v.s, ParseChoice(decl, text));
      return v;
    }
    case ParamKind::kStringList: {
      FS_ASSIGN_OR_RETURN(v.list, ParseStringList(text));
      return v;
    }
  }
  FS_RETURN_IF_ERROR(CheckRange(decl, base));
  return v;
}

namespace internal {

std::string FormatBool(bool v) { return v ? "true" : "false"; }

std::string FormatDuration(SimTime v) {
  const int64_t ns = v.ns();
  if (ns == 0) return "0ns";
  const std::string sign = ns < 0 ? "-" : "";
  const uint64_t a = ns < 0 ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  constexpr uint64_t kMin = 60000000000, kHour = 60 * kMin;
  if (a % kHour == 0) return fmt::format("{}{}h", sign, a / kHour);
  if (a % kMin == 0) return fmt::format("{}{}min", sign, a / kMin);
  // Largest of s/ms/us/ns that keeps the value >= 1, written as an exact decimal.
  struct Unit {
    uint64_t ns;
    int digits;
    const char* name;
  };
  constexpr Unit kUnits[] = {{1000000000, 9, "s"}, {1000000, 6, "ms"}, {1000, 3, "us"}, {1, 0, "ns"}};
  for (const Unit& u : kUnits) {
    if (a < u.ns) continue;
    std::string frac = u.digits ? fmt::format("{:0{}}", a % u.ns, u.digits) : "";
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    return fmt::format("{}{}{}{}{}", sign, a / u.ns, frac.empty() ? "" : ".", frac, u.name);
  }
  return "0ns";  // unreachable: a >= 1
}

std::string FormatBytes(Bytes v) {
  const uint64_t b = v.value;
  if (b == 0) return "0B";
  // The exact form with the smallest number in front; binary wins ties.
  static constexpr const char* kBinary[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  static constexpr const char* kSi[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  uint64_t bin_n = b, si_n = b;
  int bin_k = 0, si_k = 0;
  for (int k = 5; k >= 1; --k) {
    if (b % (uint64_t{1} << (10 * k)) == 0) {
      bin_n = b >> (10 * k);
      bin_k = k;
      break;
    }
  }
  uint64_t p = 1;
  for (int k = 1; k <= 5; ++k) {
    p *= 1000;
    if (b % p != 0) break;
    si_n = b / p;
    si_k = k;
  }
  if (si_n < bin_n) return fmt::format("{}{}", si_n, kSi[si_k]);
  return fmt::format("{}{}", bin_n, kBinary[bin_k]);
}

std::string FormatBandwidth(Bandwidth v) {
  const double x = v.bytes_per_sec;
  if (x == 0) return "0B/s";
  if (!std::isfinite(x)) return fmt::format("{}B/s", x);
  // SI form: the largest prefix that keeps the number >= 1.
  const Decimal d = ShortestDecimal(x);
  const int64_t lead = d.IntegerDigits() - 1;  // exponent of the leading digit
  static constexpr struct {
    int exp10;
    const char* name;
  } kSi[] = {{12, "TB/s"}, {9, "GB/s"}, {6, "MB/s"}, {3, "KB/s"}, {0, "B/s"}};
  std::string best;
  for (const auto& u : kSi) {
    if (lead >= u.exp10 || u.exp10 == 0) {
      best = RenderDecimal(d, u.exp10) + u.name;
      break;
    }
  }
  // A binary prefix when it is shorter ("1GiB/s" rather than "1.073741824GB/s").
  static constexpr struct {
    int shift;
    const char* name;
  } kBinary[] = {{40, "TiB/s"}, {30, "GiB/s"}, {20, "MiB/s"}, {10, "KiB/s"}};
  for (const auto& u : kBinary) {
    const double y = std::ldexp(x, -u.shift);
    if (std::fabs(y) < 1) continue;
    std::string cand = RenderDecimal(ShortestDecimal(y), 0) + u.name;
    if (cand.size() < best.size()) best = std::move(cand);
    break;
  }
  return best;
}

std::string FormatRatio(Ratio v) {
  if (v.value == 0) return "0%";
  if (!std::isfinite(v.value)) return FormatDouble(v.value);
  return RenderDecimal(ShortestDecimal(v.value), -2) + "%";
}

std::string FormatDouble(double v) {
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  CHECK(res.ec == std::errc());
  return std::string(buf, res.ptr);
}

std::string FormatStringList(const std::vector<std::string>& v) {
  std::vector<std::string> items;
  items.reserve(v.size());
  for (const std::string& s : v) items.push_back(config_text::QuoteYaml(s));
  return "[" + Join(items, ", ") + "]";
}

}  // namespace internal

}  // namespace sim
