// F2fs: construction, statistics and the FileSystem API operations.
#include "fs/f2fs/f2fs.h"

#include <algorithm>

#include <fmt/format.h>

#include "fs/f2fs/fsck.h"
#include "fs/fs_stats.h"

namespace fs::f2fs {

namespace {
const char* kIoNames[] = {"data", "dentry", "node", "meta", "cp", "gc_data", "gc_node", "journal"};
const char* kCpReasonNames[] = {"sync", "umount", "fsync", "gc", "background", "recovery", "journal"};
}  // namespace

F2fs::F2fs(const F2fsConfig& cfg, const Layout& layout, Env env)
    : cfg_(cfg),
      layout_(layout),
      q_(env.events),
      dev_(env.device),
      image_(env.image),
      stat_group_(env.stats),
      device_wa_(env.device_write_amplification),
      cache_(this, std::max<uint64_t>(64, cfg.page_cache.memory.value / kBlockSize)),
      wb_(env.events, cfg_.page_cache, &cache_),
      commit_timer_(env.events),
      threads_wq_(env.events) {
  auto alloc = MakeAllocationPolicy(
      cfg_.allocation, AllocationPolicyContext{&cfg_, &layout_, dev_ ? &dev_->layout() : nullptr, this});
  CHECK(alloc.ok()) << "allocation policy checked by Mount: " << alloc.status().message();
  alloc_ = std::move(alloc).value();
  // A device of fixed placement erases a flash block only when trimmed
  // whole, a zoned one a zone only when reset: both are written in order and
  // freed sections go back to them whole.
  erase_before_reuse_ = dev_ && (dev_->layout().fixed != nullptr || dev_->layout().zoned != nullptr);
  sm_ = std::make_unique<SegmentManager>(layout_, alloc_.get());
  // On a device of fixed placement a merged command could cover a whole
  // flash block a log is writing (the freed rest of its segment joined to
  // what it wrote and invalidated since) and erase it: no merging there.
  DiscardQueue::Options dopt;
  dopt.max_blocks = cfg_.discard.max_blocks;
  dopt.merge = !erase_before_reuse_;
  dopt.max_ordered = cfg_.discard.max_ordered;
  dq_ = std::make_unique<DiscardQueue>(dopt, &stats_.discard);
  sm_->set_allocation_observer(dq_.get());
  auto nat = std::make_unique<NatTable>(layout_.max_nid, layout_.nat_blocks);
  nat_ = nat.get();
  auto durability = MakeDurability(cfg_.durability, DurabilityContext{&cfg_, &layout_, nat_, sm_.get(), this});
  CHECK(durability.ok()) << "durability mode validated by the config schema: " << durability.status().message();
  durability_ = std::move(durability).value();
  journal_ = durability_->journal();
  cpw_ = std::make_unique<CheckpointWriter>(layout_, nat_, sm_.get());
  auto cleaner = Cleaner::Create(q_, cfg_, layout_, sm_.get(), this, &stats_.cleaner);
  CHECK(cleaner.ok()) << "victim policies validated by the config schema: " << cleaner.status().message();
  cleaner_ = std::move(cleaner).value();
  cpu_ = env.cpu;
  const sim::StatGroup locks = stat_group_.prefix().empty() ? stat_group_ : stat_group_.Group("locks");
  using Kind = vfs::LockClass::Kind;
  cp_rwsem_class_ = std::make_unique<vfs::LockClass>("cp_rwsem", Kind::kSleeping, cpu_, locks.Group("cp_rwsem"));
  gc_lock_class_ = std::make_unique<vfs::LockClass>("gc_lock", Kind::kSleeping, cpu_, locks.Group("gc_lock"));
  i_rwsem_class_ = std::make_unique<vfs::LockClass>("i_rwsem", Kind::kSleeping, cpu_, locks.Group("i_rwsem"));
  if (journal_ != nullptr) {
    journal_list_class_ =
        std::make_unique<vfs::LockClass>("journal_list", Kind::kSpinning, cpu_, locks.Group("journal_list"));
    if (cfg_.impl_configs.Get<JournalConfig>("journal").list_lock == "global")
      journal_list_lock_ = std::make_unique<vfs::SpinLock>(q_, journal_list_class_.get());
  }
  if (cpu_ != nullptr) {
    owner_flusher_ = cpu_->Owner("f2fs.flusher");
    owner_gc_ = cpu_->Owner("f2fs.gc");
    owner_discard_ = cpu_->Owner("f2fs.discard");
    owner_journal_ = cpu_->Owner("f2fs.journal_commit");
  }
  IoManager::Deps io;
  io.cfg = &cfg_;
  io.layout = &layout_;
  io.events = q_;
  io.device = dev_;
  io.image = image_;
  io.sm = sm_.get();
  io.dq = dq_.get();
  io.cache = &cache_;
  io.host = this;
  io.discard_write_waits = &stats_.discard.write_waits;
  io.ordered = journal_ != nullptr && cfg_.impl_configs.Get<JournalConfig>("journal").records == "all";
  if (erase_before_reuse_) io.blocks_per_page = std::max<uint32_t>(1, dev_->layout().page_size / kBlockSize);
  io_ = std::make_unique<IoManager>(io);
  DiscardManager::Deps dm;
  dm.cfg = &cfg_;
  dm.layout = &layout_;
  dm.events = q_;
  dm.device = dev_;
  dm.sm = sm_.get();
  dm.dq = dq_.get();
  dm.stats = &stats_.discard;
  dm.section_trims = &stats_.section_trims;
  dm.io = io_.get();
  dm.host = this;
  dm_ = std::make_unique<DiscardManager>(dm);
  NodeManager::Deps nm;
  nm.cfg = &cfg_;
  nm.layout = &layout_;
  nm.events = q_;
  nm.image = image_;
  nm.cache = &cache_;
  nm.sm = sm_.get();
  nm.alloc = alloc_.get();
  nm.durability = durability_.get();
  nm.journal = journal_;
  nm.io = io_.get();
  nm.inodes = &itab_;
  nm.nat_reads = &stats_.nat_reads;
  nm.ssr_blocks = &stats_.ssr_blocks;
  nm.host = this;
  nm_ = std::make_unique<NodeManager>(nm, std::move(nat));
  dp_ = std::make_unique<DataPages>(&cache_, &wb_, nm_.get());
  NamespaceManager::Deps ns;
  ns.cfg = &cfg_;
  ns.events = q_;
  ns.image = image_;
  ns.cache = &cache_;
  ns.io = io_.get();
  ns.nodes = nm_.get();
  ns.inodes = &itab_;
  ns.i_rwsem = i_rwsem_class_.get();
  ns.host = this;
  ns_ = std::make_unique<NamespaceManager>(ns);
  CheckpointManager::Deps cp;
  cp.cfg = &cfg_;
  cp.events = q_;
  cp.image = image_;
  cp.sm = sm_.get();
  cp.nodes = nm_.get();
  cp.inodes = &itab_;
  cp.writer = cpw_.get();
  cp.durability = durability_.get();
  cp.journal = journal_;
  cp.io = io_.get();
  cp.dm = dm_.get();
  cp.erase_before_reuse = erase_before_reuse_;
  cp.cp_rwsem = cp_rwsem_class_.get();
  cp.host = this;
  cpm_ = std::make_unique<CheckpointManager>(cp);
  FsyncManager::Deps fsm;
  fsm.cfg = &cfg_;
  fsm.events = q_;
  fsm.io = io_.get();
  fsm.nodes = nm_.get();
  fsm.cp = cpm_.get();
  fsm.durability = durability_.get();
  fsm.inodes = &itab_;
  fsm.journal = journal_ != nullptr;
  fsm.journal_fsync_commit =
      journal_ == nullptr || cfg_.impl_configs.Get<JournalConfig>("journal").fsync == "commit";
  fsm.host = this;
  fsm_ = std::make_unique<FsyncManager>(fsm);
  TxManager::Deps tx;
  tx.cfg = &cfg_;
  tx.layout = &layout_;
  tx.events = q_;
  tx.image = image_;
  tx.cache = &cache_;
  tx.writeback = &wb_;
  tx.io = io_.get();
  tx.sm = sm_.get();
  tx.alloc = alloc_.get();
  tx.nodes = nm_.get();
  tx.inodes = &itab_;
  tx.pages = dp_.get();
  tx.cp = cpm_.get();
  tx.fsync = fsm_.get();
  tx.durability = durability_.get();
  tx.journal = journal_ != nullptr;
  tx.stats = stat_group_;
  tx.ssr_blocks = &stats_.ssr_blocks;
  tx.app_bytes_written = &stats_.app_bytes_written;
  tx.host = this;
  txm_ = std::make_unique<TxManager>(tx);
  if (journal_ != nullptr) {
    JournalCommitter::Deps jc;
    jc.cfg = &cfg_;
    jc.layout = &layout_;
    jc.events = q_;
    jc.journal = journal_;
    jc.durability = durability_.get();
    jc.io = io_.get();
    jc.nodes = nm_.get();
    jc.cp = cpm_.get();
    jc.fsync = fsm_.get();
    jc.list_class = journal_list_class_.get();
    jc.list_lock = journal_list_lock_.get();
    jc.host = this;
    jcm_ = std::make_unique<JournalCommitter>(jc);
  }
  DataPath::Deps dpd;
  dpd.cfg = &cfg_;
  dpd.layout = &layout_;
  dpd.events = q_;
  dpd.image = image_;
  dpd.cache = &cache_;
  dpd.io = io_.get();
  dpd.sm = sm_.get();
  dpd.alloc = alloc_.get();
  dpd.nodes = nm_.get();
  dpd.inodes = &itab_;
  dpd.pages = dp_.get();
  dpd.cp = cpm_.get();
  dpd.durability = durability_.get();
  dpd.journal = journal_;
  dpd.committer = jcm_.get();
  dpd.counters.app_bytes_written = &stats_.app_bytes_written;
  dpd.counters.app_bytes_read = &stats_.app_bytes_read;
  dpd.counters.direct_bytes_written = &stats_.direct_bytes_written;
  dpd.counters.direct_bytes_read = &stats_.direct_bytes_read;
  dpd.counters.ipu_blocks = &stats_.ipu_blocks;
  dpd.counters.opu_blocks = &stats_.opu_blocks;
  dpd.counters.ssr_blocks = &stats_.ssr_blocks;
  dpd.host = this;
  dpath_ = std::make_unique<DataPath>(dpd);
  Recovery::Deps rd;
  rd.layout = &layout_;
  rd.events = q_;
  rd.image = image_;
  rd.cache = &cache_;
  rd.io = io_.get();
  rd.sm = sm_.get();
  rd.nat = nat_;
  rd.nodes = nm_.get();
  rd.ns = ns_.get();
  rd.inodes = &itab_;
  rd.pages = dp_.get();
  rd.cp = cpm_.get();
  rd.tx = txm_.get();
  rd.i_rwsem = i_rwsem_class_.get();
  rd.journal = journal_ != nullptr;
  rd.erase_before_reuse = erase_before_reuse_;
  rd.counters.inodes = &stats_.recovered_inodes;
  rd.counters.dnodes = &stats_.recovered_dnodes;
  rd.counters.dentries = &stats_.recovered_dentries;
  rd.host = this;
  recovery_ = std::make_unique<Recovery>(rd);
  Namei::Deps nd;
  nd.events = q_;
  nd.ns = ns_.get();
  nd.nodes = nm_.get();
  nd.inodes = &itab_;
  nd.cp = cpm_.get();
  nd.durability = durability_.get();
  nd.committer = jcm_.get();
  nd.host = this;
  namei_ = std::make_unique<Namei>(nd);
  GcMigrator::Deps gm;
  gm.cfg = &cfg_;
  gm.layout = &layout_;
  gm.events = q_;
  gm.image = image_;
  gm.cache = &cache_;
  gm.io = io_.get();
  gm.sm = sm_.get();
  gm.nat = nat_;
  gm.nodes = nm_.get();
  gm.ns = ns_.get();
  gm.inodes = &itab_;
  gm.pages = dp_.get();
  gm.data = dpath_.get();
  gm.cp = cpm_.get();
  gm.tx = txm_.get();
  gm.gc_lock = gc_lock_class_.get();
  gm.moved_fg = &stats_.gc_moved_fg;
  gm.moved_bg = &stats_.gc_moved_bg;
  gm.host = this;
  migrator_ = std::make_unique<GcMigrator>(gm);
  if (journal_ != nullptr) {
    JournalReplay::Deps jr;
    jr.layout = &layout_;
    jr.events = q_;
    jr.image = image_;
    jr.io = io_.get();
    jr.sm = sm_.get();
    jr.nat = nat_;
    jr.nodes = nm_.get();
    jr.ns = ns_.get();
    jr.inodes = &itab_;
    jr.pages = dp_.get();
    jr.cp = cpm_.get();
    jr.journal = journal_;
    jr.counters.replayed = &stats_.j_replayed;
    jr.counters.skipped = &stats_.j_replay_skipped;
    jr.counters.dropped = &stats_.j_replay_dropped;
    jr.counters.corrupt_blocks = &stats_.j_corrupt_blocks;
    jr.host = this;
    replay_ = std::make_unique<JournalReplay>(jr);
  }
  RegisterStats();
}

F2fs::~F2fs() {
  PowerCut();
  flusher_thread_.Destroy();
  cleaner_->DestroyWorkers();
  gc_thread_.Destroy();
  discard_thread_.Destroy();
  commit_thread_.Destroy();
}

void F2fs::PowerCut() {
  dead_ = true;
  io_->Kill();
  cpm_->KillLock();
  migrator_->Kill();
  if (journal_list_lock_ != nullptr) journal_list_lock_->Kill();
  cleaner_->Kill();
  wb_.Kill();
  cpm_->KillWaiters();
  dm_->Kill();
  threads_wq_.Kill();
  if (jcm_) jcm_->Kill();
  txm_->Kill();
  itab_.KillLocks();
  commit_timer_.Cancel();
}

void F2fs::RegisterStats() {
  // A group with an empty prefix (e.g. the default Env) registers nothing.
  const sim::StatGroup& g = stat_group_;
  if (g.prefix().empty()) return;
  // fs.op.<call>.lat under the names every file system uses (fs/fs_stats.h).
  static_assert(static_cast<int>(Op::kCount) == static_cast<int>(FsOp::kCount));
  for (int i = 0; i < static_cast<int>(Op::kCount); ++i) {
    const std::string name(FsOpName(static_cast<FsOp>(i)));
    g.Group("op").Add(&stats_.op_lat[i], name + ".lat", "ns", "latency of " + name);
  }
  sim::StatGroup fsync = g.Group("fsync");
  FsyncStats& fss = fsm_->stats();
  fsync.Add(&fss.total, "lat_total", "ns", "fsync/fdatasync latency inside the file system");
  fsync.Add(&fss.data, "lat_data", "ns", "fsync phase 1: writing and waiting for the file's data");
  fsync.Add(&fss.node, "lat_node", "ns",
            "fsync phase 2: finding (CPU per page visited) and writing the file's dirty nodes");
  fsync.Add(&fss.flush, "lat_flush", "ns", "fsync phase 3: device cache flush");
  fsync.Add(&fss.cp, "lat_checkpoint", "ns", "fsyncs that needed a checkpoint: its duration");
  fsync.Add(&fss.visited, "nodes_visited", "pages", "dirty node pages visited per fsync node lookup");
  fsync.Add(&fss.nodes_visited, "nodes_visited_total", "pages", "dirty node pages visited by fsyncs");
  fsync.Add(&fss.nodes_written, "nodes_written", "blocks", "node blocks written by fsyncs");
  fsync.Add(&fss.checkpoints, "checkpoints", "count", "fsyncs that wrote a checkpoint");
  fsync.Add(&fss.calls, "calls", "count", "fsync and fdatasync calls");
  sim::StatGroup cp = g.Group("cp");
  CheckpointStats& cps = cpm_->stats();
  cp.Add(&cps.count, "count", "count", "checkpoints written");
  for (int i = 0; i < static_cast<int>(CpReason::kCount); ++i)
    if (journal_ || i != static_cast<int>(CpReason::kJournal))
    cp.Add(&cps.by_reason[i], std::string("reason.") + kCpReasonNames[i], "count",
           std::string("checkpoints triggered by ") + kCpReasonNames[i]);
  cp.Add(&cps.duration, "duration", "ns",
         "checkpoint duration, from its start (cp_rwsem waits and the dentry writeback before the lock "
         "is held included) to its commit");
  cp.Add(&cps.stall, "stall", "ns", "per operation: time waiting for cp_rwsem held or awaited by a checkpoint");
  cp.Add(&cps.stall_ns, "stall_total", "ns", "total time operations stalled behind checkpoints");
  cp.Add(&cps.blocks, "blocks", "blocks", "blocks written by checkpoints (nodes, dentries, meta, pack)");
  sim::StatGroup io = g.Group("io");
  for (int i = 0; i < static_cast<int>(Io::kCount); ++i) {
    if (!journal_ && i == static_cast<int>(Io::kJournal)) continue;
    io.Add(&io_->stats().blocks_written[i], std::string("written.") + kIoNames[i], "blocks",
           std::string("4 KiB blocks written: ") + kIoNames[i]);
    io.Add(&io_->stats().blocks_read[i], std::string("read.") + kIoNames[i], "blocks",
           std::string("4 KiB blocks read: ") + kIoNames[i]);
  }
  io.Add(&io_->stats().flushes, "flushes", "count", "device cache flushes");
  io.Add(&io_->stats().fua_writes, "fua_writes", "count", "FUA writes");
  io.Add(&io_->stats().discards, "discards", "count",
         "trim requests sent to the device (discard commands and whole-section trims)");
  io.Add(&io_->stats().discard_blocks, "discard_blocks", "blocks", "blocks in the trim requests sent to the device");
  io.Add(&stats_.nat_reads, "nat_reads", "blocks",
         "NAT blocks read by node lookups whose NAT entry was not cached (f2fs_get_node_info)");
  if (erase_before_reuse_) {
    io.Add(&stats_.section_trims, "section_trims", "count",
           "whole sections trimmed so the fixed-placement device erases their flash blocks before reuse");
    io.Add(&stats_.logs_moved_at_mount, "logs_moved_at_mount", "count",
           "logs moved to a fresh section at mount because the device had programmed past them");
    io.Add(&io_->stats().submits_before_wait, "submits_before_wait", "count",
           "writes submitted before their writer waited (a node read, CPU time), so the device, which takes "
           "each flash block's or zone's writes in order, sees them before other writers' later blocks");
    if (io_->blocks_per_page() > 1) {
      io.Add(&io_->stats().pad_blocks, "pad_blocks", "blocks",
             "zero blocks written to fill a flash page a write ended inside (fixed-placement device)");
      io.Add(&io_->stats().unpadded_page_ends, "unpadded_page_ends", "count",
             "writes that ended inside a flash page whose rest another write had already taken");
    }
    if (layout_.zoned()) {
      io.Add(&io_->stats().zone_resets, "zone_resets", "commands",
             "Zone Resets of freed sections (a section is a zone; __f2fs_issue_discard_zone)");
      io.Add(&io_->stats().zone_finishes, "zone_finishes", "commands",
             "Zone Finishes of the zones a log left at mount, so they stop counting as active");
    }
  }
  sim::StatGroup dc = g.Group("discard");
  dc.Add(&stats_.discard.commands, "commands", "count",
         "discard commands issued from the discard queue (background thread and unmount)");
  dc.Add(&stats_.discard.blocks, "blocks", "blocks", "blocks in the discard commands issued");
  dc.Add(&stats_.discard.merged, "merged", "count",
         "freed ranges merged into an adjacent pending discard command");
  dc.Add(&stats_.discard.punched, "punched", "blocks",
         "blocks cut out of pending discard commands because a log allocated them (f2fs_wait_discard_bio)");
  dc.Add(&stats_.discard.write_waits, "write_waits", "count",
         "writes held until an issued discard covering one of their blocks completed");
  dc.Add(&stats_.discard.rounds, "rounds", "count", "rounds of the background discard thread");
  dc.Add(&stats_.discard.interrupted_rounds, "interrupted_rounds", "count",
         "background rounds stopped because the file system was not idle for discard (I/O or a recent request)");
  dc.Add(&stats_.discard.dropped_blocks, "dropped_blocks", "blocks",
         "pending blocks dropped without a discard (unmount timeout, sections trimmed whole on a fixed-placement "
         "device)");
  dc.AddFormula([this] { return static_cast<double>(dq_->pending_commands()); }, "pending_commands", "count",
                "discard commands pending (not issued) at the end of the run");
  dc.AddFormula([this] { return static_cast<double>(dq_->pending_blocks()); }, "pending_blocks", "blocks",
                "blocks in the discard commands pending at the end of the run");
  sim::StatGroup app = g.Group("app");
  app.Add(&stats_.app_bytes_written, "bytes_written", "bytes", "bytes written by applications");
  app.Add(&stats_.app_bytes_read, "bytes_read", "bytes", "bytes read by applications");
  app.Add(&stats_.direct_bytes_written, "direct_bytes_written", "bytes",
          "bytes written with O_DIRECT straight to the device (included in bytes_written)");
  app.Add(&stats_.direct_bytes_read, "direct_bytes_read", "bytes",
          "bytes read with O_DIRECT straight from the device (included in bytes_read)");
  sim::StatGroup alloc = g.Group("alloc");
  alloc.Add(&stats_.ipu_blocks, "ipu_blocks", "blocks", "data blocks updated in place");
  alloc.Add(&stats_.opu_blocks, "opu_blocks", "blocks", "data blocks written out of place");
  alloc.Add(&stats_.ssr_blocks, "ssr_blocks", "blocks", "blocks written into dirty segments (SSR)");
  sim::StatGroup gc = g.Group("gc");
  gc.Add(&stats_.cleaner.bg_calls, "bg_calls", "count", "background cleaning rounds");
  gc.Add(&stats_.cleaner.fg_calls, "fg_calls", "count", "foreground cleaning calls");
  gc.Add(&stats_.cleaner.victims_bg, "victims_bg", "count", "sections cleaned in background");
  gc.Add(&stats_.cleaner.victims_fg, "victims_fg", "count", "sections cleaned in foreground");
  gc.Add(&stats_.gc_moved_bg, "moved_bg", "blocks", "blocks moved by background cleaning");
  gc.Add(&stats_.gc_moved_fg, "moved_fg", "blocks", "blocks moved by foreground cleaning");
  gc.Add(&stats_.cleaner.sections_freed, "sections_freed", "count", "sections emptied by cleaning");
  gc.Add(&stats_.cleaner.region_passes, "region_passes", "count",
         "per-region foreground cleaning passes (parafs_2d.gc_threads: per_region), each ended by a checkpoint");
  gc.Add(&stats_.cleaner.max_parallel, "max_parallel", "count", "most sections being migrated at one time");
  sim::StatGroup rec = g.Group("recovery");
  rec.Add(&stats_.recovered_inodes, "inodes", "count", "inodes recovered by roll-forward");
  rec.Add(&stats_.recovered_dnodes, "dnodes", "count", "dnodes replayed by roll-forward");
  rec.Add(&stats_.recovered_dentries, "dentries", "count", "dentries re-linked by roll-forward");
  rec.Add(&stats_.orphans_freed, "inodes_freed", "count", "unlinked inodes released");
  if (journal_) {
    sim::StatGroup j = g.Group("journal");
    j.AddFormula([this] { return static_cast<double>(journal_->records_appended()); }, "records", "count",
                 "records appended by operations to their inodes' lists since the mount");
    j.Add(&jcm_->stats().commits, "commits", "count", "epochs committed to the journal area");
    j.Add(&jcm_->stats().blocks, "blocks", "blocks", "journal blocks written");
    j.AddFormula([this] { return static_cast<double>(jcm_->stats().blocks.value() * kBlockSize); }, "bytes", "bytes",
                 "journal bytes written");
    j.Add(&jcm_->stats().commit_lat, "commit_lat", "ns",
          "commit duration: waiting for the data written before it, then the journal blocks");
    j.Add(&jcm_->stats().commit_records, "commit_records", "count", "records per commit");
    j.Add(&jcm_->stats().space_checkpoints, "space_checkpoints", "count",
          "commits that waited for a checkpoint because the journal was full");
    j.Add(&jcm_->stats().fsync_commits, "fsync_commits", "count", "fsyncs that committed the journal themselves");
    j.Add(&stats_.j_applies, "applies", "count",
          "checkpoints that applied committed node pages first, with operations going on (apply: committed)");
    j.Add(&stats_.j_apply_blocks, "apply_blocks", "blocks",
          "node pages those applies wrote (each once, with its latest content)");
    j.Add(&stats_.j_apply_held, "apply_held", "count",
          "dirty node pages those applies held back because uncommitted records touched them");
    j.Add(&stats_.j_apply_lat, "apply_lat", "ns",
          "apply duration (its node writes), before the checkpoint proper (fs.cp.duration)");
    j.Add(&stats_.j_replayed, "replayed", "count", "records replayed at mount");
    j.Add(&stats_.j_replay_skipped, "replay_skipped", "count",
          "committed records replay found already applied or inapplicable");
    j.Add(&stats_.j_replay_dropped, "replay_dropped", "count",
          "records of a commit whose last block never became durable, dropped at mount");
    j.Add(&stats_.j_corrupt_blocks, "corrupt_blocks", "count",
          "journal blocks that failed their checksum or format checks at mount (replay stops there)");
    j.AddFormula([this] { return static_cast<double>(journal_->used_blocks()); }, "used_blocks", "blocks",
                 "journal blocks a replay may still need at the end of the run");
  }
  sim::StatGroup pc = g.Group("page_cache");
  pc.Add(&stats_.evicted_pages, "evicted", "pages", "clean pages evicted by the memory limit");
  pc.Add(&stats_.throttled_writes, "throttled_writes", "count", "writes throttled by dirty_ratio");
  g.AddFormula([this] { return static_cast<double>(blocks_written()); }, "blocks_written", "blocks",
               "all blocks the file system wrote to the device");
  g.AddFormula(
      [this] {
        const double app = static_cast<double>(stats_.app_bytes_written.value()) / kBlockSize;
        return app > 0 ? static_cast<double>(blocks_written()) / app : 0.0;
      },
      "write_amplification", "ratio",
      "FS-layer write amplification: blocks written to the device (data, nodes, metadata, checkpoints, "
      "cleaning) / application blocks written; end to end = this x the device's (FTL) write amplification");
  if (device_wa_) {
    g.AddFormula(
        [this] {
          const double app = static_cast<double>(stats_.app_bytes_written.value()) / kBlockSize;
          return app > 0 ? static_cast<double>(blocks_written()) / app * device_wa_() : 0.0;
        },
        "write_amplification_end_to_end", "ratio",
        "end-to-end write amplification: FS-layer write amplification x the device's");
  }
  g.AddSeries([this] { return static_cast<double>(nm_->cache().dirty().size()); }, sim::StatGroup::SeriesKind::kValue,
              "dirty_nodes", "pages", "dirty node pages");
  g.AddSeries([this] { return static_cast<double>(wb_.dirty_pages()); }, sim::StatGroup::SeriesKind::kValue,
              "dirty_data", "pages", "dirty data pages");
  g.AddIntervalRatio([this] { return static_cast<double>(blocks_written()); },
                     [this] { return static_cast<double>(stats_.app_bytes_written.value()) / kBlockSize; },
                     "write_amplification", "ratio",
                     "FS-layer write amplification of the interval: blocks it wrote to the device / application "
                     "blocks written in it");
  g.AddSeries([this] { return static_cast<double>(gc_moved_blocks()); }, sim::StatGroup::SeriesKind::kDelta,
              "gc.moved", "blocks", "blocks moved by cleaning (background and foreground) in the interval");
  g.AddSeries([this] { return static_cast<double>(sm_->free_segments()); }, sim::StatGroup::SeriesKind::kValue,
              "free_segments", "segments", "free segments");
}

uint64_t F2fs::blocks_written() const {
  uint64_t n = 0;
  for (const auto& c : io_->stats().blocks_written) n += c.value();
  return n;
}

WritesByOrigin F2fs::writes_by_origin() const {
  const auto n = [this](Io k) { return io_->stats().blocks_written[static_cast<int>(k)].value(); };
  WritesByOrigin w;
  w[WriteOrigin::kData] = n(Io::kData);
  w[WriteOrigin::kMetadata] = n(Io::kNode) + n(Io::kDentry) + n(Io::kMeta);
  w[WriteOrigin::kJournal] = n(Io::kJournal);
  w[WriteOrigin::kCleaning] = n(Io::kGcData) + n(Io::kGcNode);
  w[WriteOrigin::kCheckpoint] = n(Io::kCp);
  return w;
}

uint64_t F2fs::gc_moved_blocks() const { return stats_.gc_moved_bg.value() + stats_.gc_moved_fg.value(); }

F2fs::OpScope::~OpScope() {
  if (fs_->dead_) return;
  fs_->stats_.op_lat[static_cast<int>(op_)].Record((fs_->q_->now() - start_).ns());
  fs_->last_op_time_ = fs_->q_->now();
}

sim::CpuBurst F2fs::Cpu(sim::SimTime d) { return sim::CpuBurst(cpu_, q_, d); }

bool F2fs::IsIdle(sim::SimTime interval) const {
  return !io_->AnyInFlight() && q_->now() - last_op_time_ >= interval;
}

bool F2fs::InflightIo(bool count_queued_discards) const {
  return io_->InflightIo(count_queued_discards);
}

sim::Task<void> F2fs::BalanceFs() {
  if (HasNotEnoughFreeSecs(0, 0)) co_await cleaner_->Gc(/*foreground=*/true, /*from_thread=*/false);
}

FsResult<F2fs::OpenFile*> F2fs::GetFd(Fd fd) {
  OpenFile* f = fds_.Get(fd);
  return FsResult<OpenFile*>{f, f ? Errno::kOk : Errno::kBadF};
}

sim::Status F2fs::Check() const {
  if (dead_) return sim::Status::InvalidInput("fsck: file system is dead (power cut)");
  Fsck::View v;
  v.layout = &layout_;
  v.sm = sm_.get();
  v.nat = nat_;
  v.nodes = &nm_->cache();
  v.inodes = &itab_;
  v.image = image_;
  v.live_masters = &txm_->live_masters();
  v.stolen = &txm_->stolen_owners();
  v.valid_block_count = valid_block_count_;
  v.valid_inode_count = valid_inode_count_;
  return Fsck(v).Run();
}

FsResult<Inode*> F2fs::FdInode(Fd fd, uint32_t* flags) {
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) return {nullptr, of.err};
  *flags = of.value->flags;
  return {of.value->inode, Errno::kOk};
}

