#include "host/workload/access_distribution.h"

#include <cmath>

#include <glog/logging.h>

namespace host {

namespace {
struct Entry {
  const char* name;
  std::unique_ptr<AccessDistribution> (*make)(const AccessParams&);
};
// The registry: adding a distribution is one line here plus its .cc. A
// table rather than static self-registration, which a static library would
// drop at link time.
constexpr Entry kRegistry[] = {
    {"uniform", &NewUniformDistribution},
    {"zipf", &NewZipfDistribution},
    {"hotcold", &NewHotColdDistribution},
    {"zoned", &NewZonedDistribution},
};
}  // namespace

const std::vector<std::string>& AccessDistributionNames() {
  static const std::vector<std::string>* names = [] {
    auto* v = new std::vector<std::string>();
    for (const Entry& e : kRegistry) v->push_back(e.name);
    return v;
  }();
  return *names;
}

sim::Result<std::unique_ptr<AccessDistribution>> MakeAccessDistribution(std::string_view name,
                                                                        const AccessParams& params) {
  CHECK_GE(params.units, 1u);
  for (const Entry& e : kRegistry) {
    if (name == e.name) return e.make(params);
  }
  std::string choices;
  for (const Entry& e : kRegistry) {
    if (!choices.empty()) choices += ", ";
    choices += e.name;
  }
  return sim::Status::InvalidInput("unknown access distribution '" + std::string(name) + "'; choices: " +
                                   choices);
}

std::vector<uint64_t> ZoneBounds(const std::vector<AccessZone>& zones, uint64_t units) {
  std::vector<uint64_t> bounds(zones.size() + 1, 0);
  double cum = 0;
  for (size_t i = 0; i < zones.size(); ++i) {
    cum += zones[i].size;
    const double b = std::round(cum * static_cast<double>(units));
    bounds[i + 1] = b >= static_cast<double>(units) ? units : static_cast<uint64_t>(b);
  }
  bounds.back() = units;  // absorb rounding of the size sum
  return bounds;
}

}  // namespace host
