// JournalCommitter (journal_committer.h): the journal's commits, fsync
// through the journal and the records' CPU.
#include "fs/f2fs/journal_committer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <glog/logging.h>

namespace fs::f2fs {

JournalCommitter::JournalCommitter(const Deps& d)
    : jc_(d.cfg->impl_configs.Get<JournalConfig>("journal")),
      layout_(*d.layout),
      q_(d.events),
      journal_(d.journal),
      durability_(d.durability),
      io_(d.io),
      nodes_(d.nodes),
      cpm_(d.cp),
      fsm_(d.fsync),
      list_class_(d.list_class),
      list_lock_(d.list_lock),
      host_(d.host),
      data_records_(jc_.records == "all"),
      wq_(d.events) {}

void JournalCommitter::Checkpointed(uint64_t record_seq) {
  durable_seq_ = std::max(durable_seq_, record_seq);
  wq_.NotifyAll();
}

sim::Task<void> JournalCommitter::Cpu() {
  int64_t records = 1 + static_cast<int64_t>(cpu_owed_);
  cpu_owed_ = 0;
  if (!data_records_) {
    // records namespace: only some operations append one.
    const uint64_t appended = journal_->records_appended();
    records = static_cast<int64_t>(appended - std::min(appended, records_charged_));
    records_charged_ = appended;
    if (records == 0) co_return;
  }
  const sim::SimTime cost = durability_->RecordCpu() * records;
  if (list_lock_ != nullptr) {
    co_await list_lock_->Section(cost);
    co_return;
  }
  // Per-inode lists: each record takes its inode's list lock, which no
  // other thread holds (one operation per inode at a time, under i_rwsem).
  for (int64_t i = 0; i < records; ++i) list_class_->Acquired(sim::SimTime::Zero());
  list_class_->Released(cost);
  co_await host_->Cpu(cost);
}

sim::Task<void> JournalCommitter::Commit() {
  if (committing_ || journal_->RunningEmpty()) co_return;
  committing_ = true;
  const sim::SimTime t0 = q_->now();
  // trigger_epoch_commit: the operations log into the next epoch at once.
  CHECK(journal_->SwitchEpoch()) << "one committer leaves an idle epoch";
  // The commit's key: every record of the closed epoch is below it.
  const uint64_t key = journal_->head_position().record_seq;
  if (cpm_->listener()) cpm_->listener()->OnJournalSwitch(key);
  int epoch = -1;
  std::vector<JournalRecord> records = journal_->TakeEpoch(&epoch);
  CHECK_GE(epoch, 0);
  // Ordered mode: the data the records describe is durable before them —
  // every data write submitted so far completes; the flush before the
  // commit block makes it durable with the records.
  co_await io_->WaitOrderedWrites(key);
  std::vector<std::pair<uint32_t, std::shared_ptr<JournalBlock>>> blocks;
  uint64_t covered = 0;  // records dropped below this: durable once that checkpoint commits
  while (!host_->Dead()) {
    // Records a checkpoint covered since need no commit.
    const size_t before = records.size();
    std::erase_if(records, [this](const JournalRecord& r) { return r.seq < cpm_->covered_record_seq(); });
    if (records.size() < before) covered = cpm_->covered_record_seq();
    if (records.empty()) break;
    if (journal_->Reserve(records, key, &blocks)) break;
    // Full: apply (checkpoint) first; never overwrite what replay needs.
    stats_.space_checkpoints.Inc();
    co_await cpm_->Checkpoint(CpReason::kJournal);
  }
  if (host_->Dead()) co_return;
  if (!blocks.empty()) {
    const JournalConfig& jc = jc_;
    const size_t body = jc.barrier ? blocks.size() - 1 : blocks.size();
    IoBatch batch(q_);
    // Runs of consecutive blocks (the ring may wrap).
    auto submit = [&](size_t from, size_t to, bool fua) {
      size_t i = from;
      while (i < to) {
        size_t j = i + 1;
        while (j < to && blocks[j].first == blocks[j - 1].first + 1) ++j;
        std::vector<BlockPtr> contents;
        std::vector<Page*> pages;
        for (size_t k = i; k < j; ++k) {
          contents.push_back(blocks[k].second);
          pages.push_back(nullptr);
        }
        io_->SubmitWrite(BlockAddr{static_cast<uint32_t>(layout_.journal_blkaddr() + blocks[i].first)}, contents, pages,
                    Io::kJournal, jc.commit_wait ? &batch : nullptr, fua);
        i = j;
      }
    };
    submit(0, body, false);
    // commit_wait false, the artifact's commit: the blocks submitted with
    // REQ_SYNC and not waited for (validated: barrier false, fsync
    // rollforward).
    if (jc.commit_wait) co_await io_->WaitBatch(batch);
    if (host_->Dead()) co_return;
    if (jc.barrier) {
      // The commit block: after a cache flush (records and data durable),
      // with FUA (itself durable when acknowledged).
      co_await io_->IssueFlush();
      if (host_->Dead()) co_return;
      IoBatch commit(q_);
      std::vector<BlockPtr> c = {blocks.back().second};
      std::vector<Page*> none = {nullptr};
      io_->SubmitWrite(BlockAddr{static_cast<uint32_t>(layout_.journal_blkaddr() + blocks.back().first)}, c, none,
                  Io::kJournal, &commit, /*fua=*/true);
      co_await io_->WaitBatch(commit);
      if (host_->Dead()) co_return;
    }
    stats_.commits.Inc();
    stats_.blocks.Inc(blocks.size());
    stats_.commit_records.Record(static_cast<int64_t>(records.size()));
    stats_.commit_lat.Record((q_->now() - t0).ns());
  }
  // Records a checkpoint in progress covered are durable when it commits.
  co_await cpm_->WaitRecordsCheckpointed(covered);
  if (host_->Dead()) co_return;
  journal_->FinishEpoch(epoch);
  committing_ = false;
  durable_seq_ = std::max(durable_seq_, key);
  wq_.NotifyAll();
}

sim::Task<void> JournalCommitter::Sync(uint64_t target) {
  while (!host_->Dead() && durable_seq_ < target) {
    if (committing_) {
      co_await wq_.Wait();
    } else if (!journal_->RunningEmpty()) {
      const uint64_t before = stats_.commits.value();
      co_await Commit();
      stats_.fsync_commits.Inc(stats_.commits.value() - before);
    } else if (cpm_->running()) {
      // A checkpoint covers the records not yet committing.
      co_await cpm_->WaitEnd();
    } else {
      break;  // nothing below target is left uncommitted
    }
  }
}

sim::Task<Errno> JournalCommitter::Fsync(Inode* inode) {
  const sim::SimTime t0 = q_->now();
  if (!inode->is_dir) {
    co_await host_->WritebackInode(inode, UINT64_MAX, /*wait=*/true, /*from_cp=*/false);
    // Data writes of this file others submitted complete too.
    while (inode->wb_writes > 0 && !host_->Dead()) co_await io_->write_done_wq().Wait();
    fsm_->stats().data.Record((q_->now() - t0).ns());
    // The file's size (and inline data) as of now, after its blocks'
    // DATA_WRITE records.
    {
      vfs::SharedLock cp = co_await cpm_->LockOp();
      JournalRecord r;
      r.type = JournalRecordType::kFsync;
      r.ino = inode->ino;
      r.size = nodes_->I(inode).size;
      if (nodes_->I(inode).inline_data) {
        r.is_inline = true;
        const std::vector<uint8_t>& d = inode->ipage->blk->inline_data;
        r.name2.assign(d.begin(), d.end());
      }
      journal_->Append(inode->ino, std::move(r));
    }
    co_await Cpu();
  }
  co_await Sync(journal_->head_position().record_seq);
  inode->append_write = false;
  inode->update_write = false;
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
