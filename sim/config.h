// Typed configuration: every key is declared once, bound to a struct field.
//
// A component's configuration is a plain struct with defaults plus a static
// Describe() that declares each key exactly once with its type (from the
// field), unit, default (as text, parsed like user input) and a one-line
// description:
//
//   struct FlashTimingConfig {
//     sim::SimTime t_read;
//     sim::Bandwidth channel_rate;
//     uint32_t planes = 2;
//     std::string victim;
//     static void Describe(sim::Schema<FlashTimingConfig>& s) {
//       s.Param("tR", &FlashTimingConfig::t_read, "75us", "Array read time per page");
//       s.Param("channel_rate", &FlashTimingConfig::channel_rate, "333MB/s", "Channel bus rate");
//       s.Param("planes", &FlashTimingConfig::planes, "2", "Planes per die").Range(1, 16);
//       s.Choice("victim", &FlashTimingConfig::victim, "greedy", {"greedy", "fifo"}, "GC victim policy");
//     }
//   };
//
// Sections nest: s.Section("timing", &DeviceConfig::timing, "NAND timings")
// uses FlashTimingConfig::Describe for the sub-keys "timing.*". The root
// schema (the whole experiment) is assembled by the application, so the YAML
// tree mirrors the object tree. Defaults are applied by MakeDefault<T>() (or
// when binding a resolved config), never by in-class initializers alone: the
// declared default is the single source of truth that `flashstack explain`
// prints.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include <glog/logging.h>

#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace sim {

enum class ParamKind {
  kBool,
  kInt,       // signed integer count
  kUint,      // unsigned integer count
  kDouble,    // dimensionless real
  kDuration,  // SimTime, e.g. "75us"
  kBytes,     // Bytes, e.g. "2MiB"
  kBandwidth, // Bandwidth, e.g. "333MB/s"
  kRatio,     // Ratio, e.g. "7%" or 0.07
  kString,
  kChoice,    // string restricted to a declared list
  kStringList // sequence of strings, e.g. [a, b]
};

std::string_view ParamKindName(ParamKind k);  // "bool", "duration", ...

// Where a value came from, for error messages: "file:line:col".
struct SourceLoc {
  std::string file;  // config file path, "--set", or "<default>"
  int line = 0;      // 1-based; 0 when not applicable
  int col = 0;       // 1-based; 0 when not applicable
  std::string ToString() const;
};

// A parsed scalar ready to be stored into a field.
struct ParamValue {
  ParamKind kind = ParamKind::kString;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  SimTime t;
  std::string s;
  std::vector<std::string> list;
};

// One declared key.
struct ParamDecl {
  std::string key;  // last path component, e.g. "tR"
  ParamKind kind = ParamKind::kString;
  std::string default_text;
  std::string description;
  std::optional<double> min, max;  // inclusive, in the kind's base unit (ns, bytes, bytes/s, fraction)
  std::vector<std::string> choices;  // kChoice only
  // Stores a parsed value into the struct at `obj`.
  std::function<void(void* obj, const ParamValue&)> store;
  // Reads the field back as canonical text (for the resolved-config dump).
  std::function<std::string(const void* obj)> load;

  std::string unit() const;  // "ns", "bytes", "bytes/s", "fraction", "" …
};

// Parses `text` as a value of `decl` (units, range, choices). The error
// message is the problem only ("bad unit 'xs' for a duration; use ns, us,
// ms, s"); callers prefix the location and key path.
Result<ParamValue> ParseParamValue(const ParamDecl& decl, std::string_view text);

// Type-erased schema tree: params and nested sections.
class SchemaNode {
 public:
  struct Child {
    std::string key;
    std::string description;
    std::unique_ptr<SchemaNode> node;
    std::function<void*(void*)> access;  // parent struct -> member struct
    std::function<const void*(const void*)> caccess;
  };
  // A section of named entries (Schema<T>::Named): every key below it is
  // the name of one entry, each an instance of one declared section, e.g.
  // "workload.flows.reader.*" and "workload.flows.writer.*".
  struct NamedEntries {
    Child entry;  // key "<name>"; its access is unused (see Enter)
    // The entry `name` of the map at `obj`, created with its declared
    // defaults when absent.
    std::function<void*(void* obj, std::string_view name)> get;
    std::function<std::vector<std::string>(const void* obj)> names;  // sorted
    std::function<const void*(const void* obj, std::string_view name)> cget;  // REQUIRES: present
  };
  // A valid entry name: a letter, then letters, digits, '_' or '-' (at most 64).
  static bool ValidEntryName(std::string_view name);

