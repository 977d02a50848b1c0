#include "host/fsworkload/aging_trace.h"

#include <charconv>
#include <unordered_map>

#include <fmt/format.h>

#include "host/trace/line_source.h"

namespace host {

namespace {

struct OpSpec {
  std::string_view name;
  AgingOp op;
  size_t fields;  // after the name
};
constexpr OpSpec kOps[] = {
    {"mkdir", AgingOp::kMkdir, 1},   {"rmdir", AgingOp::kRmdir, 1},   {"write", AgingOp::kWrite, 2},
    {"append", AgingOp::kAppend, 2}, {"unlink", AgingOp::kUnlink, 1}, {"rename", AgingOp::kRename, 2},
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Decimal digits fitting in 63 bits.
bool ParseCount(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > 19) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size() && *out <= static_cast<uint64_t>(INT64_MAX);
}

std::string Clip(std::string_view line) {
  std::string s(line.substr(0, 200));
  for (char& c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return "'" + s + (line.size() > 200 ? "...'" : "'");
}

class Parser {
 public:
  Parser(std::string_view source, const AgingParseOptions& opt) : opt_(opt) { out_.source = std::string(source); }

  sim::Result<AgingTrace> Run(LineSource& src) {
    bool header = false;
    for (;;) {
      std::string_view line;
      FS_ASSIGN_OR_RETURN(const LineSource::Outcome outcome, src.Next(&line));
      if (outcome == LineSource::Outcome::kEof) break;
      const uint64_t line_no = src.line_no();
      if (outcome == LineSource::Outcome::kTooLong) {
        return sim::Status::InvalidInput(fmt::format("{}:{}: line longer than {} bytes", out_.source, line_no,
                                                     opt_.max_line_bytes));
      }
      if (line_no > opt_.max_lines || line_no > UINT32_MAX) {
        return sim::Status::InvalidInput(
            fmt::format("{}: more than {} lines; at most {} are supported", out_.source, opt_.max_lines,
                        opt_.max_lines));
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!header) {
        if (line != kAgingTraceMagic) {
          return sim::Status::InvalidInput(fmt::format("{}:{}: not a git-aging trace (the first line must be '{}'): {}",
                                                       out_.source, line_no, kAgingTraceMagic, Clip(line)));
        }
        header = true;
        continue;
      }
      if (line.empty() || line.front() == '#') continue;
      std::string problem = Line(line, static_cast<uint32_t>(line_no));
      if (!problem.empty()) {
        return sim::Status::InvalidInput(fmt::format("{}:{}: {}: {}", out_.source, line_no, problem, Clip(line)));
      }
    }
    out_.lines = src.line_no();
    if (!header) {
      return sim::Status::InvalidInput(
          fmt::format("{}:1: not a git-aging trace (empty; the first line must be '{}')", out_.source,
                      kAgingTraceMagic));
    }
    if (out_.pulls.empty()) {
      return sim::Status::InvalidInput(fmt::format("{}: no pull in the trace", out_.source));
    }
    out_.pulls.back().end = out_.records.size();
    return std::move(out_);
  }

 private:
  std::string Line(std::string_view line, uint32_t line_no) {
    std::string_view f[4];
    size_t n = 0;
    size_t i = 0;
    while (true) {
      const size_t j = line.find(' ', i);
      const std::string_view tok = line.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
      if (tok.empty()) return "empty field (fields are separated by one space)";
      if (n == 4) return "too many fields";
      f[n++] = tok;
      if (j == std::string_view::npos) break;
      i = j + 1;
    }
    for (size_t k = 0; k < n; ++k) {
      for (char c : f[k]) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return "control character in a field";
      }
    }
    if (f[0] == "pull") {
      if (n != 3) return fmt::format("pull takes 2 fields (<i> <commit>), got {}", n - 1);
      uint64_t idx = 0;
      if (!ParseCount(f[1], &idx)) return fmt::format("bad pull number '{}'", f[1]);
      if (idx != out_.pulls.size()) return fmt::format("pull {} out of order: expected pull {}", idx, out_.pulls.size());
      if (!out_.pulls.empty()) out_.pulls.back().end = out_.records.size();
      AgingPull p;
      p.commit = std::string(f[2]);
      p.line = line_no;
      p.first = p.end = out_.records.size();
      out_.pulls.push_back(std::move(p));
      return "";
    }
    const OpSpec* spec = nullptr;
    for (const OpSpec& s : kOps) {
      if (s.name == f[0]) spec = &s;
    }
    if (spec == nullptr) {
      return fmt::format("unknown operation '{}' (pull, mkdir, rmdir, write, append, unlink, rename)", f[0]);
    }
    if (n - 1 != spec->fields) {
      return fmt::format("{} takes {} field{}, got {}", spec->name, spec->fields, spec->fields == 1 ? "" : "s", n - 1);
    }
    if (out_.pulls.empty()) return fmt::format("{} before the first pull", spec->name);
    AgingRecord r;
    r.op = spec->op;
    r.line = line_no;
    std::string problem = Path(f[1], &r.path);
    if (!problem.empty()) return problem;
    if (r.op == AgingOp::kWrite || r.op == AgingOp::kAppend) {
      if (!ParseCount(f[2], &r.bytes)) return fmt::format("bad byte count '{}'", f[2]);
    } else if (r.op == AgingOp::kRename) {
      problem = Path(f[2], &r.path2);
      if (!problem.empty()) return problem;
    }
    out_.records.push_back(r);
    ++out_.counts[static_cast<size_t>(r.op)];
    return "";
  }

  std::string Path(std::string_view field, uint32_t* index) {
    std::string p;
    std::string problem = DecodeAgingPath(field, &p);
    if (!problem.empty()) return problem;
    auto it = index_.find(p);
    if (it == index_.end()) {
      if (out_.paths.size() >= UINT32_MAX) return "too many distinct paths";
      it = index_.emplace(p, static_cast<uint32_t>(out_.paths.size())).first;
      out_.paths.push_back(std::move(p));
    }
    *index = it->second;
    return "";
  }

  const AgingParseOptions& opt_;
  AgingTrace out_;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> index_;
};

}  // namespace

std::string_view AgingOpName(AgingOp op) {
  for (const OpSpec& s : kOps) {
    if (s.op == op) return s.name;
  }
  return "?";
}

std::string DecodeAgingPath(std::string_view field, std::string* out) {
  out->clear();
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '%') {
      out->push_back(field[i]);
      continue;
    }
    if (i + 2 >= field.size()) return fmt::format("bad escape in path '{}' (%XX with two hex digits)", field);
    const int hi = HexDigit(field[i + 1]), lo = HexDigit(field[i + 2]);
    if (hi < 0 || lo < 0) return fmt::format("bad escape in path '{}' (%XX with two hex digits)", field);
    const char c = static_cast<char>(hi * 16 + lo);
    if (c == '\0') return fmt::format("NUL in path '{}'", field);
    out->push_back(c);
    i += 2;
  }
  if (out->empty()) return "empty path";
  size_t start = 0;
  while (start <= out->size()) {
    size_t end = out->find('/', start);
    if (end == std::string::npos) end = out->size();
    const std::string_view comp(out->data() + start, end - start);
    if (comp.empty() || comp == "." || comp == "..") {
      return fmt::format("bad path '{}' (relative to the mount, no empty, '.' or '..' component)", field);
    }
    start = end + 1;
  }
  return "";
}

sim::Result<AgingTrace> ParseAgingTrace(std::string_view text, std::string_view source,
                                        const AgingParseOptions& options) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<LineSource> src,
                      LineSource::FromMemory(std::string(source), text, options.max_line_bytes));
  Parser p(source, options);
  return p.Run(*src);
}

sim::Result<AgingTrace> ReadAgingTraceFile(const std::string& path, const AgingParseOptions& options) {
  sim::Result<std::unique_ptr<LineSource>> src = LineSource::Open(path, options.max_line_bytes);
  if (!src.ok()) {
    std::string_view reason = src.status().message();
    if (const size_t colon = reason.rfind(": "); colon != std::string_view::npos) reason.remove_prefix(colon + 2);
    return sim::Status::InvalidInput(fmt::format("{}: cannot read the trace file: {}", path, reason));
  }
  Parser p(path, options);
  return p.Run(**src);
}

}  // namespace host
