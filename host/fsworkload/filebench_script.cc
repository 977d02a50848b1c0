#include "host/fsworkload/filebench_script.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <set>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host {

namespace {

struct KindName {
  FlowopKind kind;
  std::string_view name;
  FlowopTraits traits;
};
constexpr FlowopTraits kIo{true, false, false};
constexpr FlowopTraits kIoRead{true, true, false};
constexpr FlowopTraits kIoWrite{true, false, true};
constexpr FlowopTraits kOther{false, false, false};
constexpr KindName kKinds[] = {
    {FlowopKind::kCreateFile, "createfile", kIo},
    {FlowopKind::kOpenFile, "openfile", kIo},
    {FlowopKind::kCloseFile, "closefile", kIo},
    {FlowopKind::kDeleteFile, "deletefile", kIo},
    {FlowopKind::kStatFile, "statfile", kIo},
    {FlowopKind::kFsync, "fsync", kIo},
    {FlowopKind::kFsyncSet, "fsyncset", kIo},
    {FlowopKind::kReadWholeFile, "readwholefile", kIoRead},
    {FlowopKind::kWriteWholeFile, "writewholefile", kIoWrite},
    {FlowopKind::kAppendFile, "appendfile", kIoWrite},
    {FlowopKind::kAppendFileRand, "appendfilerand", kIoWrite},
    {FlowopKind::kRead, "read", kIoRead},
    {FlowopKind::kWrite, "write", kIoWrite},
    {FlowopKind::kAioWrite, "aiowrite", kIoWrite},
    {FlowopKind::kAioWait, "aiowait", kIo},
    {FlowopKind::kMakeDir, "makedir", kIo},
    {FlowopKind::kRemoveDir, "removedir", kIo},
    {FlowopKind::kListDir, "listdir", kIo},
    {FlowopKind::kHog, "hog", kOther},
    {FlowopKind::kDelay, "delay", kOther},
    {FlowopKind::kSemBlock, "semblock", kOther},
    {FlowopKind::kSemPost, "sempost", kOther},
    {FlowopKind::kEventLimit, "eventlimit", kOther},
    {FlowopKind::kOpsLimit, "opslimit", kOther},
    {FlowopKind::kIopsLimit, "iopslimit", kOther},
    {FlowopKind::kBwLimit, "bwlimit", kOther},
    {FlowopKind::kFinishOnCount, "finishoncount", kOther},
    {FlowopKind::kFinishOnBytes, "finishonbytes", kOther},
};
// kKinds[i] is FlowopKind i: the per-op lookups index it.
constexpr bool KindsInEnumOrder() {
  for (size_t i = 0; i < std::size(kKinds); ++i)
    if (static_cast<size_t>(kKinds[i].kind) != i) return false;
  return true;
}
static_assert(KindsInEnumOrder(), "kKinds lists every FlowopKind in the enum's order");

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

struct Tok {
  enum Kind { kWord, kString, kEq, kComma, kLBrace, kRBrace, kNewline, kEof };
  Kind kind = kEof;
  std::string_view text;
  int line = 0;
};

struct Attr {
  std::string key;
  bool has_value = false;
  std::string value;  // variables already substituted
  int line = 0;
};

class Parser {
 public:
  Parser(std::string_view text, std::string_view source, const std::map<std::string, std::string>& overrides)
      : text_(text), overrides_(overrides) {
    out_.source = std::string(source);
  }

