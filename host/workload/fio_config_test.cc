#include "host/workload/fio_config.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kCap = uint64_t{1} << 30;  // 1 GiB device
constexpr uint32_t kSector = 512;

FioConfig Valid() {
  FioConfig c;
  c.total_ios = 100;
  return c;
}

// The message of the error Validate() returns; "" when valid.
std::string Error(const FioConfig& c, uint64_t cap = kCap, uint32_t sector = kSector) {
  const sim::Status s = c.Validate(cap, sector, "workload");
  if (!s.ok()) {
    EXPECT_EQ(s.code(), sim::Status::Code::kInvalidInput);
  }
  return s.ok() ? "" : s.message();
}

// ---- Describe / defaults

TEST(FioConfigTest, DeclaredDefaultsMatchInClassValues) {
  const FioConfig d = sim::MakeDefault<FioConfig>();
  const FioConfig c;
  EXPECT_EQ(d.rw, c.rw);
  EXPECT_EQ(d.rwmixread, c.rwmixread);
  EXPECT_EQ(d.trim_ratio, c.trim_ratio);
  EXPECT_EQ(d.bs, c.bs);
  EXPECT_EQ(d.bssplit, c.bssplit);
  EXPECT_EQ(d.blockalign, c.blockalign);
  EXPECT_EQ(d.iodepth, c.iodepth);
  EXPECT_EQ(d.numjobs, c.numjobs);
  EXPECT_EQ(d.offset, c.offset);
  EXPECT_EQ(d.size, c.size);
  EXPECT_EQ(d.distribution, c.distribution);
  // The distributions' sections read as their declared defaults either way.
  for (const char* key : {"zipf.theta", "hotcold.hot_fraction", "hotcold.hot_ratio", "zoned.zones"}) {
    EXPECT_EQ(sim::GetKey(sim::SchemaOf<FioConfig>(), &d, key).value(),
              sim::GetKey(sim::SchemaOf<FioConfig>(), &c, key).value())
        << key;
  }
  EXPECT_EQ(d.rate_iops, c.rate_iops);
  EXPECT_EQ(d.rate_bw, c.rate_bw);
  EXPECT_EQ(d.arrival, c.arrival);
  EXPECT_EQ(d.total_ios, c.total_ios);
  EXPECT_EQ(d.io_size, c.io_size);
  EXPECT_EQ(d.runtime, c.runtime);
  EXPECT_EQ(d.ramp_time, c.ramp_time);
  EXPECT_EQ(d.fsync, c.fsync);
  EXPECT_EQ(d.jobfile, c.jobfile);
  EXPECT_EQ(d.zonemode, c.zonemode);
  EXPECT_EQ(d.max_open_zones, c.max_open_zones);
  EXPECT_EQ(d.zone_reset_threshold, c.zone_reset_threshold);
  EXPECT_EQ(d.zone_reset_frequency, c.zone_reset_frequency);
  EXPECT_EQ(d.read_beyond_wp, c.read_beyond_wp);
  EXPECT_EQ(sim::SchemaOf<FioConfig>().AllKeys().size(), 29u) << "a new key needs a line above";
}

TEST(FioConfigTest, DefaultsAloneNeverEnd) {
  EXPECT_EQ(Error(sim::MakeDefault<FioConfig>()),
            "workload.total_ios: the workload never ends: set total_ios, io_size or runtime");
}

