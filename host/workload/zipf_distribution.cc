// "zipf": slot k (0-based) with probability proportional to 1/(k+1)^theta.
#include "host/workload/access_distribution.h"
#include "host/workload/zipf.h"
#include "sim/registry.h"

namespace host {

namespace {
class ZipfDistribution final : public AccessDistribution {
 public:
  ZipfDistribution(uint64_t units, double theta) : zipf_(units, theta) {}
  uint64_t Next(sim::Rng& rng) override { return zipf_.Next(rng); }

 private:
  ZipfSampler zipf_;
};
}  // namespace

static std::unique_ptr<AccessDistribution> NewZipfDistribution(const AccessParams& p) {
  return std::make_unique<ZipfDistribution>(p.units, p.zipf_theta);
}

const sim::Registrar<AccessDistributionInfo> kRegistered{{"zipf", "zipf with exponent zipf_theta", &NewZipfDistribution}};

}  // namespace host