  const std::vector<ParamDecl>& params() const { return params_; }
  const std::vector<Child>& children() const { return children_; }
  // Non-null for a section of named entries (it then has no params or
  // children of its own).
  const NamedEntries* named() const { return named_.get(); }
  void SetNamed(std::unique_ptr<NamedEntries> n) { named_ = std::move(n); }
  // The struct of child `c` (found by FindChild(key) on this node) inside
  // the struct at `obj`: c.access(obj), or the named entry `key`.
  void* Enter(const Child& c, void* obj, std::string_view key) const {
    return named_ ? named_->get(obj, key) : c.access(obj);
  }
  // `key` is one component ("tR") or a dotted path below this node
  // ("timing.tR"); nullptr when not declared.
  const ParamDecl* FindParam(std::string_view key) const;
  const Child* FindChild(std::string_view key) const;
  // A key this section no longer has, and what to write instead.
  struct RetiredKey {
    std::string key;      // one component, e.g. "time_scale"
    std::string message;  // the replacement, e.g. "renamed to 'speedup' ..."
  };
  const std::vector<RetiredKey>& retired() const { return retired_; }
  // The retired key `key` (one component) of this node; nullptr if none.
  const RetiredKey* FindRetired(std::string_view key) const;
  // Every leaf key path below this node ("device.timing.tR", ...), sorted
  // in declaration order.
  std::vector<std::string> AllKeys(const std::string& prefix = "") const;

 protected:
  std::vector<ParamDecl> params_;
  std::vector<Child> children_;
  std::vector<RetiredKey> retired_;
  std::unique_ptr<NamedEntries> named_;
};

namespace internal {
template <class F> constexpr ParamKind KindOf() {
  if constexpr (std::is_same_v<F, bool>) return ParamKind::kBool;
  else if constexpr (std::is_same_v<F, SimTime>) return ParamKind::kDuration;
  else if constexpr (std::is_same_v<F, Bytes>) return ParamKind::kBytes;
  else if constexpr (std::is_same_v<F, Bandwidth>) return ParamKind::kBandwidth;
  else if constexpr (std::is_same_v<F, Ratio>) return ParamKind::kRatio;
  else if constexpr (std::is_same_v<F, std::string>) return ParamKind::kString;
  else if constexpr (std::is_same_v<F, std::vector<std::string>>) return ParamKind::kStringList;
  else if constexpr (std::is_floating_point_v<F>) return ParamKind::kDouble;
  else if constexpr (std::is_integral_v<F> && std::is_signed_v<F>) return ParamKind::kInt;
  else if constexpr (std::is_integral_v<F> && std::is_unsigned_v<F>) return ParamKind::kUint;
  else static_assert(sizeof(F) == 0, "unsupported config field type");
}
template <class F> void Store(F& f, const ParamValue& v) {
  if constexpr (std::is_same_v<F, bool>) f = v.b;
  else if constexpr (std::is_same_v<F, SimTime>) f = v.t;
  else if constexpr (std::is_same_v<F, Bytes>) f = Bytes{v.u};
  else if constexpr (std::is_same_v<F, Bandwidth>) f = Bandwidth{v.d};
  else if constexpr (std::is_same_v<F, Ratio>) f = Ratio{v.d};
  else if constexpr (std::is_same_v<F, std::string>) f = v.s;
  else if constexpr (std::is_same_v<F, std::vector<std::string>>) f = v.list;
  else if constexpr (std::is_floating_point_v<F>) f = static_cast<F>(v.d);
  else if constexpr (std::is_signed_v<F>) f = static_cast<F>(v.i);
  else f = static_cast<F>(v.u);
}
// Canonical text of a field value (parseable back by ParseParamValue).
std::string FormatBool(bool v);
std::string FormatDuration(SimTime v);
std::string FormatBytes(Bytes v);
std::string FormatBandwidth(Bandwidth v);
std::string FormatRatio(Ratio v);
std::string FormatDouble(double v);
std::string FormatStringList(const std::vector<std::string>& v);
template <class F> std::string Format(const F& f) {
  if constexpr (std::is_same_v<F, bool>) return FormatBool(f);
  else if constexpr (std::is_same_v<F, SimTime>) return FormatDuration(f);
  else if constexpr (std::is_same_v<F, Bytes>) return FormatBytes(f);
  else if constexpr (std::is_same_v<F, Bandwidth>) return FormatBandwidth(f);
  else if constexpr (std::is_same_v<F, Ratio>) return FormatRatio(f);
  else if constexpr (std::is_same_v<F, std::string>) return f;
  else if constexpr (std::is_same_v<F, std::vector<std::string>>) return FormatStringList(f);
  else if constexpr (std::is_floating_point_v<F>) return FormatDouble(f);
  else return std::to_string(f);
}
}  // namespace internal