  sim::Result<FilebenchScript> Run() {
    for (;;) {
      Tok t = Next();
      if (t.kind == Tok::kEof) break;
      if (t.kind == Tok::kNewline) continue;
      if (t.kind != Tok::kWord) return Error(t.line, "expected a statement", t.text);
      FS_RETURN_IF_ERROR(Statement(t));
    }
    for (const auto& [name, value] : overrides_) {
      if (!used_overrides_.count(name)) {
        std::string known;
        for (const auto& [k, v] : vars_) known += (known.empty() ? "$" : ", $") + k;
        return sim::Status::InvalidInput(fmt::format("{}: the script sets no variable ${} (it sets: {})",
                                                     out_.source, name, known.empty() ? "none" : known));
      }
    }
    for (const ProcessDef& p : out_.processes) {
      for (const ThreadDef& t : p.threads) {
        for (const FlowopDef& f : t.flowops) {
          FS_RETURN_IF_ERROR(CheckTarget(f));
        }
      }
    }
    out_.variables = vars_;
    return std::move(out_);
  }

 private:
  sim::Status Error(int line, std::string_view problem, std::string_view text) const {
    return sim::Status::InvalidInput(fmt::format("{}:{}: {}: {}", out_.source, line, problem, text));
  }

  // ---- tokens

  Tok Next() {
    if (peeked_) {
      peeked_ = false;
      return peek_;
    }
    return Scan();
  }
  const Tok& Peek() {
    if (!peeked_) {
      peek_ = Scan();
      peeked_ = true;
    }
    return peek_;
  }
  Tok Scan() {
    for (;;) {
      while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
      if (pos_ >= text_.size()) return Tok{Tok::kEof, {}, line_};
      const char c = text_[pos_];
      if (c == '#') {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
        continue;
      }
      Tok t;
      t.line = line_;
      if (c == '\n') {
        ++pos_;
        ++line_;
        t.kind = Tok::kNewline;
        return t;
      }
      const size_t start = pos_;
      switch (c) {
        case '=': t.kind = Tok::kEq; ++pos_; break;
        case ',': t.kind = Tok::kComma; ++pos_; break;
        case '{': t.kind = Tok::kLBrace; ++pos_; break;
        case '}': t.kind = Tok::kRBrace; ++pos_; break;
        case '"': {
          const size_t end = text_.find_first_of("\"\n", pos_ + 1);
          if (end == std::string_view::npos || text_[end] != '"') {
            t.kind = Tok::kString;
            t.text = text_.substr(pos_, (end == std::string_view::npos ? text_.size() : end) - pos_);
            pos_ = end == std::string_view::npos ? text_.size() : end;
            return t;
          }
          t.kind = Tok::kString;
          t.text = text_.substr(pos_ + 1, end - pos_ - 1);
          pos_ = end + 1;
          return t;
        }
        default:
          while (pos_ < text_.size() && !std::strchr(" \t\r\n#=,{}\"", text_[pos_])) ++pos_;
          t.kind = Tok::kWord;
          break;
      }
      t.text = text_.substr(start, pos_ - start);
      return t;
    }
  }
  // The rest of the current line (comment stripped, trimmed); the newline
  // itself is left for the statement loop.
  std::string_view RestOfLine() {
    CHECK(!peeked_);
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view rest = text_.substr(pos_, end - pos_);
    pos_ = end;
    if (const size_t hash = rest.find('#'); hash != std::string_view::npos) rest = rest.substr(0, hash);
    return Trim(rest);
  }
  sim::Status ExpectEndOfLine(int line) {
    const Tok& t = Peek();
    if (t.kind == Tok::kNewline || t.kind == Tok::kEof) return sim::Status::Ok();
    return Error(t.line ? t.line : line, "unexpected text at the end of the statement", t.text);
  }

  // ---- values