TEST(FioConfigTest, BindsJesd219FromConfigText) {
  sim::ResolvedConfig rc;
  auto set = [&](const std::string& k, const std::string& v) { rc.values[k] = {v, sim::SourceLoc{"t.yaml", 1, 1}}; };
  set("rw", "randrw");
  set("rwmixread", "40%");
  set("iodepth", "256");
  set("numjobs", "4");
  set("blockalign", "4KiB");
  set("bssplit", "[512/4%, 1KiB/1%, 1536/1%, 2KiB/1%, 2560/1%, 3KiB/1%, 3584/1%, 4KiB/67%, 8KiB/10%, "
                 "16KiB/7%, 32KiB/3%, 64KiB/3%]");
  set("distribution", "zoned");
  set("zoned.zones", "[50%/5%, 30%/15%, 20%/80%]");
  set("runtime", "10s");
  set("rate_bw", "100MB/s");
  FioConfig c;
  const sim::Status bound = sim::Bind(sim::SchemaOf<FioConfig>(), rc, &c);
  ASSERT_TRUE(bound.ok()) << bound.message();
  auto plan = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  EXPECT_FALSE(plan->sequential);
  EXPECT_DOUBLE_EQ(plan->p_read, 0.4);
  EXPECT_DOUBLE_EQ(plan->p_write, 0.6);
  ASSERT_EQ(plan->sizes.size(), 12u);
  EXPECT_EQ(plan->sizes[2].bytes, 1536u);
  EXPECT_DOUBLE_EQ(plan->sizes[7].fraction, 0.67);
  EXPECT_EQ(plan->min_bs, 512u);
  EXPECT_EQ(plan->max_bs, 65536u);
  EXPECT_EQ(plan->align, 4096u);
  EXPECT_EQ(plan->distribution, "zoned");
  EXPECT_EQ(plan->access_units, kCap / 4096);
  EXPECT_EQ(sim::GetKey(sim::SchemaOf<FioConfig>(), &c, "zoned.zones").value(), "[50%/5%, 30%/15%, 20%/80%]");
  EXPECT_DOUBLE_EQ(plan->rate_bw, 100e6);
  EXPECT_EQ(plan->runtime, sim::Sec(10));
  EXPECT_EQ(plan->iodepth, 256u);
  EXPECT_EQ(plan->numjobs, 4u);
}

TEST(FioConfigTest, DumpRoundTripsLists) {
  FioConfig c = Valid();
  c.bssplit = {"4KiB/67%", "8KiB/33%"};
  const std::string yaml = sim::DumpYaml(sim::SchemaOf<FioConfig>(), &c);
  EXPECT_THAT(yaml, HasSubstr("4KiB/67%"));
  EXPECT_THAT(yaml, HasSubstr("rwmixread"));
}

// ---- resolution

TEST(FioConfigTest, OpProbabilities) {
  FioConfig c = Valid();
  c.rw = "randwrite";
  c.trim_ratio = sim::Ratio{0.25};
  auto p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok());
  EXPECT_DOUBLE_EQ(p->p_write, 0.75);
  EXPECT_DOUBLE_EQ(p->p_trim, 0.25);
  EXPECT_DOUBLE_EQ(p->p_read, 0);
  c.rw = "read";
  p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->sequential);
  EXPECT_DOUBLE_EQ(p->p_read, 0.75);
}

TEST(FioConfigTest, BssplitRemainderIsShared) {
  FioConfig c = Valid();
  c.bssplit = {"4KiB/50%", "8KiB/", "16KiB"};
  auto p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_EQ(p->sizes.size(), 3u);
  EXPECT_DOUBLE_EQ(p->sizes[1].fraction, 0.25);
  EXPECT_DOUBLE_EQ(p->sizes[2].fraction, 0.25);
}

TEST(FioConfigTest, RangeFromPercentagesAndDefaults) {
  FioConfig c = Valid();
  c.offset = "25%";
  auto p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->range_start, kCap / 4);
  EXPECT_EQ(p->range_end, kCap);  // size 0: to the end of the device
  c.size = "50%";
  p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->range_end, kCap / 4 * 3);
  c.rw = "write";
  c.numjobs = 4;
  p = ResolveFio(c, kCap, kSector);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->stripe_len, kCap / 8);
}

// ---- errors name the key