// One config struct per registered implementation of an interface (GC
// victim policies, FTL kinds, file systems, workload kinds, …), so each
// implementation declares its own section: `ftl.d_choices.d` belongs to the
// d_choices policy, `fs.f2fs.*` to F2FS. The parent struct holds an
// ImplConfigs and declares it with Schema<T>::Implementations(); the
// implementation reads its struct with Get<C>(name).
//
// Copies are deep. A section never bound (no default applied) reads as the
// declared defaults of C.
class ImplConfigs {
 public:
  struct Holder {
    virtual ~Holder() = default;
    virtual std::unique_ptr<Holder> Clone() const = 0;
    virtual void* get() = 0;
    virtual const std::type_info& type() const = 0;
  };
  template <class C>
  struct TypedHolder final : Holder {
    C value{};
    std::unique_ptr<Holder> Clone() const override { return std::make_unique<TypedHolder>(*this); }
    void* get() override { return &value; }
    const std::type_info& type() const override { return typeid(C); }
  };

  ImplConfigs() = default;
  ImplConfigs(const ImplConfigs& o) { *this = o; }
  ImplConfigs& operator=(const ImplConfigs& o) {
    if (this == &o) return *this;
    by_name_.clear();
    for (const auto& [name, h] : o.by_name_) by_name_.emplace(name, h->Clone());
    return *this;
  }
  ImplConfigs(ImplConfigs&&) = default;
  ImplConfigs& operator=(ImplConfigs&&) = default;

  // The config of implementation `name`. CHECK-fails if `name` was declared
  // with another type.
  template <class C>
  const C& Get(std::string_view name) const;
  template <class C>
  C& Mutable(std::string_view name) {
    return const_cast<C&>(Get<C>(name));
  }

  // The slot of `name`, created by `make` when absent (schema plumbing).
  void* Slot(const std::string& name, const std::function<std::unique_ptr<Holder>()>& make) const {
    auto it = by_name_.find(name);
    if (it == by_name_.end()) it = by_name_.emplace(name, make()).first;
    return it->second->get();
  }

 private:
  mutable std::map<std::string, std::unique_ptr<Holder>, std::less<>> by_name_;
};

// The section an implementation declares: its name (the section key), a
// description, and its config struct C (with static Describe(Schema<C>&)).
struct ImplSection {
  std::string name;
  std::string description;
  std::function<std::unique_ptr<SchemaNode>()> schema;
  std::function<std::unique_ptr<ImplConfigs::Holder>()> make;
  template <class C>
  static ImplSection Of(std::string name, std::string description);
};

template <class T>
T MakeDefault();

// Builder handed to T::Describe().
template <class T>
class Schema : public SchemaNode {
 public:
  // Handle to refine the declaration just made.
  class Ref {
   public:
    explicit Ref(ParamDecl* d) : d_(d) {}
    // Inclusive bounds in the kind's base unit (ns, bytes, bytes/s, fraction, count).
    Ref& Range(double lo, double hi) { d_->min = lo; d_->max = hi; return *this; }
    Ref& Min(double lo) { d_->min = lo; return *this; }
   private:
    ParamDecl* d_;
  };

