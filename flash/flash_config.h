// Configuration of the NAND array's timing and command execution.
//
// YAML layout (under device.flash):
//   timing:      { cell, tR, tR_csb, tR_msb, tPROG, tPROG_csb, tPROG_msb, tBERS, channel_rate, cmd_overhead }
//   multi_plane: { enabled, same_block, scan }
//   suspend:     { program, erase, program_latency, erase_latency, resume_latency, max_per_op }
//   cache_program, channel_arbitration, scheduler
//   <scheduler name>: { ... }   a scheduler's own parameters (e.g. parafs)
//
// Page types: a cell storing b bits (slc 1, mlc 2, tlc 3) gives pages of b
// types. Page p of a block has type p mod b (0 = LSB, 1 = CSB for tlc or MSB
// for mlc, 2 = MSB for tlc). This interleaving is a simplification of real
// word-line/page pairings; it only selects which tR/tPROG applies.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/config.h"
#include "flash/geometry.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace flash {

// Upper bound on planes per die supported by the array model.
inline constexpr uint32_t kMaxPlanesPerDie = 16;
// Bounds of the timing keys: one operation takes at most a second and a bus
// moves at least 1 MB/s, so a page transfer (<= 1 MiB) stays near a second
// too. Simulated time (int64 ns, +/- 292 years) then lasts for billions of
// operations.
inline constexpr double kMaxOpNs = 1e9;
inline constexpr double kMinRateBytesPerSec = 1e6;

struct FlashTimingConfig {
  std::string cell;              // "slc" | "mlc" | "tlc"
  sim::SimTime t_read;           // tR of LSB pages (all pages for slc)
  sim::SimTime t_read_csb;       // tlc only; 0 = same as tR
  sim::SimTime t_read_msb;       // mlc/tlc; 0 = same as tR
  sim::SimTime t_prog;           // tPROG of LSB pages (all pages for slc)
  sim::SimTime t_prog_csb;       // tlc only; 0 = same as tPROG
  sim::SimTime t_prog_msb;       // mlc/tlc; 0 = same as tPROG
  sim::SimTime t_erase;          // tBERS
  sim::Bandwidth channel_rate;   // bus data rate of one channel
  sim::SimTime cmd_overhead;     // channel time of the command + address cycles of one command

  static void Describe(sim::Schema<FlashTimingConfig>& s);

  uint32_t BitsPerCell() const;
  // Array times for a page at `page_in_block`. REQUIRES: a validated config.
  sim::SimTime ReadTime(uint32_t page_in_block) const;
  sim::SimTime ProgramTime(uint32_t page_in_block) const;
};

struct MultiPlaneConfig {
  bool enabled;
  // true: the commands of one multi-plane operation must address the same
  // block offset in every plane; false: any block, same page offset.
  bool same_block;
  // How many queued commands are examined when looking for a partner.
  uint32_t scan;
  static void Describe(sim::Schema<MultiPlaneConfig>& s);
};

struct SuspendConfig {
  bool program;                     // a foreground read may suspend a program
  bool erase;                       // a foreground read may suspend an erase
  sim::SimTime program_latency;     // time from suspend command until the die accepts a read
  sim::SimTime erase_latency;
  sim::SimTime resume_latency;      // added to the remaining array time on resume
  uint32_t max_per_op;              // suspensions allowed per operation; 0 = unlimited
  static void Describe(sim::Schema<SuspendConfig>& s);
};

struct FlashConfig {
  FlashTimingConfig timing;
  MultiPlaneConfig multi_plane;
  SuspendConfig suspend;
  // While a die runs tPROG, the next program's command and data may be
  // loaded into the cache register over the channel; its tPROG starts when
  // the current one ends.
  bool cache_program;
  // Order in which dies waiting for a channel get it:
  //  "cmd_first": command-only phases (read and erase command/address
  //     cycles) before data phases (program data-in, read data-out); FIFO
  //     within each class. Short commands start tR/tBERS early, which is
  //     what lets reads approach the channel bound.
  //  "fifo": one FIFO of all requests.
  std::string channel_arbitration;
  std::string scheduler;  // a registered DieScheduler name (see die_scheduler.h)
  // The sections of schedulers with parameters, by scheduler name
  // (scheduler_configs.Get<ParafsSchedulerConfig>("parafs")).
  sim::ImplConfigs scheduler_configs;

  static void Describe(sim::Schema<FlashConfig>& s);

  // Cross-key checks against the geometry (key paths relative to the flash
  // section, e.g. "timing.tR_csb: ..."). Returns InvalidInput on error.
  sim::Status Validate(const Geometry& geometry) const;
};

}  // namespace flash
