// Journal durability (F2FS-J): every metadata change appends a record to
// its inode's list in the running epoch (Journal, journal.h); F2fs's commit
// thread and fsync write them (f2fs_journal.cc). A background checkpoint
// runs when the journal's free space falls to apply_free_ratio or
// checkpoint_interval after the last one (replacing f2fs_balance_fs_bg's
// triggers). fs.f2fs.journal.fsync: commit (the paper's) — fsync commits
// the journal and never checkpoints; rollforward (the F2FS-J artifact's) —
// stock F2FS fsync, FsyncNeedsCheckpoint answering as the checkpoint mode.
#include <glog/logging.h>

#include "fs/f2fs/durability.h"
#include "fs/f2fs/journal.h"
#include "sim/registry.h"

namespace fs::f2fs {
namespace {

class JournalDurability final : public Durability {
 public:
  explicit JournalDurability(const DurabilityContext& ctx)
      : cfg_(ctx.cfg->impl_configs.Get<JournalConfig>("journal")),
        journal_(ctx.layout->journal_blocks),
        host_(*ctx.host) {
    CHECK_GT(ctx.layout->journal_blocks, 0u) << "durability journal on a volume formatted without a journal area";
    if (cfg_.fsync == "rollforward") {
      // Stock F2FS fsync: need_do_checkpoint as the checkpoint mode decides it.
      auto d = MakeDurability("checkpoint", ctx);
      CHECK(d.ok()) << d.status().message();
      stock_fsync_ = std::move(d).value();
    }
  }

  void OnCreate(Nid dir, Nid ino, std::string_view name, bool is_dir) override {
    Append(is_dir ? JournalRecordType::kMkdir : JournalRecordType::kCreate, ino, dir, name);
  }
  void OnUnlink(Nid dir, Nid ino, std::string_view name, bool is_dir) override {
    Append(is_dir ? JournalRecordType::kRmdir : JournalRecordType::kUnlink, ino, dir, name);
  }
  void OnRename(Nid from_dir, std::string_view from, Nid to_dir, std::string_view to, Nid ino,
                Nid replaced) override {
    if (!all_) return;
    JournalRecord r;
    r.type = JournalRecordType::kRename;
    r.ino = ino;
    r.dir = from_dir;
    r.name = std::string(from);
    r.dir2 = to_dir;
    r.name2 = std::string(to);
    r.replaced = replaced;
    journal_.Append(ino, std::move(r));
  }
  void OnLink(Nid dir, Nid ino, std::string_view name) override {
    if (all_) Append(JournalRecordType::kLink, ino, dir, name);
  }
  void OnSetattr(Nid ino, uint64_t size) override {
    if (!all_) return;
    JournalRecord r;
    r.type = JournalRecordType::kSetattr;
    r.ino = ino;
    r.size = size;
    journal_.Append(ino, std::move(r));
  }
  // A data block's new address (DATA_WRITE: its NAT/SIT/SSA deltas). Node
  // blocks need no record (replay rebuilds the nodes it changes), nor do
  // freed blocks (the unlink or setattr that freed them is recorded), nor
  // directory blocks (replay rebuilds entries from the namespace records).
  void OnBlockUpdate(const BlockUpdate& u) override {
    if (!all_ || u.node || u.dir_data || u.new_addr == kNullAddr || u.new_addr == kNewAddr) return;
    JournalRecord r;
    r.type = JournalRecordType::kDataWrite;
    r.ino = u.ino;
    r.dnode = u.nid;
    r.ofs_in_node = u.ofs_in_node;
    r.index = u.index;
    r.size = u.file_size;
    r.old_addr = u.old_addr;
    r.new_addr = u.new_addr;
    journal_.Append(u.ino, std::move(r));
  }

  // fsync commit: never asked (fsync commits the journal, JournalCommitter::Fsync).
  // fsync rollforward: need_do_checkpoint's cases, as stock F2FS.
  bool FsyncNeedsCheckpoint(const FsyncFacts& f) const override {
    return stock_fsync_ != nullptr && stock_fsync_->FsyncNeedsCheckpoint(f);
  }
  // The journal's checkpoints replace f2fs_balance_fs_bg's: when its free
  // space runs low, or checkpoint_interval after the last one.
  bool NeedBackgroundCheckpoint() const override {
    const double free = static_cast<double>(journal_.free_blocks());
    if (free <= cfg_.apply_free_ratio.value * journal_.blocks()) return true;
    if (!host_.HasUncheckpointedChanges()) return false;
    return host_.Now() - last_cp_time_ >= cfg_.checkpoint_interval;
  }
  void OnCheckpointCommitted(sim::SimTime when) override { last_cp_time_ = when; }

  Journal* journal() override { return &journal_; }
  sim::SimTime RecordCpu() const override { return cfg_.record_cpu; }

 private:
  // A namespace record: `name` in `dir`, about inode `ino`, in ino's list.
  void Append(JournalRecordType type, Nid ino, Nid dir, std::string_view name) {
    JournalRecord r;
    r.type = type;
    r.ino = ino;
    r.dir = dir;
    r.name = std::string(name);
    journal_.Append(ino, std::move(r));
  }

  const JournalConfig& cfg_;
  Journal journal_;
  const DurabilityHost& host_;
  sim::SimTime last_cp_time_;
  std::unique_ptr<Durability> stock_fsync_;
  // records all (the paper's); false: namespace, only create, mkdir, unlink
  // and rmdir (the artifact's).
  const bool all_ = cfg_.records == "all";  // fsync rollforward: the checkpoint mode's need_do_checkpoint
};

}  // namespace

const sim::Registrar<DurabilityInfo> kRegisteredJournal{{
    "journal",
    "F2FS-J's: metadata changes append records to per-inode lists in global epochs, committed to a journal "
    "area every commit_interval (ordered: their data first) and replayed at mount after the checkpoint; "
    "checkpoints as the kernel's, and when the journal runs low on space",
    [](const DurabilityContext& ctx) -> std::unique_ptr<Durability> {
      return std::make_unique<JournalDurability>(ctx);
    },
    sim::ImplSection::Of<JournalConfig>("journal", "F2FS-J's metadata journal (fs.f2fs.durability: journal)")}};

}  // namespace fs::f2fs