  template <class F>
  Ref Param(std::string key, F T::*field, std::string default_text, std::string description) {
    ParamDecl d;
    d.key = std::move(key);
    d.kind = internal::KindOf<F>();
    d.default_text = std::move(default_text);
    d.description = std::move(description);
    if constexpr (std::is_integral_v<F> && !std::is_same_v<F, bool> && sizeof(F) < sizeof(int64_t)) {
      // Narrow integer fields: values that do not fit are rejected, never truncated.
      d.min = static_cast<double>(std::numeric_limits<F>::min());
      d.max = static_cast<double>(std::numeric_limits<F>::max());
    }
    d.store = [field](void* obj, const ParamValue& v) { internal::Store(static_cast<T*>(obj)->*field, v); };
    d.load = [field](const void* obj) { return internal::Format(static_cast<const T*>(obj)->*field); };
    params_.push_back(std::move(d));
    return Ref(&params_.back());
  }

  // A key that was removed or renamed, possibly with another meaning:
  // setting it is an error "<path>: <message>" (never silently unknown or
  // reinterpreted), and it is not listed among the valid keys.
  void Retired(std::string key, std::string message) {
    CHECK(FindParam(key) == nullptr) << "retired key '" << key << "' is also declared";
    retired_.push_back(RetiredKey{std::move(key), std::move(message)});
  }

  Ref Choice(std::string key, std::string T::*field, std::string default_text,
             std::vector<std::string> choices, std::string description) {
    Ref r = Param(std::move(key), field, std::move(default_text), std::move(description));
    params_.back().kind = ParamKind::kChoice;
    params_.back().choices = std::move(choices);
    return r;
  }

  // One section per implementation in `sections` (each under its own
  // name, directly below this node), stored in the ImplConfigs `member`.
  // Names must not collide with other keys of this node.
  void Implementations(ImplConfigs T::*member, const std::vector<ImplSection>& sections) {
    for (const ImplSection& sec : sections) {
      CHECK(FindChild(sec.name) == nullptr && FindParam(sec.name) == nullptr)
          << "implementation section '" << sec.name << "' collides with a key of its parent";
      auto make = sec.make;
      const std::string name = sec.name;
      children_.push_back(Child{sec.name, sec.description, sec.schema(),
                               [member, name, make](void* o) -> void* {
                                 return (static_cast<T*>(o)->*member).Slot(name, make);
                               },
                               [member, name, make](const void* o) -> const void* {
                                 return (static_cast<const T*>(o)->*member).Slot(name, make);
                               }});
    }
  }

  // A section of named entries: `key.<name>.*` for any entry name (see
  // SchemaNode::ValidEntryName), each an S (with Describe) holding its
  // declared defaults until set. The map is empty unless a config names
  // entries.
  template <class S>
  void Named(std::string key, std::map<std::string, S> T::*member, std::string description,
             std::string entry_description) {
    using Map = std::map<std::string, S>;
    auto entry_node = std::make_unique<Schema<S>>();
    S::Describe(*entry_node);
    auto named = std::make_unique<NamedEntries>();
    named->entry = Child{"<name>", std::move(entry_description), std::move(entry_node), nullptr, nullptr};
    named->get = [](void* obj, std::string_view name) -> void* {
      Map& m = *static_cast<Map*>(obj);
      auto it = m.find(std::string(name));
      if (it == m.end()) it = m.emplace(std::string(name), MakeDefault<S>()).first;
      return &it->second;
    };
    named->names = [](const void* obj) {
      std::vector<std::string> out;
      for (const auto& kv : *static_cast<const Map*>(obj)) out.push_back(kv.first);
      return out;
    };
    named->cget = [](const void* obj, std::string_view name) -> const void* {
      return &static_cast<const Map*>(obj)->at(std::string(name));
    };
    auto node = std::make_unique<SchemaNode>();
    node->SetNamed(std::move(named));
    children_.push_back(Child{std::move(key), std::move(description), std::move(node),
                             [member](void* o) -> void* { return &(static_cast<T*>(o)->*member); },
                             [member](const void* o) -> const void* {
                               return &(static_cast<const T*>(o)->*member);
                             }});
  }

  // A nested section; S must have `static void Describe(Schema<S>&)`.
  template <class S>
  void Section(std::string key, S T::*member, std::string description) {
    auto node = std::make_unique<Schema<S>>();
    S::Describe(*node);
    children_.push_back(Child{std::move(key), std::move(description), std::move(node),
                             [member](void* o) -> void* { return &(static_cast<T*>(o)->*member); },
                             [member](const void* o) -> const void* {
                               return &(static_cast<const T*>(o)->*member);
                             }});
  }
};

