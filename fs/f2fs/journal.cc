#include "fs/f2fs/journal.h"

#include <algorithm>

#include <glog/logging.h>

namespace fs::f2fs {

void JournalConfig::Describe(sim::Schema<JournalConfig>& s) {
  s.Param("size", &JournalConfig::size, "256MiB",
          "Journal area mkfs carves out at the end of the volume (F2FS-J's JOURNAL_FILE_SIZE, 256 MiB)");
  s.Param("commit_interval", &JournalConfig::commit_interval, "5s",
          "The commit thread commits the running epoch this often (F2FS-J's J_COMMIT_INTERVAL: 5 loops of 1 s); "
          "at least 1us")
      .Min(1000);
  s.Param("barrier", &JournalConfig::barrier, "true",
          "A commit's last block is written after a cache flush with FUA, so a durable commit block means "
          "durable records and data; false writes every journal block plainly (REQ_SYNC only, as the F2FS-J "
          "artifact does), so a power cut can lose acknowledged commits");
  s.Param("apply_free_ratio", &JournalConfig::apply_free_ratio, "5%",
          "A checkpoint applies the journal when its free space falls to this fraction of the area (F2FS-J's "
          "j_checkpoint thread: free space <= 5 %)");
  s.Param("checkpoint_interval", &JournalConfig::checkpoint_interval, "3s",
          "Otherwise a checkpoint (the apply) this long after the last one when something changed; it replaces "
          "F2FS's background checkpoints (dirty nodes, NATs, prefree segments, cp_interval), as in the F2FS-J "
          "artifact, whose j_checkpoint thread checkpoints every third 1 s loop after a commit");
  s.Param("record_cpu", &JournalConfig::record_cpu, "200ns",
          "CPU time of appending one record on the operation path: a 128-byte copy and a list insert under "
          "the inode's uncontended lock (the model's estimate)");
  s.Choice("list_lock", &JournalConfig::list_lock, "per_inode", {"per_inode", "global"},
           "The spinlock a record is appended under: per_inode (F2FS-J's decentralized per-inode log lists: "
           "threads on different files never contend) or global (one list lock for every record, as JBD2's "
           "j_list_lock and the F2FS-J artifact's record lock: appends serialize and waiters spin on their "
           "cores); fs.locks.journal_list.* has its waits and holds");
  s.Choice("apply", &JournalConfig::apply, "committed", {"committed", "checkpoint"},
           "How a checkpoint applies the journal: committed (F2FS-J's apply: first the dirty node pages no "
           "uncommitted record touched since are written while operations go on; the checkpoint then holds "
           "operations only for what is left) or checkpoint (F2FS's checkpoint writes every dirty node page "
           "with operations held)");
  s.Choice("fsync", &JournalConfig::fsync, "commit", {"commit", "rollforward"},
           "What fsync does with the journal running: commit (the paper's design: the running epoch is "
           "committed, every record of every file, with the commit's flush and FUA commit block) or rollforward "
           "(the F2FS-J artifact's: stock F2FS fsync, the file's dnodes written with the fsync mark and a cache "
           "flush, recovered by roll-forward after the journal's replay; a checkpoint in need_do_checkpoint's "
           "cases, as fs.f2fs.durability checkpoint decides them)");
  s.Choice("records", &JournalConfig::records, "all", {"all", "namespace"},
           "Which changes append records: all (the paper's design: create, mkdir, unlink, rmdir, rename, link, "
           "setattr, each data block's new address (DATA_WRITE, so commits wait for that data: ordered mode) "
           "and fsync) or namespace (the F2FS-J artifact's: only CREATE, MKDIR and UNLINK — its namei.c; rmdir "
           "is its f2fs_unlink's — so no ordered data); namespace needs fsync rollforward (fsync cannot rest on "
           "records that do not describe the data)");
  s.Param("commit_wait", &JournalConfig::commit_wait, "true",
          "The commit thread waits for its journal writes to complete before the epoch counts as committed; "
          "false submits them and moves on (the F2FS-J artifact's write_current_mmap_j_file: submit_bio, its "
          "submit_bio_wait commented out), so nothing is acknowledged by a commit: needs fsync rollforward and "
          "barrier false");
  s.Param("checkpoint_after_commit", &JournalConfig::checkpoint_after_commit, "false",
          "Background checkpoints run only right after the commit thread's commit (a checkpoint found due "
          "elsewhere wakes the commit thread), as the F2FS-J artifact's j_checkpoint thread checkpoints only "
          "after a commit; apply committed always does so (its apply needs the latest epochs committed)");
}

uint64_t JournalAreaBlocks(const F2fsConfig& cfg) {
  if (cfg.durability != "journal") return 0;
  return cfg.impl_configs.Get<JournalConfig>("journal").size.value / kBlockSize;
}

Journal::Journal(uint32_t blocks) : blocks_(blocks) { epochs_[0].state = EpochState::kRunning; }

void Journal::Append(Nid owner, JournalRecord r) {
  r.seq = next_record_seq_++;
  InodeLogs& il = inodes_[owner.v];
  Epoch& ep = epochs_[running_];
  int8_t l = il.g2l[running_];
  if (l < 0) {
    // First record of this inode in the running epoch: take an idle local
    // list and register the inode with the epoch.
    for (int i = 0; i < kEpochs; ++i) {
      if (!(il.in_use & (1u << i))) {
        l = static_cast<int8_t>(i);
        break;
      }
    }
    CHECK_GE(l, 0) << "no idle local list: more epochs in use than global epochs";
    il.in_use |= static_cast<uint8_t>(1u << l);
    il.g2l[running_] = l;
    ep.inodes.push_back(owner.v);
  }
  il.lists[l].push_back(std::move(r));
  ++ep.records;
}

bool Journal::HasToBeCommitted() const {
  for (const Epoch& e : epochs_)
    if (e.state == EpochState::kToBeCommitted) return true;
  return false;
}

bool Journal::SwitchEpoch() {
  const int next = (running_ + 1) % kEpochs;
  if (epochs_[next].state != EpochState::kIdle) return false;
  epochs_[running_].state = EpochState::kToBeCommitted;
  epochs_[running_].switch_order = ++switches_;
  running_ = next;
  epochs_[next].state = EpochState::kRunning;
  return true;
}

void Journal::ReleaseEpoch(int e, std::vector<JournalRecord>* out) {
  Epoch& ep = epochs_[e];
  for (uint32_t ino : ep.inodes) {
    auto it = inodes_.find(ino);
    CHECK(it != inodes_.end());
    InodeLogs& il = it->second;
    const int8_t l = il.g2l[e];
    CHECK_GE(l, 0);
    if (out) {
      for (JournalRecord& r : il.lists[l]) out->push_back(std::move(r));
    }
    il.lists[l].clear();
    il.lists[l].shrink_to_fit();
    il.in_use &= static_cast<uint8_t>(~(1u << l));
    il.g2l[e] = -1;
    if (il.in_use == 0) inodes_.erase(it);
  }
  ep.inodes.clear();
  ep.records = 0;
}

std::vector<JournalRecord> Journal::TakeEpoch(int* epoch) {
  *epoch = -1;
  uint64_t best = 0;
  for (int e = 0; e < kEpochs; ++e) {
    if (epochs_[e].state == EpochState::kToBeCommitted && (*epoch < 0 || epochs_[e].switch_order < best)) {
      *epoch = e;
      best = epochs_[e].switch_order;
    }
  }
  std::vector<JournalRecord> out;
  if (*epoch < 0) return out;
  out.reserve(epochs_[*epoch].records);
  ReleaseEpoch(*epoch, &out);
  epochs_[*epoch].state = EpochState::kCommitting;
  std::sort(out.begin(), out.end(), [](const JournalRecord& a, const JournalRecord& b) { return a.seq < b.seq; });
  return out;
}

void Journal::FinishEpoch(int e) {
  CHECK(epochs_[e].state == EpochState::kCommitting);
  epochs_[e].state = EpochState::kIdle;
}

uint32_t Journal::BlocksFor(const std::vector<JournalRecord>& records) {
  uint32_t blocks = 1, slot = 1;
  for (const JournalRecord& r : records) {
    const uint32_t n = r.Slots();
    if (slot + n > kJournalSlotsPerBlock) {
      ++blocks;
      slot = 1;
    }
    slot += n;
  }
  return blocks;
}

bool Journal::Reserve(const std::vector<JournalRecord>& records, uint64_t commit,
                      std::vector<std::pair<uint32_t, std::shared_ptr<JournalBlock>>>* out) {
  const uint32_t need = BlocksFor(records);
  if (need > free_blocks()) return false;
  std::vector<std::vector<JournalRecord>> groups(1);
  uint32_t slot = 1;
  for (const JournalRecord& r : records) {
    const uint32_t n = r.Slots();
    if (slot + n > kJournalSlotsPerBlock) {
      groups.emplace_back();
      slot = 1;
    }
    groups.back().push_back(r);
    slot += n;
  }
  CHECK_EQ(groups.size(), need);
  for (size_t i = 0; i < groups.size(); ++i) {
    JournalBlockHeader h;
    h.seq = next_block_seq_++;
    h.commit = commit;
    h.commit_end = i + 1 == groups.size();
    out->emplace_back(head_, EncodeJournalBlock(h, groups[i]));
    head_ = (head_ + 1) % blocks_;
  }
  return true;
}

JournalPosition Journal::CheckpointBegin() {
  for (int e = 0; e < kEpochs; ++e) {
    if (epochs_[e].state == EpochState::kRunning || epochs_[e].state == EpochState::kToBeCommitted) {
      ReleaseEpoch(e, nullptr);
      if (epochs_[e].state == EpochState::kToBeCommitted) epochs_[e].state = EpochState::kIdle;
    }
  }
  return head_position();
}

void Journal::CheckpointCommitted(const JournalPosition& p) {
  // Blocks below p's are no longer needed for replay.
  CHECK_GE(p.block_seq, tail_seq_);
  CHECK_LE(p.block_seq, next_block_seq_);
  tail_seq_ = p.block_seq;
}

void Journal::Load(uint32_t head, uint64_t block_seq, uint64_t record_seq) {
  tail_seq_ = block_seq;
  head_ = head % blocks_;
  next_block_seq_ = block_seq;
  next_record_seq_ = start_record_seq_ = record_seq;
}

}  // namespace fs::f2fs
