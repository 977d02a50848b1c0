// Registry<Entry>: the one name -> implementation table of the project.
//
// Every swappable piece (FTL kinds, GC victim policies, allocation schemes,
// die schedulers, file systems, workload kinds, trace formats, filebench
// personalities, access distributions) is an interface header plus one .cc
// per implementation. The .cc registers itself by name at static
// initialisation:
//
//   const sim::Registrar<VictimPolicyInfo> kRegistered{{"greedy", "fewest valid pages", &MakeGreedy}};
//
// and users look it up by name:
//
//   FS_ASSIGN_OR_RETURN(const VictimPolicyInfo* info, sim::Registry<VictimPolicyInfo>::Get().Lookup(name, "victim policy"));
//
// Contract:
// - Entry is a plain struct with a `name` member (std::string or const char*)
//   and whatever the interface needs (a factory, a description, a config
//   section: see ImplConfig in sim/config.h).
// - Names are unique per Entry type (a duplicate CHECK-fails at start-up)
//   and listed in sorted order, so iteration never depends on static
//   initialisation order.
// - Registration happens before main(); lookups may happen any time after.
//   Libraries are linked whole-archive (CMakeLists.txt), so a registering
//   object file is never dropped by the linker.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <glog/logging.h>

#include "sim/status.h"

namespace sim {

template <class Entry>
class Registry {
 public:
  // The registry of this entry type (one per process).
  static Registry& Get() {
    static Registry* r = new Registry();  // never destroyed: lookups may run during static destruction
    return *r;
  }

  // CHECK-fails on an empty or duplicate name.
  void Add(Entry e) {
    const std::string name(e.name);
    CHECK(!name.empty()) << "registry entry without a name";
    auto [it, inserted] = by_name_.emplace(name, std::move(e));
    CHECK(inserted) << "'" << name << "' registered twice";
    sorted_.clear();
  }

  // The entry named `name`, or nullptr.
  const Entry* Find(std::string_view name) const {
    auto it = by_name_.find(std::string(name));
    return it == by_name_.end() ? nullptr : &it->second;
  }

  // The entry named `name`, or InvalidInput "unknown <what> 'x'; choices: a, b".
  Result<const Entry*> Lookup(std::string_view name, std::string_view what) const {
    if (const Entry* e = Find(name)) return e;
    return Status::InvalidInput("unknown " + std::string(what) + " '" + std::string(name) +
                                "'; choices: " + JoinedNames());
  }

  // Every entry, sorted by name.
  const std::vector<const Entry*>& entries() const {
    if (sorted_.size() != by_name_.size()) {
      sorted_.clear();
      for (const auto& [name, e] : by_name_) sorted_.push_back(&e);
    }
    return sorted_;
  }

  std::vector<std::string> Names() const {
    std::vector<std::string> names;
    for (const auto& [name, e] : by_name_) names.push_back(name);
    return names;
  }

  std::string JoinedNames() const {
    std::string out;
    for (const auto& [name, e] : by_name_) out += (out.empty() ? "" : ", ") + name;
    return out;
  }

 private:
  Registry() = default;
  std::map<std::string, Entry, std::less<>> by_name_;
  mutable std::vector<const Entry*> sorted_;
};

// Registers an entry when constructed; define one per implementation file
// at namespace scope.
template <class Entry>
struct Registrar {
  explicit Registrar(Entry e) { Registry<Entry>::Get().Add(std::move(e)); }
};

}  // namespace sim
