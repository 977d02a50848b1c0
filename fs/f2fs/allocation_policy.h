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
// - NextSegment picks the segment log `t` writes next; the SegmentManager
//   calls it when the log's segment is full or the log opens, and applies
//   the choice. A non-SSR choice must be a free segment; an SSR choice a
//   dirty segment (not free, no curseg, some valid block, SsrFreeSlots > 0).
//   kNullSegNo without SSR means the volume has no free section left (the
//   SegmentManager CHECK-fails: cleaning must have prevented it).
// - Policies read state only through the SegmentManager passed in, never
//   change it, and are deterministic.
//
// Implementations (one .cc each), listed in AllocationPolicies():
//   default   the kernel's (allocate_segment_by_default, Linux 5.15):
//             temperature logs by active_logs (__get_segment_type_{2,4,6}),
//             SSR when free sections run short (f2fs_need_SSR, not in lfs
//             mode), else the next segment of the section or the next free
//             section after the current one, avoiding zones other logs use
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
  virtual SegmentChoice NextSegment(const SegmentManager& sm, LogType t, bool need_ssr) const = 0;
};

struct AllocationPolicyContext {
  const F2fsConfig* cfg = nullptr;  // a policy's own section: cfg->impl_configs.Get<C>(name)
  const Layout* layout = nullptr;
};

struct AllocationPolicyInfo {
  const char* name;
  const char* description;
  std::unique_ptr<AllocationPolicy> (*make)(const AllocationPolicyContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a policy without parameters
};

// Every registered policy, sorted by name.
const std::vector<const AllocationPolicyInfo*>& AllocationPolicies();
std::vector<std::string> AllocationPolicyNames();
// The config sections of the policies that have parameters.
std::vector<sim::ImplSection> AllocationPolicySections();
// InvalidInput "unknown allocation policy 'x'; choices: ..." for an unknown name.
sim::Result<std::unique_ptr<AllocationPolicy>> MakeAllocationPolicy(std::string_view name,
                                                                    const AllocationPolicyContext& ctx);

}  // namespace fs::f2fs