FileStat F2fs::StatOf(const Inode* inode) const {
  const InodeFields& f = I(inode);
  FileStat s;
  s.ino = inode->ino.v;
  s.size = TxManager::Running(inode) ? inode->tx->size : f.size;
  s.blocks = f.data_blocks;
  s.nlink = f.links;
  s.is_dir = f.is_dir;
  s.mtime = f.mtime;
  return s;
}

// ---- Open / close.

sim::Task<FsResult<Fd>> F2fs::Open(std::string_view path, uint32_t flags) {
  OpScope op(this, Op::kOpen);
  co_await Cpu(cfg_.cpu.syscall);
  ParentRef parent;
  FsResult<InodeRef> t = co_await namei_->OpenInode(path, flags, &parent);
  if (!t.ok()) co_return FsResult<Fd>{-1, t.err};
  const bool want_write = (flags & (kWrOnly | kRdWr)) != 0;
  InodeRef target = std::move(t.value);
  Inode* in = target.get();
  if ((flags & kDirectory) && !in->is_dir) co_return FsResult<Fd>{-1, Errno::kNotDir};
  if ((flags & kTrunc) && want_write && !in->is_dir && StatOf(in).size > 0) {
    co_await in->lock.LockExclusive();
    vfs::ExclusiveLock g(&in->lock);
    const Errno e = TxManager::Running(in) ? co_await txm_->Truncate(in, 0) : co_await DoTruncate(in, 0);
    if (e != Errno::kOk) co_return FsResult<Fd>{-1, e};
  }
  const Fd fd = fds_.Open(OpenFile{in, 0, flags});
  ++in->refs;  // the open file's reference
  co_return FsResult<Fd>{fd, Errno::kOk};
}

