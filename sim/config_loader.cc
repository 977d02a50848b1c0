// LoadExperiment: YAML files (+ includes, + --set overrides, + sweep) into
// validated flat key -> value maps.
//
// Rules, as users see them:
//  - The top level of a file is a map. Besides schema keys it may hold
//    `include:` (a path or a list of paths, relative to the including file)
//    and `sweep:` (key path -> list of values). Includes are read first, in
//    order, wherever `include:` appears in the file; the including file's
//    own keys then override them. Nested includes work; a cycle is an error.
//  - Keys nest like the schema, and a dotted key is shorthand for nesting at
//    any level: `device.geometry.channels: 8` == `device: {geometry: {channels: 8}}`.
//  - One file may set a key only once (in any spelling); a later file (or
//    the including file) overrides an earlier one.
//  - `sweep:` maps key paths (dotted or nested) to non-empty lists. Sweeps
//    from included files merge; a later file's list replaces an earlier list
//    for the same key in place. The runs are the cartesian product of the
//    lists in declaration order, the last key varying fastest. A swept key
//    overrides the value the files give it.
//  - `--set key=value` overrides are applied in order after all files. The
//    value is a YAML flow list ("[a, b]") or quoted scalar when it starts
//    with '[', '"' or '\'', and otherwise taken verbatim. Setting a swept
//    key with --set is an error: it would silently collapse the sweep.
//  - Every value is parsed with ParseParamValue at load time, so a bad value
//    in any run of a sweep is reported before anything runs.
//  - Every error is InvalidInput starting with "file:line:col: " (or
//    "--set key=value: ").
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/config.h"
#include "sim/config_text.h"

