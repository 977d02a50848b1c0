#include "fs/f2fs/f2fs_config.h"

#include <fmt/format.h>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/parafs_2d_allocation_policy.h"
#include "fs/f2fs/victim_policy.h"

namespace fs::f2fs {

void MkfsConfig::Describe(sim::Schema<MkfsConfig>& s) {
  s.Param("segs_per_sec", &MkfsConfig::segs_per_sec, "1", "Segments per section (mkfs -s): the GC unit").Range(1, 512);
  s.Param("secs_per_zone", &MkfsConfig::secs_per_zone, "1", "Sections per zone (mkfs -z)").Range(1, 512);
  s.Param("overprovision", &MkfsConfig::overprovision, "0",
          "Over-provisioning percent (mkfs -o); 0 = the ratio that maximises user space, as mkfs picks it")
      .Range(0, 95);
  s.Param("cold_extensions", &MkfsConfig::cold_extensions,
          "[jpg, gif, png, avi, divx, mp4, mp3, 3gp, wmv, wma, mpeg, mkv, mov, asx, asf, wmx, svi, wvx, wm, mpg, "
          "mpe, rm, ogg, jpeg, video, apk]",
          "File extensions classified cold at create (mkfs media extension list)");
  s.Param("hot_extensions", &MkfsConfig::hot_extensions, "[]", "File extensions classified hot at create");
}

void CheckpointConfig::Describe(sim::Schema<CheckpointConfig>& s) {
  s.Param("interval", &CheckpointConfig::interval, "60s",
          "cp_interval: background checkpoint once this long passed since the last one, unless I/O is in "
          "flight or an operation of a recent request holds cp_rwsem (f2fs_balance_fs_bg)");
  s.Param("idle_interval", &CheckpointConfig::idle_interval, "5s",
          "idle_interval (REQ_TIME): a request within this long while an operation holds cp_rwsem defers "
          "the cp_interval checkpoint (f2fs_balance_fs_bg)");
  s.Param("dirty_nodes_threshold", &CheckpointConfig::dirty_nodes_threshold, "4096",
          "Checkpoint when dirty node pages reach this (8 segments, excess_dirty_nodes)");
  s.Param("dirty_nats_ratio", &CheckpointConfig::dirty_nats_ratio, "10%",
          "Checkpoint when dirty NAT entries reach this fraction of max nid (dirty_nats_ratio)");
  s.Param("prefree_ratio", &CheckpointConfig::prefree_ratio, "5%",
          "Checkpoint when prefree segments exceed this fraction of main segments, capped at 4096 "
          "(reclaim_segments)");
  s.Param("background", &CheckpointConfig::background, "true",
          "Run the background checkpoint triggers (f2fs_balance_fs_bg); off = checkpoints only on "
          "fsync/GC/sync/umount demand");
  s.Choice("bg_triggers", &CheckpointConfig::bg_triggers, "linux-5.15", {"linux-5.15", "linux-4.15"},
           "Which kernel's f2fs_balance_fs_bg decides background checkpoints. linux-5.15: excess dirty "
           "nodes (dirty_nodes_threshold), dirty NATs or prefree segments whatever the load; interval unless "
           "I/O is in flight or a recent operation holds cp_rwsem. linux-4.15 (the kernel of the fsync "
           "dirty-node-list paper): nothing unless the device is idle (no request in flight and none for "
           "idle_interval) or dirty NATs are in excess; then excess prefree or dirty NATs, or interval; no "
           "dirty-node trigger");
}

void GcConfig::Describe(sim::Schema<GcConfig>& s) {
  s.Param("background", &GcConfig::background, "true", "Background cleaning thread (background_gc=on)");
  s.Choice("bg_policy", &GcConfig::bg_policy, "cost_benefit", VictimPolicyNames(),
           "Victim selection of background cleaning");
  s.Choice("fg_policy", &GcConfig::fg_policy, "greedy", VictimPolicyNames(),
           "Victim selection of foreground cleaning");
  // The threads' sleeps are positive: at 0 a thread would wake at one
  // simulated instant for ever (the kernel's are at least a jiffy).
  s.Param("min_sleep", &GcConfig::min_sleep, "30s", "gc_min_sleep_time (at least 1us)").Min(1000);
  s.Param("max_sleep", &GcConfig::max_sleep, "60s", "gc_max_sleep_time (at least 1us)").Min(1000);
  s.Param("no_gc_sleep", &GcConfig::no_gc_sleep, "300s",
          "gc_no_gc_sleep_time: sleep after a round with no victim (at least 1us)").Min(1000);
  s.Param("idle_interval", &GcConfig::idle_interval, "5s", "gc_idle_interval: idle time before background GC runs");
  s.Param("max_victim_search", &GcConfig::max_victim_search, "4096",
          "Dirty segments examined per background victim search");
  s.Param("atgc_age_threshold", &GcConfig::atgc_age_threshold, "604800s",
          "ATGC: sections younger than this are not candidates (7 days)");
  s.Param("atgc_candidate_ratio", &GcConfig::atgc_candidate_ratio, "20%",
          "ATGC: fraction of the oldest sections examined");
  s.Param("atgc_max_candidates", &GcConfig::atgc_max_candidates, "10", "ATGC: minimum number of candidates examined");
  s.Param("atgc_age_weight", &GcConfig::atgc_age_weight, "60", "ATGC: weight of age vs. valid blocks (percent)")
      .Range(0, 100);
}

void DiscardConfig::Describe(sim::Schema<DiscardConfig>& s) {
  s.Param("enabled", &DiscardConfig::enabled, "true",
          "discard mount option (on when the device supports discard): blocks a checkpoint frees are queued "
          "and trimmed by the discard thread");
  s.Param("max_requests", &DiscardConfig::max_requests, "8",
          "max_discard_request (DEF_MAX_DISCARD_REQUEST): discard commands issued per round").Min(1);
  s.Param("granularity", &DiscardConfig::granularity, "16",
          "discard_granularity in blocks (DEFAULT_DISCARD_GRANULARITY): the background thread's length classes "
          "issue no shorter command; 1 above urgent_util").Range(1, 512);
  s.Param("max_ordered", &DiscardConfig::max_ordered, "16",
          "Commands of at most this many blocks are issued in address order after the longer ones "
          "(__issue_discard_cmd_orderly; 5.15 uses DEFAULT_DISCARD_GRANULARITY and checks no length there); "
          "0 = no ordered phase, so granularity holds for every command").Range(0, 512);
  s.Param("max_blocks", &DiscardConfig::max_blocks, "536870911",
          "Longest discard command in blocks, merges included (the device's max_discard_sectors: the NVMe "
          "driver sets UINT_MAX sectors for a controller with DSM, i.e. 2^29 - 1 blocks)").Min(1);
  s.Param("min_interval", &DiscardConfig::min_interval, "50ms",
          "DEF_MIN_DISCARD_ISSUE_TIME: thread sleep after a round that issued (at least 1us)").Min(1000);
  s.Param("mid_interval", &DiscardConfig::mid_interval, "500ms",
          "DEF_MID_DISCARD_ISSUE_TIME: thread sleep after a round interrupted by I/O (once the idle interval "
          "has passed; at least 1us)").Min(1000);
  s.Param("max_interval", &DiscardConfig::max_interval, "60s",
          "DEF_MAX_DISCARD_ISSUE_TIME: thread sleep with nothing to issue (at least 1us)").Min(1000);
  s.Param("idle_interval", &DiscardConfig::idle_interval, "5s",
          "discard_idle_interval (DEF_IDLE_INTERVAL): commands go out only after this long without a file-system "
          "request and with no read, data write or flush in flight (is_idle(DISCARD_TIME))");
  s.Param("urgent_util", &DiscardConfig::urgent_util, "80%",
          "DEF_DISCARD_URGENT_UTIL: above this utilization the thread uses granularity 1 and min_interval "
          "instead of max_interval");
  s.Param("umount_timeout", &DiscardConfig::umount_timeout, "5s",
          "umount_discard_timeout (DEF_UMOUNT_DISCARD_TIMEOUT): unmount issues pending discards for at most this "
          "long, then drops the rest");
}

void CpuCostConfig::Describe(sim::Schema<CpuCostConfig>& s) {
  s.Param("syscall", &CpuCostConfig::syscall, "1us", "CPU time of entering/leaving the FS for any call");
  s.Param("memcpy_page", &CpuCostConfig::memcpy_page, "400ns", "CPU time to copy 4 KiB user <-> page cache");
  s.Param("dentry_block_search", &CpuCostConfig::dentry_block_search, "300ns",
          "CPU time to search one dentry block (or inline dentry area)");
  s.Param("node_lookup", &CpuCostConfig::node_lookup, "100ns", "CPU time of one step of a node-tree walk");
  s.Param("fsync_scan_page", &CpuCostConfig::fsync_scan_page, "250ns",
          "CPU time per dirty node page visited when fsync looks up the file's dirty nodes");
  s.Param("checkpoint_fixed", &CpuCostConfig::checkpoint_fixed, "50us", "Fixed CPU time of one checkpoint");
  s.Param("gc_block", &CpuCostConfig::gc_block, "1us", "CPU time per block examined or moved by cleaning");
}

void F2fsConfig::Describe(sim::Schema<F2fsConfig>& s) {
  s.Section("mkfs", &F2fsConfig::mkfs, "Volume geometry chosen at format time");
  s.Param("active_logs", &F2fsConfig::active_logs, "6", "active_logs mount option: 2, 4 or 6").Range(2, 6);
  s.Choice("mode", &F2fsConfig::mode, "adaptive", {"adaptive", "lfs"},
           "mode=: adaptive (SSR and IPU allowed) or lfs (strict log-structured)");
  s.Choice("allocation", &F2fsConfig::allocation, "default", AllocationPolicyNames(),
           "Block allocation policy: which log and segment a block goes to, SSR");
  s.Choice("durability", &F2fsConfig::durability, "checkpoint", DurabilityModeNames(),
           "How metadata changes become durable and when checkpoints are written");
  s.Param("ipu_policy", &F2fsConfig::ipu_policy, "[fsync]",
          "In-place-update policy bits: force, ssr, util, ssr_util, fsync, async (ignored in lfs mode)");
  s.Param("min_fsync_blocks", &F2fsConfig::min_fsync_blocks, "8",
          "fsync of a file with at most this many dirty pages updates in place (FSYNC policy)");
  s.Param("min_ipu_util", &F2fsConfig::min_ipu_util, "70%", "Utilization above which the UTIL policy updates in place");
  s.Param("min_hot_blocks", &F2fsConfig::min_hot_blocks, "16",
          "Writeback of a file with at most this many dirty pages goes to the hot data log");
  s.Choice("fsync_mode", &F2fsConfig::fsync_mode, "posix", {"posix", "strict", "nobarrier"},
           "fsync_mode mount option");
  s.Choice("fsync_node_lookup", &F2fsConfig::fsync_node_lookup, "scan", {"scan", "list"},
           "How fsync finds the file's dirty node pages: scan all dirty node pages (kernel) or a per-file "
           "dirty node list");
  s.Param("inline_data", &F2fsConfig::inline_data, "true", "Small files keep their data in the inode");
  s.Param("inline_dentry", &F2fsConfig::inline_dentry, "true", "Small directories keep dentries in the inode");
  s.Param("fastboot", &F2fsConfig::fastboot, "false", "fastboot mount option: every fsync writes a checkpoint");
  s.Param("atgc", &F2fsConfig::atgc, "false", "atgc mount option: cleaning migrates into the age-threshold log");
  s.Param("io_queue", &F2fsConfig::io_queue, "0", "Device submission queue the file system uses");
  s.Param("max_io", &F2fsConfig::max_io, "512KiB", "Largest merged block request").Min(4096);
  s.Section("checkpoint", &F2fsConfig::checkpoint, "Checkpoint triggers");
  s.Section("gc", &F2fsConfig::gc, "Cleaning (garbage collection)");
  s.Section("discard", &F2fsConfig::discard, "Discard (TRIM) of freed blocks");
  s.Section("page_cache", &F2fsConfig::page_cache, "Page cache and writeback");
  s.Section("cpu", &F2fsConfig::cpu, "Simulated CPU costs of file-system code");
  std::vector<sim::ImplSection> impls = AllocationPolicySections();
  for (sim::ImplSection& d : DurabilitySections()) impls.push_back(std::move(d));
  s.Implementations(&F2fsConfig::impl_configs, impls);
}

sim::Status F2fsConfig::Validate() const {
  if (active_logs != 2 && active_logs != 4 && active_logs != 6)
    return sim::Status::InvalidInput(fmt::format("active_logs: {} is not one of 2, 4, 6", active_logs));
  static const char* kBits[] = {"force", "ssr", "util", "ssr_util", "fsync", "async"};
  for (const std::string& b : ipu_policy) {
    bool ok = false;
    for (const char* k : kBits) ok = ok || b == k;
    if (!ok)
      return sim::Status::InvalidInput(
          fmt::format("ipu_policy: unknown bit '{}'; use force, ssr, util, ssr_util, fsync, async", b));
  }
  if (page_cache.dirty_background_ratio.value > page_cache.dirty_ratio.value)
    return sim::Status::InvalidInput("page_cache.dirty_background_ratio: above dirty_ratio");
  if (gc.min_sleep > gc.max_sleep) return sim::Status::InvalidInput("gc.min_sleep: above gc.max_sleep");
  if (max_io.value % 4096) return sim::Status::InvalidInput("max_io: not a multiple of 4 KiB");
  const JournalConfig& j = impl_configs.Get<JournalConfig>("journal");
  if (j.records == "namespace" && j.fsync != "rollforward")
    return sim::Status::InvalidInput(fmt::format(
        "journal.records: namespace journals no data, so fsync cannot commit it (journal.fsync is '{}'); set "
        "journal.fsync: rollforward",
        j.fsync));
  if (!j.commit_wait && (j.fsync != "rollforward" || j.barrier))
    return sim::Status::InvalidInput(fmt::format(
        "journal.commit_wait: false acknowledges no commit; it needs journal.fsync: rollforward (is '{}') and "
        "journal.barrier: false (is {})",
        j.fsync, j.barrier));
  if (allocation != "parafs_2d") {
    // ParaFS's mechanisms act on regions, which only its allocation makes.
    const Parafs2dConfig& p = impl_configs.Get<Parafs2dConfig>("parafs_2d");
    if (p.gc_threads != "single")
      return sim::Status::InvalidInput(fmt::format(
          "parafs_2d.gc_threads: '{}' cleans per region, and only the parafs_2d allocation has regions "
          "(fs.f2fs.allocation is '{}')",
          p.gc_threads, allocation));
    if (p.dispatch != "round_robin")
      return sim::Status::InvalidInput(fmt::format(
          "parafs_2d.dispatch: '{}' places flash pages over regions, and only the parafs_2d allocation has "
          "regions (fs.f2fs.allocation is '{}')",
          p.dispatch, allocation));
  }
  return sim::Status::Ok();
}

}  // namespace fs::f2fs