sim::Task<FsStatus> F2fs::Close(Fd fd) {
  OpScope op(this, Op::kClose);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsStatus{false, of.err};
  Inode* in = of.value->inode;
  fds_.Close(fd);
  CHECK_GT(in->refs, 0u);
  --in->refs;
  if (in->refs == 0) {
    if (in->unlinked) co_await ReleaseInode(in);
    else MaybeEvictInode(in);
  }
  co_return FsStatus{true, Errno::kOk};
}

// ---- Data.

sim::Task<FsResult<uint64_t>> F2fs::DoPread(Fd fd, int64_t offset, std::span<uint8_t> out, Op op,
                                            uint64_t discard) {
  OpScope scope(this, op);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsResult<uint64_t>{0, of.err};
  // The descriptor table may move its entries while this call waits: what
  // is needed of the entry is read now.
  const uint32_t flags = of.value->flags;
  if (flags & kWrOnly) co_return FsResult<uint64_t>{0, Errno::kBadF};
  InodeRef ref(&itab_, of.value->inode);
  Inode* in = ref.get();
  if (in->is_dir) co_return FsResult<uint64_t>{0, Errno::kIsDir};
  co_await in->lock.LockShared();
  vfs::SharedLock g(&in->lock);
  uint64_t off;
  if (offset >= 0) off = static_cast<uint64_t>(offset);
  else if (OpenFile* f = fds_.Get(fd); f != nullptr && f->inode == in) off = f->pos;
  else co_return FsResult<uint64_t>{0, Errno::kBadF};  // closed while this call waited
  uint64_t n = 0;
  Errno e;
  const uint64_t len = discard > 0 ? discard : out.size();
  const int direct = (flags & kDirect) ? dpath_->DirectIoMode(in, off, len, false) : 1;
  if (direct < 0) co_return FsResult<uint64_t>{0, Errno::kInval};
  // A discarding read goes through a buffer where it is not a page-cache read.
  std::vector<uint8_t> scratch;
  if (discard > 0 && (TxManager::Running(in) || direct == 0)) {
    scratch.resize(discard);
    out = scratch;
  }
  if (TxManager::Running(in)) e = co_await txm_->Read(in, off, out, &n);  // O_DIRECT too: the writes are in memory
  else if (direct == 0) e = co_await dpath_->DirectRead(in, off, out, &n);
  else e = co_await DoRead(in, off, out.empty() ? nullptr : out.data(), len, &n);
  // The descriptor may have been closed (and reused) meanwhile.
  if (OpenFile* f = fds_.Get(fd); offset < 0 && f != nullptr && f->inode == in) f->pos = off + n;
  co_return FsResult<uint64_t>{n, e};
}

