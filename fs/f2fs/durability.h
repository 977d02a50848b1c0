// Durability: how F2FS makes metadata changes durable — the seam between
// the operations that change metadata and the mechanism that persists them
// (checkpoints with roll-forward recovery of fsynced dnodes today; a
// metadata journal such as F2FS-J's as another implementation).
//
// Contract:
// - The file system reports every metadata change when the operation makes
//   it, in a synchronous section (no suspension between the change and the
//   call), in operation order:
//     OnCreate/OnUnlink/OnRename/OnLink  namespace changes (create, mkdir,
//                                 unlink, rmdir, rename, link), once the
//                                 entries changed;
//     OnSetattr                   a size change by truncate/ftruncate;
//     OnBlockUpdate               a block got a new address or was freed: the
//                                 NAT delta (node blocks), SIT deltas (old
//                                 segment -1, new segment +1) and the SSA
//                                 entry of the new address.
//   Hooks only observe: they change no file-system state.
// - The checkpoint decisions are the implementation's: whether an fsync must
//   write a checkpoint (else the file system writes the file's dnodes for
//   roll-forward), and whether the background threads write one now.
// - OnCheckpointCommitted is called when the mounted checkpoint is loaded
//   and when a checkpoint's commit block is durable.
// - Deterministic; reads the file system through the DurabilityContext it
//   was made with.
//
// Implementations (one .cc each), listed in DurabilityModes():
//   checkpoint  the kernel's (Linux 5.15): metadata reaches flash with the
//               next checkpoint; fsync writes dnodes with fsync marks for
//               roll-forward, or a checkpoint in need_do_checkpoint's cases;
//               background checkpoints on excess dirty nodes/NATs or
//               prefree segments whatever the load, and on cp_interval
//               unless I/O is in flight or an operation of a recent
//               request holds cp_rwsem (f2fs_balance_fs_bg)
//   journal     F2FS-J's: every metadata change also appends a record to its
//               inode's list in the running epoch (journal.h); a commit
//               thread writes the records every commit_interval, and an
//               fsync commits them instead of writing dnodes for
//               roll-forward (ordered: the data they describe first); a
//               checkpoint also when the journal's free space runs low;
//               recovery replays the committed records after the
//               checkpoint. Background checkpoints (the apply) only when
//               the journal runs low on space or checkpoint_interval after
//               the last one, as in the F2FS-J artifact.
//
// Registration: an implementation .cc registers its DurabilityInfo with
// sim::Registrar (sim/registry.h) and is chosen by name with the config key
// `fs.f2fs.durability`; a mode with parameters declares them in `config`, a
// section named after it below `fs.f2fs`.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/on_disk.h"
#include "sim/config.h"
#include "sim/status.h"
#include "sim/time.h"

