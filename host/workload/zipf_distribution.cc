// "zipf": slot k (0-based) with probability proportional to 1/(k+1)^theta.
#include <glog/logging.h>

#include "host/workload/access_distribution.h"
#include "host/workload/zipf.h"
#include "sim/registry.h"

namespace host {

namespace {
struct ZipfConfig {
  double theta = 0.99;
  static void Describe(sim::Schema<ZipfConfig>& s) {
    s.Param("theta", &ZipfConfig::theta, "0.99", "Exponent; block k of the range has weight 1/(k+1)^theta")
        .Range(1e-6, 100);
  }
};

class ZipfDistribution final : public AccessDistribution {
 public:
  ZipfDistribution(uint64_t units, double theta) : zipf_(units, theta) {}
  uint64_t Next(sim::Rng& rng) override { return zipf_.Next(rng); }

 private:
  ZipfSampler zipf_;
};

// theta needs no check beyond its declared range.
std::unique_ptr<AccessDistribution> Make(const AccessDistributionContext& ctx) {
  const double theta = ctx.params->Get<ZipfConfig>("zipf").theta;
  CHECK(theta > 0 && theta <= 100) << theta;
  return std::make_unique<ZipfDistribution>(ctx.units, theta);
}
}  // namespace

const sim::Registrar<AccessDistributionInfo> kRegistered{
    {"zipf", "zipf with exponent zipf.theta", nullptr, &Make,
     sim::ImplSection::Of<ZipfConfig>("zipf", "zipf access distribution (distribution: zipf)")}};

}  // namespace host