// Builds the errors of a section's cross-key Validate(): err("bs", "must be
// positive") is InvalidInput "<path>.bs: must be positive" ("bs: …" when the
// section path is empty). The CLI adds the file:line:col of that key.
class KeyErrors {
 public:
  explicit KeyErrors(std::string_view path) : path_(path) {}
  Status operator()(std::string_view key, std::string_view problem) const;

 private:
  std::string path_;
};

// Applies every declared default below `node` to `obj`. CHECK-fails if a
// declared default does not parse (a bug in a Describe()).
void ApplyDefaults(const SchemaNode& node, void* obj);

template <class T>
const SchemaNode& SchemaOf() {
  static const Schema<T>* schema = [] {
    auto* s = new Schema<T>();
    T::Describe(*s);
    return s;
  }();
  return *schema;
}

// A T with every declared default applied.
template <class T>
T MakeDefault() {
  T t{};
  ApplyDefaults(SchemaOf<T>(), &t);
  return t;
}

template <class C>
ImplSection ImplSection::Of(std::string name, std::string description) {
  ImplSection s;
  s.name = std::move(name);
  s.description = std::move(description);
  s.schema = [] {
    auto node = std::make_unique<Schema<C>>();
    C::Describe(*node);
    return std::unique_ptr<SchemaNode>(std::move(node));
  };
  s.make = [] {
    auto h = std::make_unique<ImplConfigs::TypedHolder<C>>();
    h->value = MakeDefault<C>();
    return std::unique_ptr<ImplConfigs::Holder>(std::move(h));
  };
  return s;
}

template <class C>
const C& ImplConfigs::Get(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) {
    auto h = std::make_unique<TypedHolder<C>>();
    h->value = MakeDefault<C>();
    it = by_name_.emplace(std::string(name), std::move(h)).first;
  }
  CHECK(it->second->type() == typeid(C)) << "config section '" << name << "' read as another type";
  return *static_cast<const C*>(it->second->get());
}

// ---------------------------------------------------------------------------
// Loading experiments.

// One fully resolved run: flat map of key path -> value text and where it
// came from (file:line:col, "--set", "sweep" or "<default>").
struct ResolvedConfig {
  struct Entry {
    std::string text;
    SourceLoc loc;
  };
  std::map<std::string, Entry> values;  // only keys that were set explicitly
  std::string sweep_label;              // "" or e.g. "ftl.op=7%,ftl.victim=fifo"
  std::vector<std::string> sweep_keys;  // the swept key paths, in declaration order
};

// Reads `path` (following `include:` lists, later files and the including
// file overriding earlier ones), applies `overrides` ("a.b.c=v", in order,
// overriding the file), validates every key and value against `root`, and
// expands a `sweep:` map (key path -> list of values) into the grid of runs
// (cartesian product, in declaration order). Errors are InvalidInput with
// "file:line:col: key path: problem" and, for an unknown key, the closest
// declared key ("did you mean 'device.timing.tR'?"). A swept key overrides
// the files; setting a swept key with --set is an error. The full rules
// (dotted keys, include paths, duplicates) are listed in config_loader.cc.
Result<std::vector<ResolvedConfig>> LoadExperiment(const SchemaNode& root, const std::string& path,
                                                   const std::vector<std::string>& overrides);

// Applies defaults then `cfg` to the struct at `obj` described by `root`.
Status Bind(const SchemaNode& root, const ResolvedConfig& cfg, void* obj);

// Parses `text` as the key `path` ("d_choices.d") of the struct at `obj`
// described by `root` and stores it, leaving every other field alone
// (tests and programmatic set-up; users go through LoadExperiment).
Status SetKey(const SchemaNode& root, void* obj, std::string_view path, std::string_view text);
// The canonical text of key `path` of the struct at `obj`.
Result<std::string> GetKey(const SchemaNode& root, const void* obj, std::string_view path);

// The complete resolved configuration of `obj` (every key, defaults
// included) as YAML text, nested like the schema.
std::string DumpYaml(const SchemaNode& root, const void* obj);

}  // namespace sim
