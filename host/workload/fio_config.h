// FioConfig: a fio-like block workload, in the project's config style.
//
// The keys follow fio's job-file names where one exists (rw, rwmixread, bs,
// bssplit, blockalign, iodepth, numjobs, offset, size, ramp_time, runtime,
// fsync) with our units ("4KiB", "70%", "10ms"). A job file such as
//
//   [JESD219]  rw=randrw rwmixread=40 iodepth=256 numjobs=4 blockalign=4k
//              bssplit=512/4:1024/1:...:4k/67:8k/10:16k/7:32k/3:64k/3
//              random_distribution=zoned:50/5:30/15:20/80
//
// reads in YAML as
//
//   workload:
//     rw: randrw
//     rwmixread: 40%
//     iodepth: 256
//     numjobs: 4
//     blockalign: 4KiB
//     bssplit: ["512/4%", "1KiB/1%", ..., "4KiB/67%", "8KiB/10%", "16KiB/7%", "32KiB/3%", "64KiB/3%"]
//     distribution: zoned
//     zoned:
//       zones: ["50%/5%", "30%/15%", "20%/80%"]
//     total_ios: 1000000
//
// Semantics that differ from fio, on purpose:
//  - total_ios and io_size bound the whole workload (all jobs together).
//  - Sequential jobs each own one stripe of the range (job i the i-th of
//    numjobs equal parts) and wrap inside it; random jobs share the range.
//  - Random I/O never uses a "random map": every draw is independent
//    (fio's norandommap).
//  - rate_iops and rate_bw are per job and both apply; arrivals are
//    open-loop (see FioGenerator).
//
// Describe() declares each key once; Validate() makes the cross-field
// checks against the device and names the offending key in its message.
// Each access distribution declares and checks its own keys in a section
// named after it (zipf.theta, hotcold.hot_fraction, hotcold.hot_ratio,
// zoned.zones).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host/workload/access_distribution.h"
#include "ssd/block_device.h"
#include "ssd/device_layout.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace host {

struct FioConfig {
  // In-class values equal the declared defaults (a test keeps them in step),
  // so a FioConfig{} built in code means the same as an empty YAML section.
  std::string rw = "randread";
  sim::Ratio rwmixread{0.5};
  sim::Ratio trim_ratio{0};
  sim::Bytes bs{4096};
  std::vector<std::string> bssplit;
  sim::Bytes blockalign{0};
  uint32_t iodepth = 1;
  uint32_t numjobs = 1;
  std::string offset = "0";
  std::string size = "0";
  std::string distribution = "uniform";
  // The access distributions' own sections (workload.fio.zipf.theta, ...),
  // declared by each distribution (access_distribution.h).
  sim::ImplConfigs distributions;
  double rate_iops = 0;
  sim::Bandwidth rate_bw{0};
  std::string arrival = "fixed";
  uint64_t total_ios = 0;
  sim::Bytes io_size{0};
  sim::SimTime runtime;
  sim::SimTime ramp_time;
  uint32_t fsync = 0;
  // A fio job file whose jobs run as flows (app/flows.h); "" = none.
  std::string jobfile;
  // fio's zoned-block-device mode (zonemode=zbd, fio's zbd.c), for a zoned
  // device: see FioGenerator's header for the semantics.
  std::string zonemode = "none";
  uint32_t max_open_zones = 0;
  sim::Ratio zone_reset_threshold{1};
  sim::Ratio zone_reset_frequency{0};
  bool read_beyond_wp = false;

  static void Describe(sim::Schema<FioConfig>& s);

  // Cross-field checks against a device of `capacity` bytes and
  // `sector_size`-byte sectors. Errors are InvalidInput "<path>.<key>:
  // problem" (just "<key>: problem" when `path` is empty), e.g.
  // "workload.bssplit: percentages sum to 95%, must be 100%".
  sim::Status Validate(uint64_t capacity, uint32_t sector_size, std::string_view path = "") const;
};

// The resolved form of a FioConfig for one device: parsed lists, absolute
// byte range, op probabilities. Produced only by ResolveFio().
struct FioPlan {
  struct BlockSize {
    uint64_t bytes = 0;
    double fraction = 0;
  };
  bool sequential = false;
  // Op probabilities; they sum to 1.
  double p_read = 0;
  double p_write = 0;
  double p_trim = 0;
  std::vector<BlockSize> sizes;  // non-empty; a single entry means a fixed bs
  uint64_t min_bs = 0;
  uint64_t max_bs = 0;
  uint64_t align = 0;        // random offsets are range_start + k * align
  uint64_t range_start = 0;  // bytes, multiple of align
  uint64_t range_end = 0;    // exclusive; range_end - range_start >= max_bs
  uint64_t stripe_len = 0;   // sequential: job i covers range_start + [i, i+1) * stripe_len
  std::string distribution;
  uint64_t access_units = 0;  // slots the distribution draws from: (range length) / align
  sim::ImplConfigs distributions;  // the distributions' own sections (FioConfig::distributions)
  uint32_t iodepth = 1;
  uint32_t numjobs = 1;
  double rate_iops = 0;      // per job; 0 = no IOPS cap
  double rate_bw = 0;        // bytes/s per job; 0 = no bandwidth cap
  bool poisson = false;
  uint64_t total_ios = 0;    // 0 = unbounded
  uint64_t io_size = 0;      // 0 = unbounded
  sim::SimTime runtime;      // zero = unbounded
  sim::SimTime ramp_time;
  uint32_t fsync = 0;
  // zonemode: zbd (the device-dependent checks are CheckZbd's).
  bool zbd = false;
  uint32_t max_open_zones = 0;  // as configured; 0 = the device's limit
  double zone_reset_threshold = 1;
  double zone_reset_frequency = 0;
  bool read_beyond_wp = false;

  bool open_loop() const { return rate_iops > 0 || rate_bw > 0; }
};

// Validates `cfg` (as FioConfig::Validate) and resolves it.
sim::Result<FioPlan> ResolveFio(const FioConfig& cfg, uint64_t capacity, uint32_t sector_size,
                                std::string_view path = "");

// The checks of a plan against a zoned device's layout (`page_size`-byte
// flash pages), as fio's zbd_setup_files / zbd_set_max_open_zones make them
// plus what this model needs: with zonemode zbd, the range starts and ends
// on zone boundaries inside the zone area, every block size is a multiple
// of the page size and min_bs divides the zone capacity, max_bs fits a
// zone, max_open_zones does not exceed the device's max open zones, every
// job gets at least one zone and one open zone. Errors name the key.
sim::Status CheckZbd(const FioPlan& plan, const ssd::ZoneLayout& zones, uint32_t page_size,
                     std::string_view path = "");
// The open-zone limit a zbd plan runs with (fio: max_open_zones, or the
// device's max open zones when 0; without one, its max active zones; 0 = no
// limit).
uint32_t ZbdOpenLimit(const FioPlan& plan, const ssd::ZoneLayout& zones);

}  // namespace host
