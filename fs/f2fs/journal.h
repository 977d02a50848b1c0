// Journal: F2FS-J's decentralized, epoch-based metadata journal (durability
// mode `journal`), the in-memory part: per-inode record lists, the global
// epochs and the circular journal area's space. The I/O is others': the
// commits the JournalCommitter's (journal_committer.h), the replay at mount
// the JournalReplay's (journal_replay.h); the records' on-disk format is
// journal_format.h.
//
// Contract:
// - Append(owner, record) is the operation path: it assigns the record's
//   sequence number and appends it to `owner`'s local list of the running
//   epoch, registering the inode with that epoch on its first record
//   (insert_log_into_inode). It never waits: an inode has one local list per
//   global epoch, so a free one always exists.
// - Epochs (kEpochs global epochs, round-robin) go idle -> running ->
//   to-be-committed -> committing -> idle. SwitchEpoch moves the running
//   epoch to to-be-committed and starts the next idle one at once (the
//   operations keep logging into it); it returns false, and switches
//   nothing, when no epoch is idle. TakeEpoch hands the commit the oldest
//   to-be-committed epoch's records in sequence order (committing);
//   FinishEpoch makes it idle.
// - Space: the area is a ring of `blocks` journal blocks from the tail (the
//   first block a replay may need: where the last checkpoint's replay
//   starts) to the head (the next block written). Reserve(n) takes n
//   blocks at the head (each commit starts a fresh block), and is refused
//   when they do not fit: the caller checkpoints first, never overwrites.
// - A checkpoint covers every record appended before it fixed its state:
//   CheckpointBegin() drops the records not yet committing (they need no
//   commit) and returns where replay must start; CheckpointCommitted()
//   moves the tail there.
// - Deterministic; no simulated time.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/journal_format.h"
#include "sim/config.h"
#include "sim/time.h"
#include "sim/units.h"

namespace fs::f2fs {

// fs.f2fs.journal: in-class initializers equal the declared defaults.
struct JournalConfig {
  sim::Bytes size = sim::MiB(256);
  sim::SimTime commit_interval = sim::Ms(5000);
  bool barrier = true;
  sim::Ratio apply_free_ratio{0.05};
  sim::SimTime checkpoint_interval = sim::Ms(3000);
  sim::SimTime record_cpu = sim::SimTime::FromNs(200);
  std::string apply = "committed";
  std::string list_lock = "per_inode";
  std::string fsync = "commit";
  std::string records = "all";
  bool commit_wait = true;
  bool checkpoint_after_commit = false;
  static void Describe(sim::Schema<JournalConfig>& s);
};

// Blocks of the journal area mkfs carves out for `cfg`: 0 unless the
// durability mode is `journal`.
uint64_t JournalAreaBlocks(const F2fsConfig& cfg);

// Where a replay starts: the journal block at `head` (offset in the area)
// with sequence number `block_seq`; records below `record_seq` are covered.
struct JournalPosition {
  uint32_t head = 0;
  uint64_t block_seq = 1;
  uint64_t record_seq = 1;
};

class Journal {
 public:
  static constexpr int kEpochs = 8;
  enum class EpochState : uint8_t { kIdle, kRunning, kToBeCommitted, kCommitting };

  explicit Journal(uint32_t blocks);

  // ---- Operation path.
  void Append(Nid owner, JournalRecord r);
  uint64_t records_appended() const { return next_record_seq_ - start_record_seq_; }

  // ---- Epochs.
  int running() const { return running_; }
  EpochState state(int e) const { return epochs_[e].state; }
  uint64_t epoch_records(int e) const { return epochs_[e].records; }
  bool RunningEmpty() const { return epochs_[running_].records == 0; }
  bool HasToBeCommitted() const;
  bool SwitchEpoch();
  // The oldest to-be-committed epoch's records, by sequence number; -1 in
  // *epoch if none.
  std::vector<JournalRecord> TakeEpoch(int* epoch);
  void FinishEpoch(int e);

  // ---- Space (journal blocks).
  uint32_t blocks() const { return blocks_; }
  uint32_t used_blocks() const { return static_cast<uint32_t>(next_block_seq_ - tail_seq_); }
  uint32_t free_blocks() const { return blocks_ - used_blocks(); }
  // Blocks a commit of `records` takes (records never span blocks).
  static uint32_t BlocksFor(const std::vector<JournalRecord>& records);
  // Packs `records` into journal blocks from the head: each element is the
  // block's offset in the area and its contents (the last one has the
  // commit flag). False (nothing taken) if they do not fit the free space.
  bool Reserve(const std::vector<JournalRecord>& records, uint64_t commit,
               std::vector<std::pair<uint32_t, std::shared_ptr<JournalBlock>>>* out);

  // ---- Checkpoints and mount.
  JournalPosition CheckpointBegin();
  void CheckpointCommitted(const JournalPosition& p);
  // At mount, after replay: the next block goes at `head` with sequence
  // number `block_seq`, the next record gets `record_seq`; the ring is
  // empty (the mount's checkpoint covers what replay applied).
  void Load(uint32_t head, uint64_t block_seq, uint64_t record_seq);
  JournalPosition head_position() const { return JournalPosition{head_, next_block_seq_, next_record_seq_}; }

 private:
  struct InodeLogs {
    std::array<std::vector<JournalRecord>, kEpochs> lists;  // local lists
    std::array<int8_t, kEpochs> g2l;                         // global epoch -> local list, -1 none
    uint8_t in_use = 0;                                      // bit per local list
    InodeLogs() { g2l.fill(-1); }
  };
  struct Epoch {
    EpochState state = EpochState::kIdle;
    uint64_t switch_order = 0;     // when it left running (FIFO commit order)
    std::vector<uint32_t> inodes;  // registered inodes
    uint64_t records = 0;
  };
  void ReleaseEpoch(int e, std::vector<JournalRecord>* out);

  uint32_t blocks_;
  uint32_t head_ = 0;
  uint64_t tail_seq_ = 1;  // sequence number of the first block replay may need
  uint64_t next_block_seq_ = 1;
  uint64_t next_record_seq_ = 1;
  uint64_t start_record_seq_ = 1;
  uint64_t switches_ = 0;
  int running_ = 0;
  std::array<Epoch, kEpochs> epochs_;
  std::map<uint32_t, InodeLogs> inodes_;
};

}  // namespace fs::f2fs