  sim::Result<std::string> Substitute(std::string_view v, int line) const {
    if (!v.empty() && v.front() == '$') {
      auto it = vars_.find(std::string(v.substr(1)));
      if (it == vars_.end()) return Error(line, "undefined variable", v);
      return it->second;
    }
    return std::string(v);
  }
  sim::Result<double> Number(const Attr& a) const {
    if (!a.has_value) return Error(a.line, "attribute needs a value", a.key);
    sim::Result<double> v = ParseFilebenchNumber(a.value);
    if (!v.ok()) return Error(a.line, fmt::format("bad number for '{}'", a.key), a.value);
    return v;
  }
  sim::Result<uint64_t> Count(const Attr& a) const {
    FS_ASSIGN_OR_RETURN(double v, Number(a));
    if (v < 0 || v > 1e18 || v != std::floor(v)) return Error(a.line, fmt::format("bad count for '{}'", a.key), a.value);
    return static_cast<uint64_t>(v);
  }
  sim::Result<bool> Bool(const Attr& a) const {
    if (!a.has_value) return true;
    if (a.value == "true" || a.value == "1") return true;
    if (a.value == "false" || a.value == "0") return false;
    sim::Result<double> v = ParseFilebenchNumber(a.value);
    if (v.ok()) return *v != 0;
    return Error(a.line, fmt::format("bad boolean for '{}'", a.key), a.value);
  }
  sim::Result<std::string> Text(const Attr& a) const {
    if (!a.has_value || a.value.empty()) return Error(a.line, "attribute needs a value", a.key);
    return a.value;
  }

  // Attribute list: key[=value] {, key[=value]}; a ',' may end a line.
  sim::Result<std::vector<Attr>> Attrs() {
    std::vector<Attr> out;
    for (;;) {
      Tok k = Next();
      if (k.kind != Tok::kWord) return Error(k.line, "expected an attribute", k.text);
      Attr a;
      a.key = std::string(k.text);
      a.line = k.line;
      if (Peek().kind == Tok::kEq) {
        Next();
        Tok v = Next();
        if (v.kind != Tok::kWord && v.kind != Tok::kString) {
          return Error(v.line, fmt::format("expected a value for '{}'", a.key), v.text);
        }
        a.has_value = true;
        FS_ASSIGN_OR_RETURN(a.value, Substitute(v.text, v.line));
      }
      out.push_back(std::move(a));
      if (Peek().kind != Tok::kComma) break;
      Next();
      while (Peek().kind == Tok::kNewline) Next();
    }
    return out;
  }

  // ---- statements

  sim::Status Statement(const Tok& t) {
    const std::string_view w = t.text;
    if (w == "set") return Set(t.line);
    if (w == "define") {
      Tok what = Next();
      if (what.text == "fileset" || what.text == "file") return Fileset(what.text == "file", what.line);
      if (what.text == "process") return Process(what.line);
      return Error(what.line, "unsupported definition", what.text);
    }
    if (w == "eventgen") {
      Tok rate = Next();
      Tok eq = Next();
      Tok v = Next();
      if (rate.text != "rate" || eq.kind != Tok::kEq || v.kind != Tok::kWord) {
        return Error(t.line, "expected 'eventgen rate = <value>'", rate.text);
      }
      FS_ASSIGN_OR_RETURN(std::string val, Substitute(v.text, v.line));
      sim::Result<double> r = ParseFilebenchNumber(val);
      if (!r.ok() || *r < 0) return Error(v.line, "bad event rate", val);
      out_.eventrate = *r;
      return ExpectEndOfLine(t.line);
    }
    if (w == "run") {
      out_.has_run = true;
      if (Peek().kind == Tok::kWord) {
        Tok v = Next();
        FS_ASSIGN_OR_RETURN(std::string val, Substitute(v.text, v.line));
        sim::Result<double> r = ParseFilebenchNumber(val);
        if (!r.ok() || *r < 0) return Error(v.line, "bad run time", val);
        out_.run_time = sim::Sec(std::min(*r, 1e9));
      }
      return ExpectEndOfLine(t.line);
    }
    if (w == "echo" || w == "usage" || w == "enable" || w == "debug" || w == "create") {
      RestOfLineAfterPeek();
      return sim::Status::Ok();
    }
    return Error(t.line, "unsupported statement", w);
  }