namespace sim {

namespace {

namespace fs = std::filesystem;
using config_text::Excerpt;

constexpr std::string_view kIncludeKey = "include";
constexpr std::string_view kSweepKey = "sweep";
// Bounds that keep hostile or mistaken inputs from exhausting memory.
constexpr size_t kMaxFiles = 1000;       // file loads per experiment, includes counted
constexpr uint64_t kMaxRuns = 100000;    // runs per sweep

SourceLoc LocOf(const std::string& file, const YAML::Mark& m) {
  SourceLoc loc;
  loc.file = file;
  if (m.line >= 0) loc.line = m.line + 1;
  if (m.column >= 0) loc.col = m.column + 1;
  return loc;
}

std::string Dotted(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

std::vector<std::string> SplitDots(std::string_view s) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = s.find('.', start);
    parts.emplace_back(s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

std::string_view ShapeName(const YAML::Node& n) {
  if (n.IsMap()) return "a map";
  if (n.IsSequence()) return "a list";
  if (n.IsNull()) return "nothing";
  return "a value";
}

Status Error(const SourceLoc& loc, std::string_view msg) {
  return Status::InvalidInput(fmt::format("{}: {}", loc.ToString(), msg));
}

// Every section path ("device", "device.timing", ...) below `node`.
void SectionPaths(const SchemaNode& node, const std::string& prefix, std::vector<std::string>& out) {
  for (const SchemaNode::Child& c : node.children()) {
    // A copy: the recursion appends to `out`, which may reallocate.
    const std::string path = Dotted(prefix, c.key);
    out.push_back(path);
    SectionPaths(*c.node, path, out);
  }
}

// Where a key path leads in the schema.
struct Target {
  std::string path;                             // full dotted path from the root
  const ParamDecl* param = nullptr;             // set for a key
  const SchemaNode* section = nullptr;          // set for a section
};

// Errors of single keys one pass reports at most.
constexpr size_t kMaxConfigErrors = 20;

class ExperimentLoader {
 public:
  explicit ExperimentLoader(const SchemaNode& root) : root_(root) {
    CHECK(root.FindParam(kIncludeKey) == nullptr && root.FindChild(kIncludeKey) == nullptr)
        << "the root config schema must not declare the reserved key 'include'";
    CHECK(root.FindParam(kSweepKey) == nullptr && root.FindChild(kSweepKey) == nullptr)
        << "the root config schema must not declare the reserved key 'sweep'";
    candidates_ = root.AllKeys();
    SectionPaths(root, "", candidates_);
  }

  Result<std::vector<ResolvedConfig>> Load(const std::string& path, const std::vector<std::string>& overrides) {
    if (Status st = LoadFile(path, path, nullptr); !st.ok()) return Collected(std::move(st));
    for (const std::string& o : overrides) {
      if (Full()) break;
      if (Status st = ApplyOverride(o); !st.ok()) errors_.push_back(std::move(st));
    }
    FS_RETURN_IF_ERROR(Collected(Status::Ok()));
    return Expand();
  }

 private:
  struct Axis {
    std::string key;
    SourceLoc loc;
    std::vector<ResolvedConfig::Entry> values;
  };
  // Keys seen in the file being read, to reject a key set twice there.
  struct FileScope {
    std::string display;                      // the file's name in messages
    std::map<std::string, SourceLoc> set;     // key path -> where set
    std::map<std::string, SourceLoc> swept;   // key path -> where swept
  };

  // Reads one file: its includes first, then its own keys, then its sweep.
  // `from` is the include directive that named it (null for the top file).
  Status LoadFile(const fs::path& path, const std::string& display, const SourceLoc* from) {
    if (++files_loaded_ > kMaxFiles) {
      return Error(*from, fmt::format("more than {} config files loaded; check the includes", kMaxFiles));
    }
    const std::string prefix = from ? from->ToString() + ": include '" + display + "'" : display;
    std::error_code ec;
    if (!fs::exists(path, ec)) return Status::InvalidInput(prefix + ": cannot open config file: no such file");
    if (fs::is_directory(path, ec)) return Status::InvalidInput(prefix + ": is a directory, not a config file");
    // Devices and pipes could be endless (/dev/zero).
    if (!fs::is_regular_file(path, ec)) return Status::InvalidInput(prefix + ": is not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return Status::InvalidInput(
          fmt::format("{}: cannot open config file: {}", prefix, std::error_code(errno, std::generic_category()).message()));
    }
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string content = buf.str();

    config_text::YamlDocument doc = config_text::ParseYamlDocument(content);
    if (!doc.ok) return Error(LocOf(display, doc.error_mark), doc.error);
    if (doc.node.IsNull()) return Status::Ok();  // an empty file is an empty config
    const YAML::Node& top = doc.node;
    if (!top.IsMap()) {
      return Error(LocOf(display, top.Mark()),
                   fmt::format("the top level must be a map of keys, not {}", ShapeName(top)));
    }
    FS_RETURN_IF_ERROR(CheckDuplicates(top, display));

    // Canonical names detect include cycles however a path is spelled.
    const fs::path canonical = fs::weakly_canonical(path, ec);
    const std::string id = ec ? path.lexically_normal().string() : canonical.string();
    for (size_t i = 0; i < stack_.size(); ++i) {
      if (stack_[i].first == id) {
        std::vector<std::string> chain;
        for (size_t j = i; j < stack_.size(); ++j) chain.push_back(stack_[j].second);
        chain.push_back(display);
        return Error(*from, "include cycle: " + config_text::Join(chain, " -> "));
      }
    }
    stack_.emplace_back(id, display);

    FileScope scope;
    scope.display = display;
    for (const auto& kv : top) {
      if (kv.first.Scalar() != kIncludeKey) continue;
      FS_RETURN_IF_ERROR(LoadIncludes(kv.first, kv.second, path, display));
    }
    FS_RETURN_IF_ERROR(WalkSection(top, root_, "", scope, /*file_top=*/true));
    for (const auto& kv : top) {
      if (kv.first.Scalar() != kSweepKey) continue;
      if (kv.second.IsNull()) continue;
      if (!kv.second.IsMap()) {
        return Error(LocOf(display, kv.second.Mark()),
                     fmt::format("sweep: expected a map of key -> list of values, got {}", ShapeName(kv.second)));
      }
      FS_RETURN_IF_ERROR(WalkSweep(kv.second, root_, "", scope));
    }
    stack_.pop_back();
    return Status::Ok();
  }

  Status LoadIncludes(const YAML::Node& key, const YAML::Node& value, const fs::path& path,
                      const std::string& display) {
    std::vector<YAML::Node> items;
    if (value.IsNull()) return Status::Ok();
    if (value.IsScalar()) {
      items.push_back(value);
    } else if (value.IsSequence()) {
      for (const YAML::Node& item : value) items.push_back(item);
    } else {
      return Error(LocOf(display, value.Mark()),
                   fmt::format("include: expected a path or a list of paths, got {}", ShapeName(value)));
    }
    for (const YAML::Node& item : items) {
      const SourceLoc loc = LocOf(display, item.Mark());
      if (!item.IsScalar() || item.Scalar().empty()) {
        return Error(loc, fmt::format("include: expected a file path, got {}", item.IsScalar() ? "''" : ShapeName(item)));
      }
      const fs::path rel(item.Scalar());
      const fs::path target = rel.is_absolute() ? rel : path.parent_path() / rel;
      const std::string shown =
          rel.is_absolute() ? rel.string() : (fs::path(display).parent_path() / rel).lexically_normal().string();
      FS_RETURN_IF_ERROR(LoadFile(target, shown, &loc));
    }
    return Status::Ok();
  }

  Status CheckDuplicates(const YAML::Node& map, const std::string& display) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& kv : map) {
      if (!kv.first.IsScalar()) {
        return Error(LocOf(display, kv.first.Mark()), fmt::format("a key must be a name, not {}", ShapeName(kv.first)));
      }
      const auto [it, inserted] = seen.emplace(kv.first.Scalar(), kv.first.Mark());
      if (!inserted) {
        return Error(LocOf(display, kv.first.Mark()),
                     fmt::format("duplicate key '{}' (first at line {})", Excerpt(kv.first.Scalar()),
                                 it->second.line + 1));
      }
    }
    return Status::Ok();
  }

