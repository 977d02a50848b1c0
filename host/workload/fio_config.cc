#include "host/workload/fio_config.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace host {

namespace {

struct RwMode {
  const char* name;
  bool sequential;
  bool mixed;         // reads and writes, split by rwmixread
  ssd::BlockOp op;    // the single op when !mixed
};
constexpr RwMode kRwModes[] = {
    {"read", true, false, ssd::BlockOp::kRead},       {"write", true, false, ssd::BlockOp::kWrite},
    {"trim", true, false, ssd::BlockOp::kTrim},       {"randread", false, false, ssd::BlockOp::kRead},
    {"randwrite", false, false, ssd::BlockOp::kWrite}, {"randtrim", false, false, ssd::BlockOp::kTrim},
    {"rw", true, true, ssd::BlockOp::kRead},          {"readwrite", true, true, ssd::BlockOp::kRead},
    {"randrw", false, true, ssd::BlockOp::kRead},
};

std::vector<std::string> RwNames() {
  std::vector<std::string> v;
  for (const RwMode& m : kRwModes) v.push_back(m.name);
  return v;
}

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) {
    if (!s.empty()) s += ", ";
    s += x;
  }
  return s;
}

std::string Pct(double fraction) { return fmt::format("{:.6g}%", fraction * 100.0); }

// "4096 bytes (4KiB)"-style text for messages.
std::string BytesText(uint64_t b) {
  if (b >= (1u << 10) && b % (1u << 10) == 0) {
    if (b % (1u << 30) == 0) return fmt::format("{}GiB", b >> 30);
    if (b % (1u << 20) == 0) return fmt::format("{}MiB", b >> 20);
    return fmt::format("{}KiB", b >> 10);
  }
  return fmt::format("{} bytes", b);
}

sim::Result<uint64_t> ParseBytes(std::string_view text) {
  sim::ParamDecl d;
  d.kind = sim::ParamKind::kBytes;
  FS_ASSIGN_OR_RETURN(sim::ParamValue v, sim::ParseParamValue(d, text));
  return v.u;
}

sim::Result<double> ParseFraction(std::string_view text) {
  sim::ParamDecl d;
  d.kind = sim::ParamKind::kRatio;
  FS_ASSIGN_OR_RETURN(sim::ParamValue v, sim::ParseParamValue(d, text));
  return v.d;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A byte count or a percentage of `whole` ("25%"): percentages round down
// to a multiple of `round_to`; byte counts are returned as given.
struct Amount {
  bool percent = false;
  uint64_t bytes = 0;
};
sim::Result<Amount> ParseAmount(std::string_view text, uint64_t whole, uint64_t round_to) {
  text = Trim(text);
  if (!text.empty() && text.back() == '%') {
    FS_ASSIGN_OR_RETURN(double f, ParseFraction(text));
    if (f < 0 || f > 1) return sim::Status::InvalidInput("percentage must be within 0%..100%");
    const auto b = static_cast<uint64_t>(std::floor(f * static_cast<double>(whole)));
    return Amount{true, b / round_to * round_to};
  }
  FS_ASSIGN_OR_RETURN(uint64_t b, ParseBytes(text));
  return Amount{false, b};
}

constexpr double kSumTolerance = 1e-6;

}  // namespace