  void RestOfLineAfterPeek() {
    if (peeked_) {
      peeked_ = false;
      if (peek_.kind == Tok::kNewline || peek_.kind == Tok::kEof) {
        // Give the newline back to the statement loop.
        peeked_ = true;
        return;
      }
    }
    RestOfLine();
  }

  sim::Status Set(int line) {
    Tok name = Next();
    if (name.kind != Tok::kWord) return Error(line, "expected a variable after 'set'", name.text);
    if (name.text == "mode") {
      Tok quit = Next();
      Tok how = Next();
      if (quit.text != "quit") return Error(line, "expected 'set mode quit <how>'", quit.text);
      if (how.text == "firstdone") {
        out_.mode = RunMode::kFirstDone;
      } else if (how.text == "alldone") {
        out_.mode = RunMode::kAllDone;
      } else if (how.text == "timeout") {
        out_.mode = RunMode::kTimeout;
      } else {
        return Error(line, "unknown run mode (firstdone, alldone, timeout)", how.text);
      }
      return ExpectEndOfLine(line);
    }
    if (name.text.size() < 2 || name.text.front() != '$') return Error(line, "expected a $variable", name.text);
    Tok eq = Next();
    if (eq.kind != Tok::kEq) return Error(line, "expected '=' after the variable", name.text);
    const std::string var(name.text.substr(1));
    std::string_view raw = RestOfLine();
    if (raw.empty()) return Error(line, "missing value", name.text);
    std::string value;
    if (auto it = overrides_.find(var); it != overrides_.end()) {
      value = it->second;
      used_overrides_.insert(var);
    } else if (raw.front() == '$') {
      FS_ASSIGN_OR_RETURN(value, Substitute(raw, line));
    } else {
      value = std::string(raw);
    }
    vars_[var] = value;
    return sim::Status::Ok();
  }

  // cvar(type=cvar-gamma,parameters=mean:<m>;gamma:<g>)
  sim::Status ParseSize(const Attr& a, FilesetDef* fs) {
    if (a.value.rfind("cvar(", 0) == 0) {
      std::string_view v = a.value;
      if (v.back() != ')') return Error(a.line, "bad cvar", v);
      v = v.substr(5, v.size() - 6);
      double mean = 4096, gamma = 1.5;
      bool gamma_type = false;
      size_t i = 0;
      while (i < v.size()) {
        size_t j = v.find(',', i);
        if (j == std::string_view::npos) j = v.size();
        std::string_view kv = Trim(v.substr(i, j - i));
        i = j + 1;
        if (kv == "type=cvar-gamma") {
          gamma_type = true;
        } else if (kv.rfind("parameters=", 0) == 0) {
          std::string_view params = kv.substr(11);
          size_t p = 0;
          while (p < params.size()) {
            size_t q = params.find(';', p);
            if (q == std::string_view::npos) q = params.size();
            std::string_view pv = Trim(params.substr(p, q - p));
            p = q + 1;
            const size_t colon = pv.find(':');
            if (colon == std::string_view::npos) return Error(a.line, "bad cvar parameter", pv);
            sim::Result<double> num = ParseFilebenchNumber(pv.substr(colon + 1));
            if (!num.ok()) return Error(a.line, "bad cvar parameter", pv);
            if (pv.substr(0, colon) == "mean") {
              mean = *num;
            } else if (pv.substr(0, colon) == "gamma") {
              gamma = *num;
            } else {
              return Error(a.line, "unsupported cvar parameter", pv);
            }
          }
        } else {
          return Error(a.line, "unsupported cvar (only type=cvar-gamma with mean and gamma)", kv);
        }
      }
      if (!gamma_type) return Error(a.line, "unsupported cvar (only type=cvar-gamma)", a.value);
      if (!(gamma > 0) || mean < 0) return Error(a.line, "cvar-gamma needs gamma > 0 and mean >= 0", a.value);
      fs->size_mean = mean;
      fs->size_gamma = gamma;
      size_is_cvar_ = true;
      return sim::Status::Ok();
    }
    FS_ASSIGN_OR_RETURN(double v, Number(a));
    if (v < 0) return Error(a.line, "negative size", a.value);
    fs->size_mean = v;
    return sim::Status::Ok();
  }