sim::Task<FsResult<uint64_t>> F2fs::DoPwrite(Fd fd, int64_t offset, std::span<const uint8_t> data,
                                             uint64_t length, Op op) {
  OpScope scope(this, op);
  co_await Cpu(cfg_.cpu.syscall);
  if (!data.empty() && data.size() != length) co_return FsResult<uint64_t>{0, Errno::kInval};
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsResult<uint64_t>{0, of.err};
  const uint32_t flags = of.value->flags;
  if (!(flags & (kWrOnly | kRdWr))) co_return FsResult<uint64_t>{0, Errno::kBadF};
  InodeRef ref(&itab_, of.value->inode);
  Inode* in = ref.get();
  if (in->is_dir) co_return FsResult<uint64_t>{0, Errno::kIsDir};
  co_await BalanceFs();
  co_await BalanceDirtyPages();
  co_await in->lock.LockExclusive();
  vfs::ExclusiveLock g(&in->lock);
  uint64_t off;
  // O_APPEND appends, pwrite's offset notwithstanding (Linux).
  if (flags & kAppend) off = TxManager::Running(in) ? in->tx->size : I(in).size;
  else if (offset >= 0) off = static_cast<uint64_t>(offset);
  else if (OpenFile* f = fds_.Get(fd); f != nullptr && f->inode == in) off = f->pos;
  else co_return FsResult<uint64_t>{0, Errno::kBadF};  // closed while this call waited
  uint64_t n = 0;
  Errno e;
  const int direct = (flags & kDirect) ? dpath_->DirectIoMode(in, off, length, true) : 1;
  if (direct < 0) co_return FsResult<uint64_t>{0, Errno::kInval};
  if (TxManager::Running(in)) e = co_await txm_->Write(in, off, data, length, &n);
  else if (direct == 0) e = co_await dpath_->DirectWrite(in, off, data, length, &n);
  else e = co_await DoWrite(in, off, data, length, &n);
  if (OpenFile* f = fds_.Get(fd); offset < 0 && f != nullptr && f->inode == in) f->pos = off + n;
  if (n > 0 && (flags & kSync)) {
    const Errno se = co_await SyncFile(in, false);
    if (se != Errno::kOk) co_return FsResult<uint64_t>{n, se};
  }
  co_return FsResult<uint64_t>{n, n > 0 ? Errno::kOk : e};
}

