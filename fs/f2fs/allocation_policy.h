// AllocationPolicy: where F2FS writes a block — which active log (curseg)
// takes it, whether a full log may reuse invalid slots of a dirty segment
// (SSR), and which segment a log moves to when its segment is full.
//
// Contract:
// - DataLog/NodeLog name the log of one block from what the file system
//   knows of it (DataPlacement/NodePlacement). The log must be one of the
//   logs the configuration activates (active_logs; the ATGC log only with
//   the atgc option). Pure functions of their arguments and the config.
// - NeedSsr says whether logs may fall back to SSR now. The file system
//   also uses it for the in-place-update policy bits ssr and ssr_util.
// - NextSegment picks the segment log `t` of region `region` writes next;
//   the SegmentManager calls it when the log's segment is full or the log
//   opens, and applies the choice. A non-SSR choice must be a free segment; an SSR choice a
//   dirty segment (not free, no curseg, some valid block, SsrFreeSlots > 0).
//   kNullSegNo without SSR means the volume has no free section left (the
//   SegmentManager CHECK-fails: cleaning must have prevented it).
// - Policies read state only through the SegmentManager passed in, never
//   change it, and are deterministic.
// - Regions (ParaFS's 2-D allocation): a policy may split the main area's
//   sections into regions() regions (RegionOfSection; constant for the
//   volume's life), each with its own set of logs. A log type then stripes
//   its blocks over the regions: StripeBlocks() blocks in one region, then
//   NextRegion chooses the next. A choice for region r should be a segment
//   of region r; a policy may lend another region's segment when r has no
//   free one (the log then writes outside its region until it moves). A
//   policy without regions has exactly one and never stripes.
//
// Implementations (one .cc each), listed in AllocationPolicies():
//   default   the kernel's (allocate_segment_by_default, Linux 5.15):
//             temperature logs by active_logs (__get_segment_type_{2,4,6}),
//             SSR when free sections run short (f2fs_need_SSR, not in lfs
//             mode), else the next segment of the section or the next free
//             section after the current one, avoiding zones other logs use
//   parafs_2d ParaFS's 2-D allocation (parafs_2d_allocation_policy.cc):
//             regions = the device's flash channels, section = one flash
//             block; each region has its own temperature logs; a log
//             stripes flash page by flash page over the regions (round
//             robin, or to the least busy region with dispatch:
//             least_busy); LFS only (no SSR)
//
// Registration: an implementation .cc registers its AllocationPolicyInfo with
// sim::Registrar (sim/registry.h) and is chosen by name with the config key
// `fs.f2fs.allocation`; a policy with parameters declares them in `config`,
// a section named after the policy below `fs.f2fs`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/on_disk.h"
#include "sim/config.h"
#include "sim/status.h"
#include "ssd/device_layout.h"

namespace fs::f2fs {

class SegmentManager;

// A data (or dentry) block about to be written.
struct DataPlacement {
  bool is_dir = false;         // a dentry block
  bool cold_file = false;      // i_advise cold (cold extension or cleaning target)
  bool hot_file = false;       // hot extension
  bool hot_writeback = false;  // writeback of a file with few dirty pages (min_hot_blocks)
  bool gc_move = false;        // moved by cleaning
};

// A node block about to be written.
struct NodePlacement {
  bool dnode = false;       // direct node or inode (holds data addresses)
  bool file_dnode = false;  // dnode of a regular file (footer cold bit): the roll-forward chain
};

// The write-back pressure NeedSsr weighs against the free sections.
struct SpacePressure {
  uint64_t dirty_node_pages = 0;
  uint64_t dirty_dentry_pages = 0;
};

// The segment a log moves to.
struct SegmentChoice {
  SegNo segno = kNullSegNo;
  bool ssr = false;  // reuse free slots of a dirty segment
};

class AllocationPolicy {
 public:
  virtual ~AllocationPolicy() = default;
  virtual LogType DataLog(const DataPlacement& p) const = 0;
  virtual LogType NodeLog(const NodePlacement& p) const = 0;
  virtual bool NeedSsr(const SegmentManager& sm, const SpacePressure& p) const = 0;
  // `need_ssr`: NeedSsr's answer when the log filled up; false when a log
  // opens (mount, recovery), which always takes a free segment.
  virtual SegmentChoice NextSegment(const SegmentManager& sm, LogType t, uint32_t region, bool need_ssr) const = 0;

  // ---- Regions (see the contract above).
  virtual uint32_t regions() const { return 1; }
  // REQUIRES: sec < the layout's section_count.
  virtual uint32_t RegionOfSection(uint32_t /*sec*/) const { return 0; }
  // Blocks a log writes in one region before it moves to the next (one
  // flash page); >= 1.
  virtual uint32_t StripeBlocks() const { return kBlocksPerSeg; }
  // The region log `t` writes next after `cur`.
  virtual uint32_t NextRegion(const SegmentManager& /*sm*/, LogType /*t*/, uint32_t cur) const { return cur; }
};

// The I/O the file system has queued or in flight per region, in bytes:
// blocks allocated and not yet completed (writes), reads submitted and not
// completed. Input of a parallelism-aware NextRegion; kept by the file
// system while the policy has more than one region.
class RegionLoad {
 public:
  virtual ~RegionLoad() = default;
  virtual uint64_t ReadBytes(uint32_t region) const = 0;
  virtual uint64_t WriteBytes(uint32_t region) const = 0;
};

struct AllocationPolicyContext {
  const F2fsConfig* cfg = nullptr;  // a policy's own section: cfg->impl_configs.Get<C>(name)
  const Layout* layout = nullptr;
  // The flash layout behind the volume (BlockDevice::layout()); null where
  // no device is known (unit tests of policies that need none).
  const ssd::DeviceLayout* device = nullptr;
  // Per-region load (null where none is kept: mkfs, check, unit tests).
  const RegionLoad* load = nullptr;
};

struct AllocationPolicyInfo {
  const char* name;
  const char* description;
  // InvalidInput (naming the fs.f2fs.* key) when the policy cannot run on
  // ctx's volume and device.
  sim::Result<std::unique_ptr<AllocationPolicy>> (*make)(const AllocationPolicyContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a policy without parameters
};

// The kernel's temperature logs (__get_segment_type_{2,4,6}) for
// active_logs 2, 4 or 6; gc_move data goes to the ATGC log with `atgc`.
LogType KernelDataLog(const DataPlacement& p, uint32_t active_logs, bool atgc);
LogType KernelNodeLog(const NodePlacement& p, uint32_t active_logs);

// Every registered policy, sorted by name.
const std::vector<const AllocationPolicyInfo*>& AllocationPolicies();
std::vector<std::string> AllocationPolicyNames();
// The config sections of the policies that have parameters.
std::vector<sim::ImplSection> AllocationPolicySections();
// InvalidInput "unknown allocation policy 'x'; choices: ..." for an unknown name.
sim::Result<std::unique_ptr<AllocationPolicy>> MakeAllocationPolicy(std::string_view name,
                                                                    const AllocationPolicyContext& ctx);

}  // namespace fs::f2fs