  sim::Status Fileset(bool single_file, int line) {
    FS_ASSIGN_OR_RETURN(std::vector<Attr> attrs, Attrs());
    FilesetDef fs;
    fs.single_file = single_file;
    fs.line = line;
    fs.entries = single_file ? 1 : 0;
    double sizegamma = 1.5;
    bool have_size = false;
    size_is_cvar_ = false;
    for (const Attr& a : attrs) {
      if (a.key == "name") {
        FS_ASSIGN_OR_RETURN(fs.name, Text(a));
      } else if (a.key == "path") {
        FS_ASSIGN_OR_RETURN(fs.path, Text(a));
      } else if (a.key == "size" || a.key == "filesize") {
        FS_RETURN_IF_ERROR(ParseSize(a, &fs));
        have_size = true;
      } else if (a.key == "entries" && !single_file) {
        FS_ASSIGN_OR_RETURN(fs.entries, Count(a));
      } else if (a.key == "leafdirs" && !single_file) {
        FS_ASSIGN_OR_RETURN(fs.leafdirs, Count(a));
      } else if (a.key == "dirwidth" && !single_file) {
        FS_ASSIGN_OR_RETURN(fs.dirwidth, Number(a));
      } else if (a.key == "prealloc") {
        if (a.has_value) {
          FS_ASSIGN_OR_RETURN(uint64_t p, Count(a));
          if (p > 100) return Error(a.line, "prealloc percentage above 100", a.value);
          fs.prealloc_percent = static_cast<uint32_t>(p);
          fs.prealloc = p > 0;
        } else {
          fs.prealloc_percent = 100;
          fs.prealloc = true;
        }
      } else if (a.key == "paralloc") {
        FS_ASSIGN_OR_RETURN(fs.paralloc, Bool(a));
      } else if (a.key == "reuse") {
        FS_ASSIGN_OR_RETURN(fs.reuse, Bool(a));
      } else if (a.key == "readonly") {
        FS_ASSIGN_OR_RETURN(fs.readonly, Bool(a));
      } else if (a.key == "cached" || a.key == "trusttree") {
        FS_RETURN_IF_ERROR(Bool(a).status());
      } else if (a.key == "sizegamma") {
        FS_ASSIGN_OR_RETURN(double g, Number(a));
        sizegamma = g / 1000.0;
      } else if (a.key == "dirgamma") {
        FS_ASSIGN_OR_RETURN(double g, Number(a));
        fs.dirgamma = g / 1000.0;
      } else {
        return Error(a.line, "unsupported fileset attribute", a.key);
      }
    }
    if (fs.name.empty()) return Error(line, "fileset needs a name", "define fileset");
    if (fs.path.empty()) return Error(line, "fileset needs a path", fs.name);
    if (out_.FindFileset(fs.name) >= 0) return Error(line, "fileset defined twice", fs.name);
    if (!single_file && fs.entries == 0 && fs.leafdirs == 0) {
      return Error(line, "fileset needs entries or leafdirs", fs.name);
    }
    if (!single_file && !(fs.dirwidth > 1)) return Error(line, "fileset needs dirwidth > 1", fs.name);
    if (!have_size && fs.entries > 0) return Error(line, "fileset needs a size", fs.name);
    // A plain size is still gamma-distributed (filebench's sizegamma,
    // default 1500) unless sizegamma=0; a cvar brings its own gamma.
    if (!size_is_cvar_) fs.size_gamma = single_file ? 0 : sizegamma;
    if (fs.size_gamma < 0 || fs.dirgamma < 0) return Error(line, "negative gamma", fs.name);
    out_.filesets.push_back(std::move(fs));
    return ExpectEndOfLine(line);
  }

