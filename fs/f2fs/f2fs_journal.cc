// Durability mode journal (F2FS-J): the commit thread. Its commits are the
// JournalCommitter's (journal_committer.h), the replay at mount the
// JournalReplay's (journal_replay.h). The records, epochs and journal space are the
// Journal's (journal.h); the on-disk format is journal_format.h.
#include <algorithm>

#include <fmt/format.h>
#include <glog/logging.h>

#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

sim::Task<void> F2fs::JournalCommitThread() {
  ++threads_running_;
  const JournalConfig& jc = cfg_.impl_configs.Get<JournalConfig>("journal");
  while (!stopping_ && !dead_) {
    co_await commit_timer_.Sleep(jc.commit_interval);
    if (stopping_ || dead_) break;
    co_await jcm_->Commit();
    if (stopping_ || dead_) break;
    // The journal running low on space, or checkpoint_interval passed, asks
    // for a checkpoint (the durability mode's decision).
    co_await BalanceFsBg(/*after_commit=*/true);
  }
  --threads_running_;
  threads_wq_.NotifyAll();
}

}  // namespace fs::f2fs
