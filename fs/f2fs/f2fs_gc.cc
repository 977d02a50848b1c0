// The cleaning thread: when to clean and which victim are the Cleaner's
// (cleaner.h), the migration of a victim section the GcMigrator's
// (gc_migrator.h).
#include "fs/f2fs/f2fs.h"

namespace fs::f2fs {

sim::Task<void> F2fs::GcThread() {
  ++threads_running_;
  co_await cleaner_->Thread();
  --threads_running_;
  threads_wq_.NotifyAll();
}

}  // namespace fs::f2fs