void FioConfig::Describe(sim::Schema<FioConfig>& s) {
  s.Choice("rw", &FioConfig::rw, "randread", RwNames(),
           "I/O pattern: sequential read/write/trim, random randread/randwrite/randtrim, mixed rw "
           "(=readwrite, sequential) or randrw");
  s.Param("rwmixread", &FioConfig::rwmixread, "50%", "Mixed patterns: fraction of reads among reads+writes");
  s.Param("trim_ratio", &FioConfig::trim_ratio, "0%",
          "Fraction of I/Os issued as trims in read/write patterns (a randtrim mix)");
  s.Param("bs", &FioConfig::bs, "4KiB", "Block size of every I/O (unless bssplit is set)");
  s.Param("bssplit", &FioConfig::bssplit, "[]",
          "Block-size mix as \"<size>/<percent>\" entries, e.g. [\"4KiB/67%\", \"8KiB/33%\"]; an entry "
          "without a percent shares the remainder; overrides bs");
  s.Param("blockalign", &FioConfig::blockalign, "0",
          "Random offsets are multiples of this from the range start; 0 = the smallest block size");
  s.Param("iodepth", &FioConfig::iodepth, "1", "I/Os each job keeps in flight").Range(1, 65536);
  s.Param("numjobs", &FioConfig::numjobs, "1", "Independent jobs (one RNG stream and queue slot set each)")
      .Range(1, 4096);
  s.Param("offset", &FioConfig::offset, "0",
          "Start of the address range: bytes (\"1GiB\") or a percentage of the device capacity (\"10%\")");
  s.Param("size", &FioConfig::size, "0",
          "Length of the address range: bytes or a percentage of the capacity; 0 = up to the device end");
  s.Choice("distribution", &FioConfig::distribution, "uniform", AccessDistributionNames(),
           "Random patterns: how offsets are drawn over the range; a distribution's parameters sit in its "
           "section (zipf.theta, hotcold.*, zoned.zones)");
  s.Implementations(&FioConfig::distributions, AccessDistributionSections());
  s.Param("rate_iops", &FioConfig::rate_iops, "0", "Per-job IOPS cap (open-loop arrivals); 0 = no cap").Min(0);
  s.Param("rate_bw", &FioConfig::rate_bw, "0B/s", "Per-job bandwidth cap (open-loop arrivals); 0 = no cap");
  s.Choice("arrival", &FioConfig::arrival, "fixed", {"fixed", "poisson"},
           "Rate-limited jobs: evenly spaced arrivals, or exponential gaps with the same mean");
  s.Param("total_ios", &FioConfig::total_ios, "0", "Stop after this many reads/writes/trims over all jobs; 0 = "
          "no bound");
  s.Param("io_size", &FioConfig::io_size, "0", "Stop after this many bytes over all jobs; 0 = no bound");
  s.Param("runtime", &FioConfig::runtime, "0s", "Stop issuing this long after the start; 0 = no bound");
  s.Param("ramp_time", &FioConfig::ramp_time, "0s", "Statistics ignore I/Os completed within this time");
  s.Param("jobfile", &FioConfig::jobfile, "",
          "A fio job file: each [job] runs as a flow of its own (workload.flows), starting from this section's "
          "values; options the model cannot honour are errors");
  s.Param("fsync", &FioConfig::fsync, "0", "Issue a flush after every this many writes of a job; 0 = never");
  s.Choice("zonemode", &FioConfig::zonemode, "none", {"none", "zbd"},
           "fio's zonemode (zbd.c): none = offsets as drawn; zbd = on a zoned device (ftl.kind: zns) every "
           "write goes to the write pointer of an open zone, a full zone is reset when written again, reads "
           "only below write pointers (docs/ZNS.md)");
  s.Param("max_open_zones", &FioConfig::max_open_zones, "0",
          "zonemode zbd: zones written at once over all jobs (fio's max_open_zones), split evenly among the "
          "jobs; at most the device's max open (and active) zones; 0 = the device's max open zones, else its "
          "max active zones, else no limit");
  s.Param("zone_reset_threshold", &FioConfig::zone_reset_threshold, "100%",
          "zonemode zbd: written fraction of the range above which zones are reset at zone_reset_frequency "
          "(fio's zone_reset_threshold, default 1)");
  s.Param("zone_reset_frequency", &FioConfig::zone_reset_frequency, "0%",
          "zonemode zbd: above zone_reset_threshold, reset the zone a write goes to once every 1/frequency "
          "writes (fio's zone_reset_frequency, default 0 = never)");
  s.Param("read_beyond_wp", &FioConfig::read_beyond_wp, "false",
          "zonemode zbd: reads go where drawn, beyond write pointers too (fio's read_beyond_wp); false = reads "
          "only written data");
}

sim::Status FioConfig::Validate(uint64_t capacity, uint32_t sector_size, std::string_view path) const {
  return ResolveFio(*this, capacity, sector_size, path).status();
}