  sim::Status ExpectLBrace(std::string_view what) {
    while (Peek().kind == Tok::kNewline) Next();
    Tok b = Next();
    if (b.kind != Tok::kLBrace) return Error(b.line, fmt::format("expected '{{' after {}", what), b.text);
    return sim::Status::Ok();
  }

  sim::Status Process(int line) {
    FS_ASSIGN_OR_RETURN(std::vector<Attr> attrs, Attrs());
    ProcessDef p;
    p.line = line;
    for (const Attr& a : attrs) {
      if (a.key == "name") {
        FS_ASSIGN_OR_RETURN(p.name, Text(a));
      } else if (a.key == "instances") {
        FS_ASSIGN_OR_RETURN(uint64_t n, Count(a));
        if (n == 0 || n > 100000) return Error(a.line, "instances must be 1..100000", a.value);
        p.instances = static_cast<uint32_t>(n);
      } else if (a.key == "nice") {
        FS_RETURN_IF_ERROR(Number(a).status());
      } else {
        return Error(a.line, "unsupported process attribute", a.key);
      }
    }
    if (p.name.empty()) return Error(line, "process needs a name", "define process");
    FS_RETURN_IF_ERROR(ExpectLBrace("the process"));
    for (;;) {
      Tok t = Next();
      if (t.kind == Tok::kNewline) continue;
      if (t.kind == Tok::kRBrace) break;
      if (t.kind == Tok::kEof) return Error(line, "process not closed with '}'", p.name);
      if (t.text != "thread") return Error(t.line, "expected 'thread' or '}'", t.text);
      FS_RETURN_IF_ERROR(Thread(&p, t.line));
    }
    if (p.threads.empty()) return Error(line, "process has no threads", p.name);
    out_.processes.push_back(std::move(p));
    return sim::Status::Ok();
  }

  sim::Status Thread(ProcessDef* p, int line) {
    FS_ASSIGN_OR_RETURN(std::vector<Attr> attrs, Attrs());
    ThreadDef t;
    t.line = line;
    for (const Attr& a : attrs) {
      if (a.key == "name") {
        FS_ASSIGN_OR_RETURN(t.name, Text(a));
      } else if (a.key == "instances") {
        FS_ASSIGN_OR_RETURN(uint64_t n, Count(a));
        if (n == 0 || n > 100000) return Error(a.line, "instances must be 1..100000", a.value);
        t.instances = static_cast<uint32_t>(n);
      } else if (a.key == "memsize") {
        FS_RETURN_IF_ERROR(Number(a).status());
      } else if (a.key == "useism") {
        FS_RETURN_IF_ERROR(Bool(a).status());
      } else {
        return Error(a.line, "unsupported thread attribute", a.key);
      }
    }
    if (t.name.empty()) return Error(line, "thread needs a name", "thread");
    FS_RETURN_IF_ERROR(ExpectLBrace("the thread"));
    for (;;) {
      Tok f = Next();
      if (f.kind == Tok::kNewline) continue;
      if (f.kind == Tok::kRBrace) break;
      if (f.kind == Tok::kEof) return Error(line, "thread not closed with '}'", t.name);
      if (f.text != "flowop") return Error(f.line, "expected 'flowop' or '}'", f.text);
      FS_RETURN_IF_ERROR(Flowop(&t, f.line));
    }
    if (t.flowops.empty()) return Error(line, "thread has no flowops", t.name);
    p->threads.push_back(std::move(t));
    return sim::Status::Ok();
  }

