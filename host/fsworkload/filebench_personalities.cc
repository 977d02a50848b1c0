#include "host/fsworkload/filebench_personalities.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "sim/registry.h"

namespace host {

const std::vector<Personality>& BuiltinPersonalities() {
  static const std::vector<Personality>* all = [] {
    auto* v = new std::vector<Personality>();
    for (const PersonalityFile* f : sim::Registry<PersonalityFile>::Get().entries()) {
      v->insert(v->end(), f->variants.begin(), f->variants.end());
    }
    return v;
  }();
  return *all;
}

std::vector<std::string> PersonalityNames() {
  std::set<std::string> names;
  for (const Personality& p : BuiltinPersonalities()) names.insert(std::string(p.name));
  return {names.begin(), names.end()};
}

sim::Result<const Personality*> FindPersonality(std::string_view name, std::string_view variant) {
  std::string variants;
  for (const Personality& p : BuiltinPersonalities()) {
    if (p.name != name) continue;
    if (p.variant == variant) return &p;
    variants += (variants.empty() ? "" : ", ") + std::string(p.variant);
  }
  if (variants.empty()) {
    std::string all;
    for (const std::string& n : PersonalityNames()) all += (all.empty() ? "" : ", ") + n;
    return sim::Status::InvalidInput(fmt::format("unknown personality '{}' (choices: {})", name, all));
  }
  return sim::Status::InvalidInput(
      fmt::format("personality '{}' has no '{}' variant (it has: {})", name, variant, variants));
}

}  // namespace host