  // Resolves the (possibly dotted) `key` written in the section `node` at
  // `prefix`, or explains why it is unknown.
  Result<Target> Resolve(const SchemaNode& node, const std::string& prefix, const std::string& key,
                         const SourceLoc& loc) {
    const SchemaNode* at = &node;
    std::string at_path = prefix;
    const std::vector<std::string> parts = SplitDots(key);
    for (size_t i = 0; i < parts.size(); ++i) {
      const bool last = i + 1 == parts.size();
      if (last) {
        if (const ParamDecl* d = at->FindParam(parts[i]); d != nullptr && !parts[i].empty()) {
          return Target{Dotted(at_path, parts[i]), d, nullptr};
        }
        if (const SchemaNode::RetiredKey* r = at->FindRetired(parts[i]); r != nullptr) {
          return Error(loc, fmt::format("{}: {}", Dotted(at_path, parts[i]), r->message));
        }
      }
      const SchemaNode::Child* c = parts[i].empty() ? nullptr : at->FindChild(parts[i]);
      if (c == nullptr) return UnknownKey(Dotted(prefix, key), *at, at_path, loc);
      at = c->node.get();
      at_path = Dotted(at_path, parts[i]);
    }
    return Target{at_path, nullptr, at};
  }

  // "unknown key 'x' — did you mean 'y'?", or the keys valid where it was written.
  Status UnknownKey(const std::string& path, const SchemaNode& section, const std::string& section_path,
                    const SourceLoc& loc) {
    std::string msg = fmt::format("unknown key '{}'", Excerpt(path));
    const std::string near = Suggest(path);
    if (!near.empty()) {
      msg += fmt::format(" — did you mean '{}'?", near);
    } else {
      std::vector<std::string> here;
      for (const ParamDecl& d : section.params()) here.push_back(d.key);
      for (const SchemaNode::Child& c : section.children()) here.push_back(c.key);
      if (section_path.empty()) here.insert(here.end(), {std::string(kIncludeKey), std::string(kSweepKey)});
      msg += fmt::format("; valid keys {}: {}", section_path.empty() ? "at the top level" : "in '" + section_path + "'",
                         config_text::Join(here, ", "));
    }
    return Error(loc, msg);
  }