sim::Task<FsResult<uint64_t>> F2fs::Read(Fd fd, std::span<uint8_t> out) { return DoPread(fd, -1, out, Op::kRead); }

sim::Task<FsResult<uint64_t>> F2fs::Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) {
  return DoPread(fd, static_cast<int64_t>(offset), out, Op::kPread);
}

sim::Task<FsResult<uint64_t>> F2fs::ReadDiscard(Fd fd, uint64_t length) {
  if (length == 0) return Read(fd, {});
  return DoPread(fd, -1, {}, Op::kRead, length);
}

sim::Task<FsResult<uint64_t>> F2fs::PreadDiscard(Fd fd, uint64_t offset, uint64_t length) {
  if (length == 0) return Pread(fd, offset, {});
  return DoPread(fd, static_cast<int64_t>(offset), {}, Op::kPread, length);
}

sim::Task<FsResult<uint64_t>> F2fs::Write(Fd fd, std::span<const uint8_t> data, uint64_t length) {
  return DoPwrite(fd, -1, data, length, Op::kWrite);
}

sim::Task<FsResult<uint64_t>> F2fs::Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data, uint64_t length) {
  return DoPwrite(fd, static_cast<int64_t>(offset), data, length, Op::kPwrite);
}

sim::Task<FsStatus> F2fs::Ftruncate(Fd fd, uint64_t size) {
  OpScope scope(this, Op::kFtruncate);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsStatus{false, of.err};
  if (!(of.value->flags & (kWrOnly | kRdWr))) co_return FsStatus{false, Errno::kInval};
  InodeRef ref(&itab_, of.value->inode);
  Inode* in = ref.get();
  if (in->is_dir) co_return FsStatus{false, Errno::kIsDir};
  co_await BalanceFs();
  co_await in->lock.LockExclusive();
  vfs::ExclusiveLock g(&in->lock);
  const Errno e = TxManager::Running(in) ? co_await txm_->Truncate(in, size) : co_await DoTruncate(in, size);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> F2fs::Truncate(std::string_view path, uint64_t size) {
  OpScope scope(this, Op::kTruncate);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<Nid> r = co_await LookupPath(path);
  if (!r.ok()) co_return FsStatus{false, r.err};
  Inode* in0 = co_await GetInode(r.value);
  if (!in0) co_return FsStatus{false, Errno::kNoEnt};
  InodeRef ref(&itab_, in0);
  Inode* in = ref.get();
  if (in->is_dir) co_return FsStatus{false, Errno::kIsDir};
  co_await BalanceFs();
  co_await in->lock.LockExclusive();
  vfs::ExclusiveLock g(&in->lock);
  const Errno e = TxManager::Running(in) ? co_await txm_->Truncate(in, size) : co_await DoTruncate(in, size);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> F2fs::DoFsync(Fd fd, bool datasync, Op op) {
  OpScope scope(this, op);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsStatus{false, of.err};
  // f2fs_sync_file takes no inode lock (vfs_fsync_range neither): reads,
  // writes and other fsyncs of the file run alongside; the data writeback
  // is the flusher's path, which runs beside them too.
  InodeRef ref(&itab_, of.value->inode);
  // A transaction member's fsync holds its i_rwsem shared, so it never
  // runs beside the commit (which must not see its nodes written with
  // fsync marks half-way); its running writes are not the fsync's.
  vfs::SharedLock member;
  if (ref->tx) {
    co_await ref->lock.LockShared();
    member = vfs::SharedLock(&ref->lock);
  }
  const Errno e = co_await SyncFile(ref.get(), datasync);
  co_return FsStatus{e == Errno::kOk, e};
}

sim::Task<FsStatus> F2fs::Fsync(Fd fd) { return DoFsync(fd, false, Op::kFsync); }
sim::Task<FsStatus> F2fs::Fdatasync(Fd fd) { return DoFsync(fd, true, Op::kFdatasync); }

sim::Task<FsResult<FileStat>> F2fs::Fstat(Fd fd) {
  OpScope scope(this, Op::kFstat);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<OpenFile*> of = GetFd(fd);
  if (!of.ok()) co_return FsResult<FileStat>{{}, of.err};
  co_return FsResult<FileStat>{StatOf(of.value->inode), Errno::kOk};
}

sim::Task<FsResult<FileStat>> F2fs::Stat(std::string_view path) {
  OpScope scope(this, Op::kStat);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<Nid> r = co_await LookupPath(path);
  if (!r.ok()) co_return FsResult<FileStat>{{}, r.err};
  Inode* in = itab_.Find(r.value);  // GetInode's first step, inline
  if (in == nullptr) in = co_await GetInode(r.value);
  if (!in) co_return FsResult<FileStat>{{}, Errno::kNoEnt};
  co_return FsResult<FileStat>{StatOf(in), Errno::kOk};
}

// ---- Namespace.

sim::Task<FsStatus> F2fs::Mkdir(std::string_view path) {
  OpScope scope(this, Op::kMkdir);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await namei_->Mkdir(path);
}

sim::Task<FsStatus> F2fs::Unlink(std::string_view path) {
  OpScope scope(this, Op::kUnlink);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await namei_->Unlink(path);
}

sim::Task<FsStatus> F2fs::Rmdir(std::string_view path) {
  OpScope scope(this, Op::kRmdir);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await namei_->Rmdir(path);
}

sim::Task<FsStatus> F2fs::Rename(std::string_view from, std::string_view to) {
  OpScope scope(this, Op::kRename);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await namei_->Rename(from, to);
}

sim::Task<FsStatus> F2fs::Link(std::string_view existing, std::string_view new_path) {
  OpScope scope(this, Op::kLink);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await namei_->Link(existing, new_path);
}

sim::Task<FsResult<std::vector<std::string>>> F2fs::Readdir(std::string_view path) {
  OpScope scope(this, Op::kReaddir);
  co_await Cpu(cfg_.cpu.syscall);
  FsResult<Nid> r = co_await LookupPath(path);
  if (!r.ok()) co_return FsResult<std::vector<std::string>>{{}, r.err};
  Inode* in0 = co_await GetInode(r.value);
  if (!in0) co_return FsResult<std::vector<std::string>>{{}, Errno::kNoEnt};
  InodeRef ref(&itab_, in0);
  if (!I(in0).is_dir) co_return FsResult<std::vector<std::string>>{{}, Errno::kNotDir};
  co_await in0->lock.LockShared();
  vfs::SharedLock g(&in0->lock);
  std::vector<std::pair<std::string, Dentry>> l = co_await ListDir(in0);
  std::vector<std::string> names;
  names.reserve(l.size());
  for (auto& e : l) names.push_back(std::move(e.first));
  co_return FsResult<std::vector<std::string>>{std::move(names), Errno::kOk};
}

sim::Task<FsStatus> F2fs::Sync() {
  OpScope scope(this, Op::kSync);
  co_await Cpu(cfg_.cpu.syscall);
  std::vector<Nid> inos;
  for (const auto& [ino, in] : itab_.all())
    if (in->dirty_pages > 0 && !in->is_dir) inos.push_back(in->ino);
  std::sort(inos.begin(), inos.end());
  for (Nid ino : inos) {
    Inode* in = FindInode(ino);
    if (!in) continue;
    InodeRef ref(&itab_, in);
    co_await WritebackInode(in, UINT64_MAX, true);
  }
  // Data writes others started (the flusher) complete too: the checkpoint
  // does not wait for plain data.
  co_await io_->WaitPlainWrites();
  co_await Checkpoint(CpReason::kSync);
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> F2fs::Unmount() {
  stopping_ = true;
  wb_.Kick();
  cleaner_->Kick();
  dm_->Kick();
  commit_timer_.Kick();
  while (threads_running_ > 0 && !dead_) co_await threads_wq_.Wait();
  std::vector<Nid> inos;
  for (const auto& [ino, in] : itab_.all())
    if (in->dirty_pages > 0 && !in->is_dir) inos.push_back(in->ino);
  std::sort(inos.begin(), inos.end());
  for (Nid ino : inos) {
    Inode* in = FindInode(ino);
    if (!in) continue;
    InodeRef ref(&itab_, in);
    co_await WritebackInode(in, UINT64_MAX, true);
  }
  co_await io_->WaitPlainWrites();
  co_await Checkpoint(CpReason::kUmount);
  if (cfg_.discard.enabled) co_await dm_->IssueAtUmount();
  co_await io_->WaitAllWrites();
  co_return FsStatus{true, Errno::kOk};
}

}  // namespace fs::f2fs