  sim::Status Flowop(ThreadDef* t, int line) {
    Tok type = Next();
    const KindName* kind = nullptr;
    for (const KindName& k : kKinds) {
      if (k.name == type.text) kind = &k;
    }
    if (kind == nullptr) return Error(line, "unsupported flowop type", type.text);
    FS_ASSIGN_OR_RETURN(std::vector<Attr> attrs, Attrs());
    FlowopDef f;
    f.kind = kind->kind;
    f.line = line;
    for (const Attr& a : attrs) {
      if (a.key == "name") {
        FS_ASSIGN_OR_RETURN(f.name, Text(a));
      } else if (a.key == "filesetname" || a.key == "fileset" || a.key == "filename") {
        FS_ASSIGN_OR_RETURN(std::string n, Text(a));
        f.fileset = out_.FindFileset(n);
        if (f.fileset < 0) return Error(a.line, "unknown fileset", n);
      } else if (a.key == "fd" || a.key == "srcfd") {
        FS_ASSIGN_OR_RETURN(uint64_t n, Count(a));
        if (n > 1023) return Error(a.line, "fd numbers must be below 1024", a.value);
        (a.key == "fd" ? f.fd : f.srcfd) = static_cast<uint32_t>(n);
      } else if (a.key == "iosize") {
        FS_ASSIGN_OR_RETURN(f.iosize, Count(a));
      } else if (a.key == "workingset") {
        FS_ASSIGN_OR_RETURN(f.workingset, Count(a));
      } else if (a.key == "iters") {
        FS_ASSIGN_OR_RETURN(f.iters, Count(a));
        if (f.iters == 0) return Error(a.line, "iters must be at least 1", a.value);
      } else if (a.key == "value") {
        FS_ASSIGN_OR_RETURN(f.value, Count(a));
      } else if (a.key == "highwater") {
        FS_ASSIGN_OR_RETURN(f.highwater, Count(a));
      } else if (a.key == "target") {
        FS_ASSIGN_OR_RETURN(f.target, Text(a));
      } else if (a.key == "random") {
        FS_ASSIGN_OR_RETURN(f.random, Bool(a));
      } else if (a.key == "dsync") {
        FS_ASSIGN_OR_RETURN(f.dsync, Bool(a));
      } else if (a.key == "directio") {
        FS_ASSIGN_OR_RETURN(f.directio, Bool(a));
      } else if (a.key == "opennext") {
        FS_ASSIGN_OR_RETURN(f.opennext, Bool(a));
      } else if (a.key == "blocking") {
        FS_ASSIGN_OR_RETURN(f.blocking, Bool(a));
      } else {
        return Error(a.line, fmt::format("unsupported attribute for flowop {}", kind->name), a.key);
      }
    }
    if (f.name.empty()) return Error(line, "flowop needs a name", kind->name);
    FS_RETURN_IF_ERROR(CheckFlowop(f));
    t->flowops.push_back(std::move(f));
    return ExpectEndOfLine(line);
  }

  // Per-kind requirements that do not depend on other definitions.
  sim::Status CheckFlowop(const FlowopDef& f) const {
    const std::string_view kind = FlowopKindName(f.kind);
    switch (f.kind) {
      case FlowopKind::kCreateFile:
      case FlowopKind::kOpenFile:
      case FlowopKind::kMakeDir:
      case FlowopKind::kRemoveDir:
      case FlowopKind::kListDir:
      case FlowopKind::kFsyncSet:
        if (f.fileset < 0) return Error(f.line, fmt::format("{} needs filesetname", kind), f.name);
        break;
      case FlowopKind::kDeleteFile:
      case FlowopKind::kStatFile:
        if (f.fileset < 0 && f.fd == 0) return Error(f.line, fmt::format("{} needs filesetname or fd", kind), f.name);
        break;
      case FlowopKind::kRead:
      case FlowopKind::kWrite:
      case FlowopKind::kAioWrite:
        if (f.iosize == 0) return Error(f.line, fmt::format("{} needs iosize", kind), f.name);
        [[fallthrough]];
      case FlowopKind::kReadWholeFile:
      case FlowopKind::kWriteWholeFile:
      case FlowopKind::kAppendFile:
      case FlowopKind::kAppendFileRand:
        if (f.fileset < 0 && f.fd == 0 && !f.opennext) {
          return Error(f.line, fmt::format("{} needs filesetname or fd", kind), f.name);
        }
        if ((f.kind == FlowopKind::kAppendFile || f.kind == FlowopKind::kAppendFileRand) && f.iosize == 0) {
          return Error(f.line, fmt::format("{} needs iosize", kind), f.name);
        }
        if (f.opennext && f.fileset < 0) return Error(f.line, "opennext needs filesetname", f.name);
        if (f.kind == FlowopKind::kAioWrite && !f.random) {
          return Error(f.line, "aiowrite supports random offsets only", f.name);
        }
        break;
      case FlowopKind::kSemPost:
        if (f.target.empty()) return Error(f.line, "sempost needs a target semblock", f.name);
        break;
      case FlowopKind::kCloseFile:
      case FlowopKind::kFsync:
        if (f.fd == 0) return Error(f.line, fmt::format("{} needs fd", kind), f.name);
        break;
      default:
        break;
    }
    return sim::Status::Ok();
  }