  // The declared key (or section) the user most likely meant by `path`:
  // the same path up to letter case; else a path with the same number of
  // components, each within a typo of the declared one; else a key whose
  // last component matches (the key was put in the wrong section).
  std::string Suggest(const std::string& path) const {
    for (const std::string& c : candidates_) {
      if (config_text::EditDistance(path, c, /*fold_case=*/true) == 0) return c;
    }
    const std::vector<std::string> parts = SplitDots(path);
    std::string best;
    int best_score = 1 << 30;
    for (const std::string& c : candidates_) {
      const std::vector<std::string> cparts = SplitDots(c);
      if (cparts.size() != parts.size()) continue;
      int score = 0;
      for (size_t i = 0; i < parts.size() && score < best_score; ++i) {
        const int d = config_text::EditDistance(parts[i], cparts[i], /*fold_case=*/true);
        if (d > config_text::TypoBudget(cparts[i])) score = 1 << 30;
        else score += d;
      }
      if (score < best_score) {
        best_score = score;
        best = c;
      }
    }
    if (!best.empty()) return best;
    const std::string last = config_text::ToLower(parts.back());
    best_score = 1 << 30;
    for (const std::string& c : candidates_) {
      const std::vector<std::string> cparts = SplitDots(c);
      if (config_text::ToLower(cparts.back()) != last) continue;
      const int d = config_text::EditDistance(path, c, /*fold_case=*/true);
      if (d < best_score) {
        best_score = d;
        best = c;
      }
    }
    return best;
  }

  // Text of `v` as a value of `decl` (a list becomes its flow form), checked
  // with ParseParamValue. Errors name `path` and the place of `v`.
  Result<std::string> ValueText(const ParamDecl& decl, const std::string& path, const YAML::Node& v,
                                const SourceLoc& loc) {
    std::string text;
    if (v.IsNull()) {
      return Error(loc, fmt::format("{}: missing value{}", path,
                                    decl.kind == ParamKind::kString ? " (write \"\" for an empty string)" : ""));
    }
    if (decl.kind == ParamKind::kStringList) {
      std::vector<std::string> items;
      if (v.IsScalar()) {
        items.push_back(v.Scalar());
      } else if (v.IsSequence()) {
        for (const YAML::Node& item : v) {
          if (!item.IsScalar()) {
            return Error(LocOf(loc.file, item.Mark()),
                         fmt::format("{}: list items must be single values, got {}", path, ShapeName(item)));
          }
          items.push_back(item.Scalar());
        }
      } else {
        return Error(loc, fmt::format("{}: expected a list of values, got {}", path, ShapeName(v)));
      }
      text = internal::FormatStringList(items);
    } else {
      if (!v.IsScalar()) {
        return Error(loc, fmt::format("{}: expected a single {} value, got {}", path, ParamKindName(decl.kind),
                                      ShapeName(v)));
      }
      text = v.Scalar();
    }
    FS_RETURN_IF_ERROR(Check(decl, path, text, loc));
    return text;
  }

  static Status Check(const ParamDecl& decl, const std::string& path, const std::string& text, const SourceLoc& loc) {
    Result<ParamValue> parsed = ParseParamValue(decl, text);
    if (parsed.ok()) return Status::Ok();
    return Error(loc, fmt::format("{}: {} (got '{}')", path, parsed.status().message(), Excerpt(text)));
  }

  // Applies the keys of `map` (section `node` at `prefix`) from one file.
  Status WalkSection(const YAML::Node& map, const SchemaNode& node, const std::string& prefix, FileScope& scope,
                     bool file_top) {
    if (!file_top) FS_RETURN_IF_ERROR(CheckDuplicates(map, scope.display));
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      if (file_top && (key == kIncludeKey || key == kSweepKey)) continue;
      const SourceLoc key_loc = LocOf(scope.display, kv.first.Mark());
      if (Full()) return Status::Ok();
      Result<Target> resolved = Resolve(node, prefix, key, key_loc);
      if (!resolved.ok()) {
        errors_.push_back(resolved.status());
        continue;
      }
      const Target t = std::move(resolved).value();
      // A missing value has no place of its own; point at its key.
      const SourceLoc value_loc = kv.second.IsNull() ? key_loc : LocOf(scope.display, kv.second.Mark());
      if (t.section != nullptr) {
        if (kv.second.IsNull()) continue;  // "device:" with nothing below
        if (!kv.second.IsMap()) {
          return Error(value_loc, fmt::format("{}: is a section; expected a map of its keys, got {}{}", t.path,
                                              ShapeName(kv.second),
                                              kv.second.IsScalar() ? " '" + Excerpt(kv.second.Scalar()) + "'" : ""));
        }
        FS_RETURN_IF_ERROR(WalkSection(kv.second, *t.section, t.path, scope, false));
        continue;
      }
      if (const auto it = scope.set.find(t.path); it != scope.set.end()) {
        errors_.push_back(
            Error(key_loc, fmt::format("{}: set twice in this file (first at {})", t.path, it->second.ToString())));
        continue;
      }
      scope.set.emplace(t.path, key_loc);
      Result<std::string> text = ValueText(*t.param, t.path, kv.second, value_loc);
      if (!text.ok()) {
        errors_.push_back(text.status());
        continue;
      }
      values_[t.path] = ResolvedConfig::Entry{std::move(text).value(), value_loc};
    }
    return Status::Ok();
  }

