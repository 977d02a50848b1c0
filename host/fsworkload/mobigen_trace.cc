#include "host/fsworkload/mobigen_trace.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <unordered_map>

#include <fmt/format.h>

#include "fs/file_system.h"
#include "host/trace/line_source.h"

namespace host {

namespace {

struct CallSpec {
  std::string_view name;
  MobigenCall call;
  int args;
  const char* usage;
};
constexpr CallSpec kCalls[] = {
    {"open", MobigenCall::kOpen, 3, "open <path> <flags> <fd>"},
    {"close", MobigenCall::kClose, 2, "close <fd> <ret>"},
    {"read", MobigenCall::kRead, 2, "read <fd> <bytes>"},
    {"write", MobigenCall::kWrite, 2, "write <fd> <bytes>"},
    {"pread", MobigenCall::kPread, 3, "pread <fd> <offset> <bytes>"},
    {"pwrite", MobigenCall::kPwrite, 3, "pwrite <fd> <offset> <bytes>"},
    {"fsync", MobigenCall::kFsync, 2, "fsync <fd> <ret>"},
    {"fdatasync", MobigenCall::kFdatasync, 2, "fdatasync <fd> <ret>"},
    {"fstat64", MobigenCall::kFstat, 2, "fstat64 <fd> <ret>"},
    {"stat64", MobigenCall::kStat, 2, "stat64 \"<path>\" <ret>"},
    {"lstat64", MobigenCall::kLstat, 2, "lstat64 \"<path>\" <ret>"},
    {"access", MobigenCall::kAccess, 2, "access \"<path>\" <ret>"},
    {"unlink", MobigenCall::kUnlink, 2, "unlink \"<path>\" <ret>"},
};

constexpr int32_t kMaxFd = 1 << 20;

struct FlagName {
  std::string_view name;
  uint32_t bits;
};
// Flags with no effect on the replay (O_LARGEFILE and friends) map to 0.
constexpr FlagName kFlags[] = {
    {"O_RDONLY", fs::kRdOnly},   {"O_WRONLY", fs::kWrOnly},     {"O_RDWR", fs::kRdWr},
    {"O_CREAT", fs::kCreat},     {"O_TRUNC", fs::kTrunc},       {"O_APPEND", fs::kAppend},
    {"O_EXCL", fs::kExcl},       {"O_DIRECTORY", fs::kDirectory}, {"O_SYNC", fs::kSync},
    {"O_DSYNC", fs::kSync},      {"O_FSYNC", fs::kSync},        {"O_DIRECT", fs::kDirect},
    {"O_LARGEFILE", 0},          {"O_NONBLOCK", 0},             {"O_NDELAY", 0},
    {"O_CLOEXEC", 0},            {"O_NOCTTY", 0},               {"O_NOFOLLOW", 0},
    {"O_NOATIME", 0},            {"O_ASYNC", 0},
};

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

template <class T>
bool ParseInt(std::string_view s, T* out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

class Parser {
 public:
  Parser(std::string_view source, const MobigenParseOptions& opt) : opt_(opt) { out_.source = std::string(source); }

  sim::Result<MobigenTrace> Run(LineSource& src) {
    const uint64_t max_lines = std::min<uint64_t>(opt_.max_lines, UINT32_MAX);  // MobigenRecord::line
    uint64_t bytes = 0;
    for (;;) {
      std::string_view line;
      FS_ASSIGN_OR_RETURN(const LineSource::Outcome outcome, src.Next(&line));
      if (outcome == LineSource::Outcome::kEof) break;
      const uint64_t line_no = src.line_no();
      if (outcome == LineSource::Outcome::kTooLong) {
        return sim::Status::InvalidInput(fmt::format(
            "{}:{}: line longer than {} bytes: not a MobiGen trace (lines are '<tid> <t_us> <call> <args...>')",
            out_.source, line_no, opt_.max_line_bytes));
      }
      if (line_no > max_lines) {
        return sim::Status::InvalidInput(
            fmt::format("{}: more than {} lines; at most {} are supported", out_.source, max_lines, max_lines));
      }
      bytes += line.size() + 1;
      if (bytes > opt_.max_bytes) {
        return sim::Status::InvalidInput(fmt::format("{}:{}: trace larger than {} bytes; at most {} are supported",
                                                     out_.source, line_no, opt_.max_bytes, opt_.max_bytes));
      }
      std::string problem = Line(line, static_cast<uint32_t>(line_no));
      if (problem.empty()) continue;
      std::string msg = fmt::format("{}:{}: {}: {}", out_.source, line_no, problem, Clip(line));
      if (!opt_.skip_malformed) return sim::Status::InvalidInput(std::move(msg));
      ++out_.malformed;
      ++out_.skipped;
      if (out_.errors.size() < opt_.max_error_messages) out_.errors.push_back(std::move(msg));
    }
    out_.lines = src.line_no();
    Finish();
    return std::move(out_);
  }

 private:
  static std::string Clip(std::string_view line) {
    std::string s(line.substr(0, 200));
    for (char& c : s) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
    return "'" + s + (line.size() > 200 ? "...'" : "'");
  }

  // Splits on blanks; a token starting with '"' runs to the next '"' that
  // ends a token. Returns false on an unbalanced quote.
  bool Tokenize(std::string_view line) {
    ntok_ = 0;
    size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
      if (i >= line.size()) break;
      size_t j;
      if (line[i] == '"') {
        j = i + 1;
        for (;;) {
          j = line.find('"', j);
          if (j == std::string_view::npos) return false;
          if (j + 1 == line.size() || line[j + 1] == ' ' || line[j + 1] == '\t') break;
          ++j;
        }
        ++j;
      } else {
        j = i;
        while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
      }
      if (ntok_ == kMaxTokens) {
        ++ntok_;  // too many; reported by the argument check
        return true;
      }
      tok_[ntok_++] = line.substr(i, j - i);
      i = j;
    }
    return true;
  }

  uint32_t Intern(std::string_view s, std::vector<std::string>* table,
                  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>>* index) {
    auto it = index->find(s);
    if (it != index->end()) return it->second;
    const auto id = static_cast<uint32_t>(table->size());
    table->emplace_back(s);
    index->emplace(std::string(s), id);
    return id;
  }

  std::string Fd(std::string_view s, bool allow_failed, int32_t* fd) {
    if (!ParseInt(s, fd) || *fd >= kMaxFd || *fd < (allow_failed ? -1 : 0)) {
      return fmt::format("bad descriptor '{}'", s);
    }
    return {};
  }

  std::string Path(std::string_view s, MobigenRecord* r) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') {
      r->quoted = true;
      s = s.substr(1, s.size() - 2);
    } else if (!s.empty() && s.front() == '"') {
      return "unbalanced quote in path";
    }
    if (s.empty()) return "empty path";
    r->name = Intern(s, &out_.paths, &path_index_);
    return {};
  }