TEST(FioConfigTest, BssplitMustSumTo100) {
  FioConfig c = Valid();
  c.bssplit = {"4KiB/67%", "8KiB/10%", "16KiB/18%"};
  EXPECT_EQ(Error(c), "workload.bssplit: percentages sum to 95%, must be 100%");
  c.bssplit = {"4KiB/67%", "8KiB/40%"};
  EXPECT_EQ(Error(c), "workload.bssplit: percentages sum to 107%, must be 100%");
  c.bssplit = {"4KiB/67%", "8KiB/1O%"};
  EXPECT_THAT(Error(c), StartsWith("workload.bssplit[1]: bad percentage in '8KiB/1O%'"));
  c.bssplit = {"4k/100%"};
  EXPECT_THAT(Error(c), StartsWith("workload.bssplit[0]: bad size in '4k/100%'"));
  EXPECT_THAT(Error(c), HasSubstr("ambiguous"));
}

TEST(FioConfigTest, SizesMustBeSectorMultiples) {
  FioConfig c = Valid();
  c.bs = sim::Bytes{1000};
  EXPECT_EQ(Error(c), "workload.bs: 1000 bytes is not a multiple of the device sector size (512 bytes)");
  c.bs = sim::KiB(4);
  c.bssplit = {"4KiB/50%", "1536/50%"};
  EXPECT_EQ(Error(c, kCap, 4096),
            "workload.bssplit[1]: 1536 bytes is not a multiple of the device sector size (4096 bytes)");
  c.bssplit.clear();
  c.blockalign = sim::Bytes{100};
  EXPECT_THAT(Error(c), StartsWith("workload.blockalign: 100 bytes is not a multiple"));
}

TEST(FioConfigTest, RangeMustFitTheDevice) {
  FioConfig c = Valid();
  c.offset = "512MiB";
  c.size = "768MiB";
  EXPECT_EQ(Error(c), "workload.size: offset 512MiB + size 768MiB exceeds the device capacity 1GiB");
  c.offset = "1GiB";
  EXPECT_EQ(Error(c), "workload.offset: 1GiB is at or beyond the device capacity 1GiB");
  c.offset = "10%x";
  EXPECT_THAT(Error(c), StartsWith("workload.offset: '10%x': "));
  c.offset = "0";
  c.size = "2KiB";
  EXPECT_EQ(Error(c), "workload.size: the range (2KiB) is smaller than the largest block size 4KiB");
  c.size = "0";
  c.rw = "write";
  c.numjobs = 4;
  EXPECT_EQ(Error(c, 8192), "workload.numjobs: 4 sequential stripes of the 8KiB range are smaller than the "
                            "block size 4KiB");
}

// Sets `key` of `c` from config text.
void Set(FioConfig& c, std::string_view key, std::string_view text) {
  const sim::Status s = sim::SetKey(sim::SchemaOf<FioConfig>(), &c, key, text);
  ASSERT_TRUE(s.ok()) << key << ": " << s.message();
}