  // Collects sweep axes from `map` (section `node` at `prefix`).
  Status WalkSweep(const YAML::Node& map, const SchemaNode& node, const std::string& prefix, FileScope& scope) {
    FS_RETURN_IF_ERROR(CheckDuplicates(map, scope.display));
    for (const auto& kv : map) {
      const SourceLoc key_loc = LocOf(scope.display, kv.first.Mark());
      FS_ASSIGN_OR_RETURN(const Target t, Resolve(node, prefix, kv.first.Scalar(), key_loc));
      const SourceLoc value_loc = LocOf(scope.display, kv.second.Mark());
      if (t.section != nullptr) {
        if (kv.second.IsNull()) continue;
        if (!kv.second.IsMap()) {
          return Error(value_loc, fmt::format("sweep: {}: is a section; expected a map of its keys, got {}", t.path,
                                              ShapeName(kv.second)));
        }
        FS_RETURN_IF_ERROR(WalkSweep(kv.second, *t.section, t.path, scope));
        continue;
      }
      if (const auto it = scope.swept.find(t.path); it != scope.swept.end()) {
        return Error(key_loc, fmt::format("sweep: {}: swept twice in this file (first at {})", t.path,
                                          it->second.ToString()));
      }
      scope.swept.emplace(t.path, key_loc);
      if (!kv.second.IsSequence() || kv.second.size() == 0) {
        return Error(value_loc, fmt::format("sweep: {}: expected a non-empty list of values, got {}{}", t.path,
                                            kv.second.IsSequence() ? "an empty list" : ShapeName(kv.second),
                                            kv.second.IsScalar() ? " '" + Excerpt(kv.second.Scalar()) + "'" : ""));
      }
      Axis axis{t.path, key_loc, {}};
      for (const YAML::Node& item : kv.second) {
        const SourceLoc item_loc = LocOf(scope.display, item.Mark());
        FS_ASSIGN_OR_RETURN(std::string text, ValueText(*t.param, t.path, item, item_loc));
        axis.values.push_back(ResolvedConfig::Entry{std::move(text), item_loc});
      }
      auto same = std::find_if(axes_.begin(), axes_.end(), [&](const Axis& a) { return a.key == axis.key; });
      if (same != axes_.end()) *same = std::move(axis);
      else axes_.push_back(std::move(axis));
    }
    return Status::Ok();
  }

  Status ApplyOverride(const std::string& o) {
    SourceLoc loc;
    loc.file = "--set " + Excerpt(o);
    const size_t eq = o.find('=');
    if (eq == std::string::npos) return Error(loc, "expected key=value");
    const size_t key_begin = o.find_first_not_of(' ');
    const size_t key_end = o.find_last_not_of(' ', eq - 1);
    if (eq == 0 || key_begin >= eq) return Error(loc, "expected key=value");
    const std::string key = o.substr(key_begin, key_end - key_begin + 1);
    std::string raw = o.substr(eq + 1);
    FS_ASSIGN_OR_RETURN(const Target t, Resolve(root_, "", key, loc));
    if (t.section != nullptr) {
      return Error(loc, fmt::format("'{}' is a section; --set needs a key such as '{}'", t.path,
                                    t.section->AllKeys(t.path).empty() ? t.path : t.section->AllKeys(t.path)[0]));
    }
    for (const Axis& a : axes_) {
      if (a.key == t.path) {
        return Error(loc, fmt::format("{}: key is also swept (at {}); remove it from sweep: or drop the --set",
                                      t.path, a.loc.ToString()));
      }
    }
    std::string text;
    const size_t first = raw.find_first_not_of(" \t");
    const char lead = first == std::string::npos ? '\0' : raw[first];
    if (lead == '[' || lead == '"' || lead == '\'') {
      const config_text::YamlDocument v = config_text::ParseYamlDocument(raw);
      if (!v.ok) return Error(loc, fmt::format("{}: not a valid YAML value: {}", t.path, v.error));
      FS_ASSIGN_OR_RETURN(text, ValueText(*t.param, t.path, v.node, loc));
    } else if (t.param->kind == ParamKind::kStringList) {
      text = internal::FormatStringList({raw});
      FS_RETURN_IF_ERROR(Check(*t.param, t.path, text, loc));
    } else {
      text = raw;
      FS_RETURN_IF_ERROR(Check(*t.param, t.path, text, loc));
    }
    values_[t.path] = ResolvedConfig::Entry{std::move(text), loc};
    return Status::Ok();
  }

