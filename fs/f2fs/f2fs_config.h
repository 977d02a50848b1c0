// F2fsConfig: every knob of the F2FS model (mkfs geometry, mount options,
// checkpoint/GC/discard/writeback thresholds, simulated CPU costs). Defaults
// are the kernel's (Linux 5.15 fs/f2fs, f2fs-tools mkfs); see the
// description of each key (`flashstack explain`) for the source.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fs/vfs/page_cache.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"
#include "sim/units.h"

namespace fs::f2fs {

// mkfs.f2fs parameters.
struct MkfsConfig {
  uint32_t segs_per_sec;
  uint32_t secs_per_zone;
  double overprovision;  // percent; 0 = choose the ratio maximising user space
  std::vector<std::string> cold_extensions;
  std::vector<std::string> hot_extensions;
  static void Describe(sim::Schema<MkfsConfig>& s);
};

struct CheckpointConfig {
  sim::SimTime interval;        // cp_interval
  sim::SimTime idle_interval;   // REQ_TIME: a request this recent with cp_rwsem held defers cp_interval
  uint32_t dirty_nodes_threshold;  // pages (excess_dirty_nodes)
  sim::Ratio dirty_nats_ratio;     // of max nid (excess_dirty_nats)
  sim::Ratio prefree_ratio;        // of main segments, capped at 4096 (excess_prefree_segs)
  bool background;                 // run the f2fs_balance_fs_bg triggers
  std::string bg_triggers;         // whose f2fs_balance_fs_bg: linux-5.15 | linux-4.15
  static void Describe(sim::Schema<CheckpointConfig>& s);
};

struct GcConfig {
  bool background;
  std::string bg_policy;  // victim policy of background GC
  std::string fg_policy;  // victim policy of foreground GC
  sim::SimTime min_sleep;
  sim::SimTime max_sleep;
  sim::SimTime no_gc_sleep;
  sim::SimTime idle_interval;
  uint32_t max_victim_search;
  // ATGC (age-threshold GC).
  sim::SimTime atgc_age_threshold;
  sim::Ratio atgc_candidate_ratio;
  uint32_t atgc_max_candidates;
  uint32_t atgc_age_weight;  // percent
  static void Describe(sim::Schema<GcConfig>& s);
};

// The discard thread and its policy (Linux 5.15 issue_discard_thread,
// __init_discard_policy(DPOLICY_BG / DPOLICY_UMOUNT)).
struct DiscardConfig {
  bool enabled;
  uint32_t max_requests;       // commands per round
  uint32_t granularity;        // blocks; shortest command the length classes issue
  uint32_t max_ordered;        // blocks; commands up to this long go in address order (0: none)
  uint32_t max_blocks;         // longest command (the device's largest discard)
  sim::SimTime min_interval;   // after a round that issued
  sim::SimTime mid_interval;   // after a round the file system's activity interrupted
  sim::SimTime max_interval;   // nothing to issue
  sim::SimTime idle_interval;  // no request for this long (and no I/O in flight): idle for discard
  sim::Ratio urgent_util;      // above this utilization: granularity 1, max_interval = min_interval
  sim::SimTime umount_timeout; // unmount issues pending discards for at most this long
  static void Describe(sim::Schema<DiscardConfig>& s);
};

// Simulated CPU time of file-system code paths.
struct CpuCostConfig {
  sim::SimTime syscall;             // fixed cost of every API call
  sim::SimTime memcpy_page;         // copying 4 KiB between user and page cache
  sim::SimTime dentry_block_search; // searching one dentry block (or inline area)
  sim::SimTime node_lookup;         // one step of a node-tree walk
  sim::SimTime fsync_scan_page;     // one dirty node page visited by the fsync node lookup
  sim::SimTime checkpoint_fixed;    // fixed CPU part of a checkpoint
  sim::SimTime gc_block;            // per block checked/moved by cleaning
  static void Describe(sim::Schema<CpuCostConfig>& s);
};

struct F2fsConfig {
  MkfsConfig mkfs;
  uint32_t active_logs;                 // 2, 4 or 6
  std::string mode;                     // adaptive | lfs
  std::string allocation;               // AllocationPolicy by name (allocation_policy.h)
  std::string durability;               // Durability mode by name (durability.h)
  std::vector<std::string> ipu_policy;  // force, ssr, util, ssr_util, fsync, async
  uint32_t min_fsync_blocks;
  sim::Ratio min_ipu_util;
  uint32_t min_hot_blocks;
  std::string fsync_mode;               // posix | strict | nobarrier
  std::string fsync_node_lookup;        // scan (kernel) | list (per-file dirty node list)
  bool inline_data;
  bool inline_dentry;
  bool fastboot;
  bool atgc;                            // age-threshold GC for migration (ATGC log)
  uint32_t io_queue;                    // device submission queue used by the FS
  sim::Bytes max_io;                    // largest merged request
  CheckpointConfig checkpoint;
  GcConfig gc;
  DiscardConfig discard;
  vfs::PageCacheConfig page_cache;
  CpuCostConfig cpu;
  // The sections of the implementations chosen by name (allocation
  // policies, durability modes).
  sim::ImplConfigs impl_configs;

  static void Describe(sim::Schema<F2fsConfig>& s);
  // Cross-key checks; messages name the key ("active_logs: ...").
  sim::Status Validate() const;
};

}  // namespace fs::f2fs