TEST(FioConfigTest, DistributionParametersSitInTheirSections) {
  const std::vector<std::string> keys = sim::SchemaOf<FioConfig>().AllKeys();
  for (const char* key : {"zipf.theta", "hotcold.hot_fraction", "hotcold.hot_ratio", "zoned.zones"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  EXPECT_EQ(sim::SchemaOf<FioConfig>().FindChild("uniform"), nullptr) << "uniform has no parameters";
}

TEST(FioConfigTest, DistributionParameters) {
  FioConfig c = Valid();
  // Values outside a key's declared range never reach Validate().
  EXPECT_THAT(sim::SetKey(sim::SchemaOf<FioConfig>(), &c, "zipf.theta", "0").message(), StartsWith("zipf.theta: "));
  EXPECT_THAT(sim::SetKey(sim::SchemaOf<FioConfig>(), &c, "hotcold.hot_ratio", "150%").message(),
              StartsWith("hotcold.hot_ratio: "));
  c.distribution = "zipf";
  Set(c, "zipf.theta", "1.2");
  EXPECT_EQ(Error(c), "");
  c.distribution = "uniform";
  Set(c, "hotcold.hot_fraction", "100%");
  EXPECT_EQ(Error(c), "");  // only the selected distribution's keys are checked
  c.distribution = "hotcold";
  EXPECT_EQ(Error(c), "workload.hotcold.hot_fraction: 100% must be strictly between 0% and 100%");
  Set(c, "hotcold.hot_fraction", "0%");
  EXPECT_EQ(Error(c), "workload.hotcold.hot_fraction: 0% must be strictly between 0% and 100%");
  Set(c, "hotcold.hot_fraction", "20%");
  EXPECT_EQ(Error(c), "");
  EXPECT_EQ(Error(c, 4096), "workload.hotcold.hot_fraction: the range has a single block; it cannot be split into "
                            "hot and cold parts");
  c.distribution = "pareto";
  EXPECT_EQ(Error(c), "workload.distribution: unknown distribution 'pareto'; choices: hotcold, uniform, zipf, zoned");
  c.distribution = "zoned";
  EXPECT_EQ(Error(c), "workload.zoned.zones: distribution=zoned needs at least one \"<access%>/<size%>\" zone");
  Set(c, "zoned.zones", "[50%/5%, 30%/15%, 10%/80%]");
  EXPECT_EQ(Error(c), "workload.zoned.zones: access percentages sum to 90%, must be 100%");
  Set(c, "zoned.zones", "[50%/5%, 30%/15%, 20%/70%]");
  EXPECT_EQ(Error(c), "workload.zoned.zones: size percentages sum to 90%, must be 100%");
  Set(c, "zoned.zones", "[50%/5%, 50%]");
  EXPECT_EQ(Error(c), "workload.zoned.zones[1]: '50%' is not \"<access%>/<size%>\"");
  Set(c, "zoned.zones", "[50%/0.00001%, 50%/99.99999%]");
  EXPECT_EQ(Error(c), "workload.zoned.zones[0]: '50%/0.00001%' covers no whole block of the 262144-block range");
  Set(c, "zoned.zones", "[50%/5%, 30%/15%, 20%/80%]");
  EXPECT_EQ(Error(c), "");
  c.distribution = "uniform";
  EXPECT_EQ(Error(c), "workload.zoned.zones: set, but distribution is 'uniform', not 'zoned'");
  c.distribution = "hotcold";
  Set(c, "hotcold.hot_fraction", "100%");
  EXPECT_EQ(Error(c), "workload.hotcold.hot_fraction: 100% must be strictly between 0% and 100%")
      << "the selected distribution's errors come first";
}

TEST(FioConfigTest, RateBoundsAndPatternErrors) {
  FioConfig c = Valid();
  c.arrival = "poisson";
  EXPECT_EQ(Error(c), "workload.arrival: poisson arrivals need a rate: set rate_iops or rate_bw");
  c.rate_iops = -1;
  EXPECT_EQ(Error(c), "workload.rate_iops: -1 must be a non-negative number");
  c = Valid();
  c.rw = "randomwrite";
  EXPECT_EQ(Error(c), "workload.rw: unknown pattern 'randomwrite'; choices: read, write, trim, randread, "
                      "randwrite, randtrim, rw, readwrite, randrw");
  c = Valid();
  c.runtime = sim::Ms(10);
  c.ramp_time = sim::Ms(10);
  EXPECT_EQ(Error(c), "workload.ramp_time: 10ms leaves nothing to measure within runtime 10ms");
  c = Valid();
  c.iodepth = 0;
  EXPECT_EQ(Error(c), "workload.iodepth: must be at least 1");
  c = Valid();
  c.io_size = sim::Bytes{1000};
  EXPECT_THAT(Error(c), StartsWith("workload.io_size: 1000 bytes is not a multiple"));
}

TEST(FioConfigTest, EmptyPathGivesBareKey) {
  FioConfig c = Valid();
  c.iodepth = 0;
  EXPECT_EQ(c.Validate(kCap, kSector).message(), "iodepth: must be at least 1");
}

}  // namespace
}  // namespace host