sim::Result<FioPlan> ResolveFio(const FioConfig& cfg, uint64_t capacity, uint32_t sector_size,
                                std::string_view path) {
  const sim::KeyErrors err(path);
  CHECK_GT(sector_size, 0u);
  FioPlan plan;

  // ---- pattern and op mix
  const RwMode* mode = nullptr;
  for (const RwMode& m : kRwModes) {
    if (cfg.rw == m.name) mode = &m;
  }
  if (mode == nullptr) {
    return err("rw", fmt::format("unknown pattern '{}'; choices: {}", cfg.rw, Join(RwNames())));
  }
  if (!(cfg.rwmixread.value >= 0 && cfg.rwmixread.value <= 1)) {
    return err("rwmixread", fmt::format("{} is outside 0%..100%", Pct(cfg.rwmixread.value)));
  }
  if (!(cfg.trim_ratio.value >= 0 && cfg.trim_ratio.value <= 1)) {
    return err("trim_ratio", fmt::format("{} is outside 0%..100%", Pct(cfg.trim_ratio.value)));
  }
  plan.sequential = mode->sequential;
  if (mode->op == ssd::BlockOp::kTrim) {
    plan.p_trim = 1;
  } else {
    plan.p_trim = cfg.trim_ratio.value;
    const double rest = 1 - plan.p_trim;
    const double read_share = mode->mixed ? cfg.rwmixread.value : (mode->op == ssd::BlockOp::kRead ? 1.0 : 0.0);
    plan.p_read = rest * read_share;
    plan.p_write = rest - plan.p_read;
  }

  // ---- block sizes
  auto check_size = [&](std::string_view key, uint64_t b) -> sim::Status {
    if (b == 0) return err(key, "block size must be positive");
    if (b % sector_size != 0) {
      return err(key, fmt::format("{} is not a multiple of the device sector size ({} bytes)", BytesText(b),
                                  sector_size));
    }
    return sim::Status::Ok();
  };
  if (cfg.bssplit.empty()) {
    FS_RETURN_IF_ERROR(check_size("bs", cfg.bs.value));
    plan.sizes.push_back({cfg.bs.value, 1.0});
  } else {
    double given = 0;
    size_t open = 0;  // entries without a percentage
    for (size_t i = 0; i < cfg.bssplit.size(); ++i) {
      const std::string& entry = cfg.bssplit[i];
      const std::string key = fmt::format("bssplit[{}]", i);
      const size_t slash = entry.rfind('/');
      const std::string_view size_text = Trim(std::string_view(entry).substr(0, slash));
      const std::string_view pct_text =
          slash == std::string::npos ? std::string_view() : Trim(std::string_view(entry).substr(slash + 1));
      sim::Result<uint64_t> b = ParseBytes(size_text);
      if (!b.ok()) return err(key, fmt::format("bad size in '{}': {}", entry, b.status().message()));
      FS_RETURN_IF_ERROR(check_size(key, *b));
      double f = -1;
      if (!pct_text.empty()) {
        sim::Result<double> r = ParseFraction(pct_text);
        if (!r.ok()) return err(key, fmt::format("bad percentage in '{}': {}", entry, r.status().message()));
        f = *r;
        if (f < 0 || f > 1) return err(key, fmt::format("percentage in '{}' is outside 0%..100%", entry));
        given += f;
      } else {
        ++open;
      }
      plan.sizes.push_back({*b, f});
    }
    if (given > 1 + kSumTolerance) {
      return err("bssplit", fmt::format("percentages sum to {}, must be 100%", Pct(given)));
    }
    if (open == 0 && given < 1 - kSumTolerance) {
      return err("bssplit", fmt::format("percentages sum to {}, must be 100%", Pct(given)));
    }
    for (FioPlan::BlockSize& s : plan.sizes) {
      if (s.fraction < 0) s.fraction = std::max(0.0, 1 - given) / static_cast<double>(open);
    }
    // Entries with 0% are legal but never drawn; drop them.
    std::erase_if(plan.sizes, [](const FioPlan::BlockSize& s) { return s.fraction <= 0; });
    if (plan.sizes.empty()) return err("bssplit", "every percentage is 0%");
  }
  plan.min_bs = plan.max_bs = plan.sizes[0].bytes;
  for (const FioPlan::BlockSize& s : plan.sizes) {
    plan.min_bs = std::min(plan.min_bs, s.bytes);
    plan.max_bs = std::max(plan.max_bs, s.bytes);
  }
  if (cfg.blockalign.value == 0) {
    plan.align = plan.min_bs;
  } else {
    FS_RETURN_IF_ERROR(check_size("blockalign", cfg.blockalign.value));
    plan.align = cfg.blockalign.value;
  }

  // ---- jobs
  if (cfg.iodepth == 0) return err("iodepth", "must be at least 1");
  if (cfg.numjobs == 0) return err("numjobs", "must be at least 1");
  plan.iodepth = cfg.iodepth;
  plan.numjobs = cfg.numjobs;

  // ---- address range
  if (capacity < sector_size) return err("size", "the device has no capacity");
  sim::Result<Amount> off = ParseAmount(cfg.offset, capacity, plan.align);
  if (!off.ok()) return err("offset", fmt::format("'{}': {}", cfg.offset, off.status().message()));
  if (!off->percent && off->bytes % sector_size != 0) {
    return err("offset", fmt::format("{} is not a multiple of the device sector size ({} bytes)",
                                     BytesText(off->bytes), sector_size));
  }
  if (off->bytes >= capacity) {
    return err("offset", fmt::format("{} is at or beyond the device capacity {}", BytesText(off->bytes),
                                     BytesText(capacity)));
  }
  plan.range_start = off->bytes;
  sim::Result<Amount> len = ParseAmount(cfg.size, capacity, plan.align);
  if (!len.ok()) return err("size", fmt::format("'{}': {}", cfg.size, len.status().message()));
  uint64_t range_len = len->bytes;
  if (!len->percent && range_len == 0) {
    range_len = (capacity - plan.range_start) / sector_size * sector_size;  // to the device end
  } else if (!len->percent && range_len % sector_size != 0) {
    return err("size", fmt::format("{} is not a multiple of the device sector size ({} bytes)",
                                   BytesText(range_len), sector_size));
  }
  if (range_len > capacity - plan.range_start) {
    return err("size", fmt::format("offset {} + size {} exceeds the device capacity {}",
                                   BytesText(plan.range_start), BytesText(range_len), BytesText(capacity)));
  }
  if (range_len < plan.max_bs) {
    return err("size", fmt::format("the range ({}) is smaller than the largest block size {}",
                                   BytesText(range_len), BytesText(plan.max_bs)));
  }
  plan.range_end = plan.range_start + range_len;
  if (plan.sequential) {
    const uint64_t stripe = range_len / plan.numjobs / sector_size * sector_size;
    plan.stripe_len = stripe;
    if (stripe < plan.max_bs) {
      return err("numjobs", fmt::format("{} sequential stripes of the {} range are smaller than the block "
                                        "size {}",
                                        plan.numjobs, BytesText(range_len), BytesText(plan.max_bs)));
    }
  }
  if (range_len < plan.align) {
    return err("blockalign", fmt::format("{} is larger than the range ({})", BytesText(plan.align),
                                         BytesText(range_len)));
  }

  // ---- access distribution
  plan.distribution = cfg.distribution;
  plan.access_units = range_len / plan.align;
  plan.distributions = cfg.distributions;
  FS_RETURN_IF_ERROR(ValidateAccessDistributions(cfg.distribution, {plan.access_units, &plan.distributions}, path));

  // ---- rate
  if (!(cfg.rate_iops >= 0 && std::isfinite(cfg.rate_iops))) {
    return err("rate_iops", fmt::format("{} must be a non-negative number", cfg.rate_iops));
  }
  if (!(cfg.rate_bw.bytes_per_sec >= 0 && std::isfinite(cfg.rate_bw.bytes_per_sec))) {
    return err("rate_bw", "must be non-negative");
  }
  plan.rate_iops = cfg.rate_iops;
  plan.rate_bw = cfg.rate_bw.bytes_per_sec;
  if (cfg.arrival != "fixed" && cfg.arrival != "poisson") {
    return err("arrival", fmt::format("unknown arrival process '{}'; choices: fixed, poisson", cfg.arrival));
  }
  plan.poisson = cfg.arrival == "poisson";
  if (plan.poisson && !plan.open_loop()) {
    return err("arrival", "poisson arrivals need a rate: set rate_iops or rate_bw");
  }

  // ---- bounds
  if (cfg.io_size.value % sector_size != 0) {
    return err("io_size", fmt::format("{} is not a multiple of the device sector size ({} bytes)",
                                      BytesText(cfg.io_size.value), sector_size));
  }
  if (cfg.runtime < sim::SimTime::Zero()) return err("runtime", "must not be negative");
  if (cfg.ramp_time < sim::SimTime::Zero()) return err("ramp_time", "must not be negative");
  if (cfg.total_ios == 0 && cfg.io_size.value == 0 && cfg.runtime == sim::SimTime::Zero()) {
    return err("total_ios", "the workload never ends: set total_ios, io_size or runtime");
  }
  if (cfg.runtime > sim::SimTime::Zero() && cfg.ramp_time >= cfg.runtime) {
    return err("ramp_time", fmt::format("{} leaves nothing to measure within runtime {}",
                                        cfg.ramp_time.ToString(), cfg.runtime.ToString()));
  }
  plan.total_ios = cfg.total_ios;
  plan.io_size = cfg.io_size.value;
  plan.runtime = cfg.runtime;
  plan.ramp_time = cfg.ramp_time;
  plan.fsync = cfg.fsync;

  // ---- zonemode
  if (cfg.zonemode != "none" && cfg.zonemode != "zbd") {
    return err("zonemode", fmt::format("unknown zone mode '{}'; choices: none, zbd", cfg.zonemode));
  }
  for (const auto& [key, r] : {std::pair<const char*, double>{"zone_reset_threshold", cfg.zone_reset_threshold.value},
                               {"zone_reset_frequency", cfg.zone_reset_frequency.value}}) {
    if (!(r >= 0 && r <= 1)) return err(key, fmt::format("{} is outside 0%..100%", Pct(r)));
  }
  plan.zbd = cfg.zonemode == "zbd";
  if (plan.zbd && plan.p_trim > 0) {
    return err(cfg.trim_ratio.value > 0 ? "trim_ratio" : "rw",
               "trims with zonemode zbd are zone resets in fio (trim bs = zone size); not modelled, use "
               "zone_reset_frequency");
  }
  plan.max_open_zones = cfg.max_open_zones;
  plan.zone_reset_threshold = cfg.zone_reset_threshold.value;
  plan.zone_reset_frequency = cfg.zone_reset_frequency.value;
  plan.read_beyond_wp = cfg.read_beyond_wp;
  return plan;
}

