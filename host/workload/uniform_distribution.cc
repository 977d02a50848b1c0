// "uniform": every slot equally likely.
#include "host/workload/access_distribution.h"

namespace host {

namespace {
class UniformDistribution final : public AccessDistribution {
 public:
  explicit UniformDistribution(uint64_t units) : units_(units) {}
  uint64_t Next(sim::Rng& rng) override { return rng.Uniform(units_); }

 private:
  uint64_t units_;
};
}  // namespace

std::unique_ptr<AccessDistribution> NewUniformDistribution(const AccessParams& p) {
  return std::make_unique<UniformDistribution>(p.units);
}

}  // namespace host