  // The grid of runs: cartesian product of the axes, the last one fastest.
  Result<std::vector<ResolvedConfig>> Expand() const {
    uint64_t runs = 1;
    for (const Axis& a : axes_) {
      runs *= a.values.size();
      if (runs > kMaxRuns) {
        return Error(axes_.front().loc, fmt::format("sweep: expands to more than {} runs", kMaxRuns));
      }
    }
    std::vector<ResolvedConfig> out;
    out.reserve(runs);
    std::vector<size_t> idx(axes_.size(), 0);
    for (uint64_t r = 0; r < runs; ++r) {
      ResolvedConfig cfg;
      cfg.values = values_;
      std::vector<std::string> label;
      for (size_t a = 0; a < axes_.size(); ++a) {
        const ResolvedConfig::Entry& e = axes_[a].values[idx[a]];
        cfg.values[axes_[a].key] = e;
        cfg.sweep_keys.push_back(axes_[a].key);
        label.push_back(axes_[a].key + "=" + e.text);
      }
      cfg.sweep_label = config_text::Join(label, ",");
      out.push_back(std::move(cfg));
      for (size_t a = axes_.size(); a-- > 0;) {
        if (++idx[a] < axes_[a].values.size()) break;
        idx[a] = 0;
      }
    }
    return out;
  }

  // Errors of single keys (unknown, bad value, set twice) are collected so
  // that one pass reports them all, up to kMaxConfigErrors; an error that
  // stops the reading (a file that cannot be read, a YAML syntax error, a
  // section of the wrong shape) ends the pass. One message per line.
  bool Full() const { return errors_.size() >= kMaxConfigErrors; }
  Status Collected(Status stop) {
    if (errors_.empty()) return stop;
    if (!stop.ok()) errors_.push_back(std::move(stop));
    std::string msg;
    const size_t shown = std::min(errors_.size(), kMaxConfigErrors);
    for (size_t i = 0; i < shown; ++i) msg += (i ? "\n" : "") + errors_[i].message();
    if (errors_.size() > 1) {
      msg += fmt::format("\n{} errors{}", shown, Full() ? fmt::format(" (the first {}; fix them and check again)",
                                                                      kMaxConfigErrors)
                                                         : "");
    }
    return Status::InvalidInput(msg);
  }
  std::vector<Status> errors_;

  const SchemaNode& root_;
  std::vector<std::string> candidates_;                     // every key and section path, for suggestions
  std::map<std::string, ResolvedConfig::Entry> values_;     // explicitly set keys so far
  std::vector<Axis> axes_;                                  // sweep axes in declaration order
  std::vector<std::pair<std::string, std::string>> stack_;  // include chain: (canonical id, display name)
  size_t files_loaded_ = 0;
};

}  // namespace

Result<std::vector<ResolvedConfig>> LoadExperiment(const SchemaNode& root, const std::string& path,
                                                   const std::vector<std::string>& overrides) {
  ExperimentLoader loader(root);
  try {
    return loader.Load(path, overrides);
  } catch (const YAML::Exception& e) {
    // Parsing catches syntax errors; this guards the tree walk all the same.
    return Status::InvalidInput(fmt::format("{}: {}", LocOf(path, e.mark).ToString(), e.msg));
  }
}

}  // namespace sim