uint32_t ZbdOpenLimit(const FioPlan& plan, const ssd::ZoneLayout& zones) {
  if (plan.max_open_zones > 0) return plan.max_open_zones;
  // A zone the workload writes is open, hence active: without an open
  // limit the active one bounds it.
  return zones.max_open > 0 ? zones.max_open : zones.max_active;
}

sim::Status CheckZbd(const FioPlan& plan, const ssd::ZoneLayout& zones, uint32_t page_size, std::string_view path) {
  if (!plan.zbd) return sim::Status::Ok();
  const sim::KeyErrors err(path);
  const uint64_t page = page_size;
  const uint64_t first = zones.conventional_pages * page;
  const uint64_t zone = zones.zone_pages * page;
  const uint64_t cap = zones.zone_capacity * page;
  const uint64_t end = first + zones.zones * zone;
  if (plan.range_start < first || (plan.range_start - first) % zone != 0) {
    return err("offset", fmt::format("with zonemode zbd the range must start on a zone: {} is not a zone start "
                                     "(zones of {} start at {}, after the conventional area)",
                                     BytesText(plan.range_start), BytesText(zone), BytesText(first)));
  }
  if (plan.range_end > end || (plan.range_end - first) % zone != 0) {
    return err("size", fmt::format("with zonemode zbd the range must end on a zone boundary: it ends at {}, "
                                   "zones are {} from {}",
                                   BytesText(plan.range_end), BytesText(zone), BytesText(first)));
  }
  for (const FioPlan::BlockSize& s : plan.sizes) {
    if (s.bytes % page != 0) {
      return err(plan.sizes.size() > 1 ? "bssplit" : "bs",
                 fmt::format("{} is not a multiple of the flash page ({} bytes): a zone takes whole pages",
                             BytesText(s.bytes), page));
    }
  }
  if (cap % plan.min_bs != 0) {
    return err(plan.sizes.size() > 1 ? "bssplit" : "bs",
               fmt::format("the smallest block size {} does not divide the zone capacity {}: fio would leave "
                           "the remainder of every zone unwritten and reset it",
                           BytesText(plan.min_bs), BytesText(cap)));
  }
  if (plan.max_bs > cap) {
    return err(plan.sizes.size() > 1 ? "bssplit" : "bs",
               fmt::format("{} exceeds the zone capacity {}", BytesText(plan.max_bs), BytesText(cap)));
  }
  if (zones.max_open > 0 && plan.max_open_zones > zones.max_open) {
    return err("max_open_zones", fmt::format("{} is larger than the device's max open zones {} (ftl.zns.max_open)",
                                             plan.max_open_zones, zones.max_open));
  }
  if (zones.max_active > 0 && plan.max_open_zones > zones.max_active) {
    return err("max_open_zones", fmt::format(
                                     "{} is larger than the device's max active zones {} (ftl.zns.max_active): a "
                                     "zone being written is active",
                                     plan.max_open_zones, zones.max_active));
  }
  const uint64_t range_zones = (plan.range_end - plan.range_start) / zone;
  if (range_zones < plan.numjobs) {
    return err("numjobs", fmt::format("{} jobs but the range holds {} zones: each job writes zones of its own",
                                      plan.numjobs, range_zones));
  }
  const uint32_t limit = ZbdOpenLimit(plan, zones);
  if (limit > 0 && limit < plan.numjobs) {
    return err(plan.max_open_zones > 0 ? "max_open_zones" : "numjobs",
               fmt::format("{} jobs but {} open zones: each job needs an open zone of its own", plan.numjobs,
                           limit));
  }
  if (plan.io_size % page != 0) {
    return err("io_size", fmt::format("{} is not a multiple of the flash page ({} bytes)", BytesText(plan.io_size),
                                      page));
  }
  return sim::Status::Ok();
}

}  // namespace host