namespace fs::f2fs {

class Journal;
class SegmentManager;

// A block that got a new address (written out of place, moved by cleaning)
// or was freed.
struct BlockUpdate {
  bool node = false;  // a node block: NAT entry of `nid`; else a data block addressed by dnode `nid`
  Nid nid;
  uint16_t ofs_in_node = 0;  // data blocks: the slot in the dnode
  Nid ino;                   // owning inode
  BlockAddr old_addr;        // not a valid address (null/new): no SIT decrement
  BlockAddr new_addr;        // kNullAddr: freed
  // Data blocks given a new address: the file offset in blocks, the file's
  // i_size then, and whether it is a directory's (dentry) block.
  uint64_t index = 0;
  uint64_t file_size = 0;
  bool dir_data = false;
};

// What fsync knows when it chooses between a checkpoint and roll-forward.
struct FsyncFacts {
  Nid ino;
  Nid pino;                       // parent at the last checkpoint/fsync (i_pino)
  bool is_dir = false;
  uint32_t links = 0;
  bool lost_pino = false;         // renamed since: i_pino is stale
  // f2fs_space_for_roll_forward's operands: blocks in use (data, reserved,
  // nodes) when the last checkpoint committed or was mounted
  // (last_valid_block_count), and blocks and nodes newly allocated since
  // (alloc_valid_block_count).
  uint64_t valid_blocks_at_checkpoint = 0;
  uint64_t allocated_since_checkpoint = 0;
  bool parent_dentries_changed = false;  // the parent's entries changed since the checkpoint
};

// What a Durability reads of the file system's volatile state (F2fs
// implements it).
class DurabilityHost {
 public:
  virtual sim::SimTime Now() const = 0;
  // When the last file-system request (operation) started or ended: the
  // kernel's last_time[REQ_TIME].
  virtual sim::SimTime LastRequestTime() const = 0;
  // is_inflight_io: reads, plain file-data writes (not the writes a
  // checkpoint guarantees) or cache flushes in flight, or, with
  // `count_queued_discards`, discards issued and not completed.
  virtual bool InflightIo(bool count_queued_discards) const = 0;
  // rwsem_is_locked(cp_rwsem): operations hold the checkpoint lock shared,
  // or a checkpoint holds or awaits it.
  virtual bool CheckpointLockHeld() const = 0;
  virtual uint64_t DirtyNodePages() const = 0;
  // Any device request of the file system in flight (the block layer's
  // request count that Linux 4.15's is_idle reads).
  virtual bool AnyIoInFlight() const = 0;
  // Something a checkpoint would write (dirty nodes, NAT/SIT/SSA, dentries, prefree).
  virtual bool HasUncheckpointedChanges() const = 0;

 protected:
  ~DurabilityHost() = default;
};

class Durability {
 public:
  virtual ~Durability() = default;

  // ---- Metadata changes, at operation time.
  virtual void OnCreate(Nid dir, Nid ino, std::string_view name, bool is_dir) = 0;
  virtual void OnUnlink(Nid dir, Nid ino, std::string_view name, bool is_dir) = 0;
  // `replaced`: the inode the target name held (kNullNid: none).
  virtual void OnRename(Nid from_dir, std::string_view from, Nid to_dir, std::string_view to, Nid ino,
                        Nid replaced) = 0;
  // A new name `name` in `dir` for the existing file `ino` (hard link).
  virtual void OnLink(Nid dir, Nid ino, std::string_view name) = 0;
  virtual void OnSetattr(Nid ino, uint64_t size) = 0;
  virtual void OnBlockUpdate(const BlockUpdate& u) = 0;

  // ---- Checkpoint decisions.
  // True: this fsync writes a checkpoint; false: the file's dnodes for roll-forward.
  virtual bool FsyncNeedsCheckpoint(const FsyncFacts& f) const = 0;
  // True: the background threads write a checkpoint now.
  virtual bool NeedBackgroundCheckpoint() const = 0;
  virtual void OnCheckpointCommitted(sim::SimTime when) = 0;

  // ---- A metadata journal (mode `journal`): its records and space, which
  // the file system commits, checkpoints and replays; null without one.
  virtual Journal* journal() { return nullptr; }
  // CPU time the operation path spent in the hooks of one operation.
  virtual sim::SimTime RecordCpu() const { return sim::SimTime::Zero(); }
};

struct DurabilityContext {
  const F2fsConfig* cfg = nullptr;  // a mode's own section: cfg->impl_configs.Get<C>(name)
  const Layout* layout = nullptr;
  const NatTable* nat = nullptr;
  const SegmentManager* sm = nullptr;
  const DurabilityHost* host = nullptr;
};

struct DurabilityInfo {
  const char* name;
  const char* description;
  std::unique_ptr<Durability> (*make)(const DurabilityContext& ctx);
  sim::ImplSection config;  // empty (no schema) for a mode without parameters
};

// Every registered durability mode, sorted by name.
const std::vector<const DurabilityInfo*>& DurabilityModes();
std::vector<std::string> DurabilityModeNames();
// The config sections of the modes that have parameters.
std::vector<sim::ImplSection> DurabilitySections();
// InvalidInput "unknown durability mode 'x'; choices: ..." for an unknown name.
sim::Result<std::unique_ptr<Durability>> MakeDurability(std::string_view name, const DurabilityContext& ctx);

}  // namespace fs::f2fs