  std::string Flags(std::string_view s, MobigenRecord* r) {
    r->rdonly = s.substr(0, 8) == "O_RDONLY";
    uint32_t bits = 0;
    size_t i = 0;
    while (i <= s.size()) {
      size_t j = s.find('|', i);
      if (j == std::string_view::npos) j = s.size();
      const std::string_view f = s.substr(i, j - i);
      i = j + 1;
      bool known = false;
      for (const FlagName& n : kFlags) {
        if (n.name == f) {
          bits |= n.bits;
          known = true;
          break;
        }
      }
      uint64_t numeric;
      if (!known && f.size() > 2 && f[0] == '0' && (f[1] == 'x' || f[1] == 'X') &&
          std::from_chars(f.data() + 2, f.data() + f.size(), numeric, 16).ptr == f.data() + f.size()) {
        known = true;  // strace prints unnamed flag bits in hex; they do not matter here
      }
      if (!known) return fmt::format("unknown open flag '{}'", f);
      if (j == s.size()) break;
    }
    if ((bits & fs::kWrOnly) && (bits & fs::kRdWr)) return "O_WRONLY together with O_RDWR";
    r->flags = bits;
    return {};
  }

  // Parses one line; returns the problem ("" when fine or blank).
  std::string Line(std::string_view line, uint32_t line_no) {
    if (!Tokenize(line)) return "unbalanced quote";
    if (ntok_ == 0) {
      ++out_.skipped;  // blank
      return {};
    }
    if (ntok_ < 3) return "expected '<tid> <t_us> <call> <args...>'";
    MobigenRecord r;
    r.line = line_no;
    int64_t tid;
    if (!ParseInt(tok_[0], &tid) || tid < 0 || tid > INT32_MAX) return fmt::format("bad thread id '{}'", tok_[0]);
    if (!ParseInt(tok_[1], &r.t_us) || r.t_us < 0) return fmt::format("bad timestamp '{}'", tok_[1]);
    if (r.t_us > kMaxMobigenTimestampUs) {
      return fmt::format("timestamp {} us is beyond {} us (about 127 years)", r.t_us, kMaxMobigenTimestampUs);
    }
    const CallSpec* spec = nullptr;
    for (const CallSpec& c : kCalls) {
      if (c.name == tok_[2]) spec = &c;
    }
    const size_t args = ntok_ - 3;
    if (spec == nullptr) {
      const std::string_view name = tok_[2];
      for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return fmt::format("bad call name '{}'", name);
      }
      r.call = MobigenCall::kUnknown;
      r.name = Intern(name, &out_.unknown_names, &unknown_index_);
    } else {
      r.call = spec->call;
      if (args != static_cast<size_t>(spec->args)) {
        return fmt::format("{} takes {} arguments ({}), got {}", spec->name, spec->args, spec->usage, args);
      }
      std::string p;
      switch (r.call) {
        case MobigenCall::kOpen:
          if (!(p = Path(tok_[3], &r)).empty()) return p;
          if (!(p = Flags(tok_[4], &r)).empty()) return p;
          if (!(p = Fd(tok_[5], true, &r.fd)).empty()) return p;
          break;
        case MobigenCall::kRead:
        case MobigenCall::kWrite:
          if (!(p = Fd(tok_[3], false, &r.fd)).empty()) return p;
          if (!ParseInt(tok_[4], &r.bytes)) return fmt::format("bad byte count '{}'", tok_[4]);
          break;
        case MobigenCall::kPread:
        case MobigenCall::kPwrite:
          if (!(p = Fd(tok_[3], false, &r.fd)).empty()) return p;
          if (!ParseInt(tok_[4], &r.offset) || r.offset > (uint64_t{1} << 50)) {
            return fmt::format("bad offset '{}'", tok_[4]);
          }
          if (!ParseInt(tok_[5], &r.bytes)) return fmt::format("bad byte count '{}'", tok_[5]);
          break;
        case MobigenCall::kClose:
        case MobigenCall::kFsync:
        case MobigenCall::kFdatasync:
        case MobigenCall::kFstat:
          if (!(p = Fd(tok_[3], false, &r.fd)).empty()) return p;
          if (!ParseInt(tok_[4], &r.ret)) return fmt::format("bad result '{}'", tok_[4]);
          break;
        default:  // path calls
          if (!(p = Path(tok_[3], &r)).empty()) return p;
          if (!ParseInt(tok_[4], &r.ret)) return fmt::format("bad result '{}'", tok_[4]);
          break;
      }
      if (r.bytes > (int64_t{1} << 40)) return fmt::format("byte count too large '{}'", r.bytes);
    }
    auto [it, fresh] = last_time_.emplace(tid, r.t_us);
    if (!fresh) {
      if (r.t_us < it->second) {
        return fmt::format("time goes backwards in thread {} (previous line at {} us)", tid, it->second);
      }
      it->second = r.t_us;
    }
    r.thread = static_cast<uint32_t>(tid);  // remapped to an index in Finish()
    if (r.call == MobigenCall::kUnknown) ++out_.unknown_counts[out_.unknown_names[r.name]];
    ++out_.counts[static_cast<size_t>(r.call)];
    out_.records.push_back(r);
    return {};
  }

  void Finish() {
    std::vector<int64_t> tids;
    tids.reserve(last_time_.size());
    for (const auto& [tid, t] : last_time_) tids.push_back(tid);
    std::sort(tids.begin(), tids.end());
    out_.tids = tids;
    out_.thread_records.assign(tids.size(), {});
    bool first = true;
    for (uint32_t i = 0; i < out_.records.size(); ++i) {
      MobigenRecord& r = out_.records[i];
      r.thread = static_cast<uint32_t>(std::lower_bound(tids.begin(), tids.end(), int64_t{r.thread}) - tids.begin());
      out_.thread_records[r.thread].push_back(i);
      out_.first_us = first ? r.t_us : std::min(out_.first_us, r.t_us);
      out_.last_us = first ? r.t_us : std::max(out_.last_us, r.t_us);
      first = false;
    }
  }

  static constexpr size_t kMaxTokens = 8;
  const MobigenParseOptions& opt_;
  MobigenTrace out_;
  std::string_view tok_[kMaxTokens];
  size_t ntok_ = 0;
  std::unordered_map<std::string, uint32_t, StringHash, std::equal_to<>> path_index_, unknown_index_;
  std::unordered_map<int64_t, int64_t> last_time_;
};

}  // namespace

std::string_view MobigenCallName(MobigenCall c) {
  for (const CallSpec& s : kCalls) {
    if (s.call == c) return s.name;
  }
  return "unknown";
}

sim::Result<MobigenTrace> ParseMobigen(std::string_view text, std::string_view source,
                                       const MobigenParseOptions& options) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<LineSource> src,
                      LineSource::FromMemory(std::string(source), text, options.max_line_bytes));
  Parser p(source, options);
  return p.Run(*src);
}

sim::Result<MobigenTrace> ReadMobigenFile(const std::string& path, const MobigenParseOptions& options) {
  sim::Result<std::unique_ptr<LineSource>> src = LineSource::Open(path, options.max_line_bytes);
  if (!src.ok()) {
    // "<path>: cannot open: <reason>" -> "<path>: cannot read the trace file: <reason>"
    std::string_view reason = src.status().message();
    if (const size_t colon = reason.rfind(": "); colon != std::string_view::npos) reason.remove_prefix(colon + 2);
    return sim::Status::InvalidInput(fmt::format("{}: cannot read the trace file: {}", path, reason));
  }
  Parser p(path, options);
  return p.Run(**src);
}

}  // namespace host