  sim::Status CheckTarget(const FlowopDef& f) const {
    if (f.target.empty()) return sim::Status::Ok();
    bool found = false;
    for (const ProcessDef& p : out_.processes) {
      for (const ThreadDef& t : p.threads) {
        for (const FlowopDef& g : t.flowops) {
          if (g.name != f.target) continue;
          found = true;
          if (f.kind == FlowopKind::kSemPost && g.kind != FlowopKind::kSemBlock) {
            return Error(f.line, "sempost target is not a semblock flowop", f.target);
          }
        }
      }
    }
    if (!found) return Error(f.line, "unknown target flowop", f.target);
    return sim::Status::Ok();
  }

  std::string_view text_;
  const std::map<std::string, std::string>& overrides_;
  std::set<std::string> used_overrides_;
  std::map<std::string, std::string> vars_;
  FilebenchScript out_;
  size_t pos_ = 0;
  int line_ = 1;
  bool peeked_ = false;
  Tok peek_;
  bool size_is_cvar_ = false;
};

}  // namespace

std::string_view FlowopKindName(FlowopKind k) {
  const auto i = static_cast<size_t>(k);
  return i < std::size(kKinds) ? kKinds[i].name : "?";
}

FlowopTraits TraitsOf(FlowopKind k) {
  const auto i = static_cast<size_t>(k);
  return i < std::size(kKinds) ? kKinds[i].traits : FlowopTraits{};
}

uint32_t FilebenchScript::TotalThreads() const {
  uint64_t n = 0;
  for (const ProcessDef& p : processes) {
    for (const ThreadDef& t : p.threads) n += static_cast<uint64_t>(p.instances) * t.instances;
  }
  return static_cast<uint32_t>(std::min<uint64_t>(n, UINT32_MAX));
}

int FilebenchScript::FindFileset(std::string_view name) const {
  for (size_t i = 0; i < filesets.size(); ++i) {
    if (filesets[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

sim::Result<double> ParseFilebenchNumber(std::string_view text) {
  text = Trim(text);
  if (text.empty()) return sim::Status::InvalidInput("empty number");
  double mult = 1;
  switch (std::tolower(static_cast<unsigned char>(text.back()))) {
    case 'k': mult = 1024.0; break;
    case 'm': mult = 1024.0 * 1024; break;
    case 'g': mult = 1024.0 * 1024 * 1024; break;
    case 't': mult = 1024.0 * 1024 * 1024 * 1024; break;
    default: break;
  }
  if (mult != 1) text.remove_suffix(1);
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v)) {
    return sim::Status::InvalidInput(fmt::format("bad number '{}'", text));
  }
  return v * mult;
}

sim::Result<FilebenchScript> ParseFilebenchScript(std::string_view text, std::string_view source,
                                                  const std::map<std::string, std::string>& overrides) {
  Parser p(text, source, overrides);
  return p.Run();
}

}  // namespace host
