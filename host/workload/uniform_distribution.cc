// "uniform": every slot equally likely.
#include "host/workload/access_distribution.h"
#include "sim/registry.h"

namespace host {

namespace {
class UniformDistribution final : public AccessDistribution {
 public:
  explicit UniformDistribution(uint64_t units) : units_(units) {}
  uint64_t Next(sim::Rng& rng) override { return rng.Uniform(units_); }

 private:
  uint64_t units_;
};

std::unique_ptr<AccessDistribution> Make(const AccessDistributionContext& ctx) {
  return std::make_unique<UniformDistribution>(ctx.units);
}
}  // namespace

const sim::Registrar<AccessDistributionInfo> kRegistered{{"uniform", "uniform over the range", nullptr, &Make, {}}};

}  // namespace host
