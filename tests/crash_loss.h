// The crash-loss experiment: what a power cut takes away from F2FS
// (checkpoint rollback plus roll-forward of fsynced files) and from F2FS-J
// (journal replay of committed epochs).
//
// Each cut runs a random workload (RandomWorkload: a reference model of
// every file's bytes and of the namespace) on a fresh 256 MiB volume with
// the model's default parameters, cuts the power at a simulated time drawn
// uniformly from [min_time, max_time] (the device keeps a random share of
// its volatile writes, as in the crash tests), mounts, and compares the
// recovered volume with the model's state at the cut:
//  - operations lost: the namespace changes (create, mkdir, unlink, rmdir,
//    rename, link) completed before the cut that are not in the recovered
//    state — those after the state recovery returned to (the checkpoint's,
//    or the last replayed commit's), but for the creation of a file that
//    is there (roll-forward re-linked it): created files missing,
//    directories missing, unlinked entries back, renames undone;
//  - data lost: bytes of the files linked at the cut that the recovered
//    volume does not hold (a missing file loses all of its bytes; a file
//    whose size went back loses the bytes past it);
//  - guarantees broken (must be 0): the recovered state is not one the
//    durability mode allows, fsynced data included (the crash tests'
//    oracle), the checker fails, or the mount fails.
// Same seed and parameters give the same figures.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fs/f2fs/f2fs_crash_oracle.h"
#include "fs/f2fs/f2fs_model_test_util.h"
#include "fs/f2fs/journal.h"
#include "sim/rng.h"
#include "sim/time.h"

namespace fs::f2fs::testing {

struct LossSetup {
  std::string name;        // row label
  F2fsConfig cfg;          // file-system parameters
  WorkloadOptions::Mix mix = WorkloadOptions::Mix::kMetadata;
  std::string workload;    // row label
};

struct LossParams {
  int cuts = 1000;
  uint64_t seed = 1;
  sim::SimTime min_time = sim::Ms(200);
  sim::SimTime max_time = sim::Ms(20000);
  sim::SimTime think = sim::Ms(2);  // mean think time between operations
  uint64_t volume = 256ull << 20;
  int first_cut = 0;  // run cuts first_cut .. cuts - 1 only (the same cuts as in a whole run)
};

struct LossTotals {
  int cuts = 0;
  uint64_t ops_before_cut = 0;
  uint64_t ns_ops_before_cut = 0;  // namespace changes among them
  // Namespace changes completed before the cut and not recovered, by kind.
  uint64_t creates_lost = 0;     // created files missing
  uint64_t mkdirs_lost = 0;      // directories missing
  uint64_t unlinks_lost = 0;     // unlinked files and removed directories back
  uint64_t renames_lost = 0;     // renames undone
  uint64_t links_lost = 0;
  int cuts_losing_ops = 0;
  uint64_t bytes_linked = 0;     // bytes of the files linked at the cut
  uint64_t bytes_lost = 0;
  int guarantee_failures = 0;    // oracle: a state the mode does not allow (fsynced data lost, ...)
  int checker_failures = 0;
  int mount_failures = 0;
  std::string first_failure;
  uint64_t ops_lost() const { return creates_lost + mkdirs_lost + unlinks_lost + renames_lost + links_lost; }
};

// The file-system parameters of the experiment: the model's defaults
// (kernel defaults; F2FS checkpoints on f2fs_balance_fs_bg's triggers, at
// the latest every cp_interval = 60 s) with a 64 MiB page cache. The
// journal mode keeps the F2FS-J defaults (commit every 5 s and at fsync,
// checkpoint every 3 s or at 5 % free journal) except the journal's size:
// 16 MiB, as the default 256 MiB is the whole test volume.
inline F2fsConfig LossF2fsConfig() { return TestConfig(); }
inline F2fsConfig LossJournalConfig() {
  F2fsConfig c = TestConfig();
  c.durability = "journal";
  c.impl_configs.Mutable<JournalConfig>("journal").size = sim::MiB(16);
  return c;
}

// Compares the mounted volume with the model at the cut; adds to `t`.
// `recovered_clock`: the model's clock at the state recovery returned to
// (the checkpoint's, or the last replayed commit's epoch switch).
inline sim::Task<void> CountLoss(F2fs* fs, const RefFs* ref, uint64_t recovered_clock, LossTotals* t) {
  std::map<std::string, Seen> got;
  const std::string err = co_await Walk(fs, "", &got);
  if (!err.empty()) {
    ++t->guarantee_failures;
    if (t->first_failure.empty()) t->first_failure = "walk: " + err;
    co_return;
  }
  std::map<uint64_t, uint64_t> id_of_ino;  // the newest model file holding an inode number
  for (const auto& [id, f] : ref->files) id_of_ino[f.ino] = id;
  std::map<uint64_t, std::vector<std::string>> got_paths;  // model file id -> recovered names
  for (const auto& [p, g] : got) {
    if (g.is_dir) continue;
    auto it = id_of_ino.find(g.ino);
    if (it != id_of_ino.end()) got_paths[it->second].push_back(p);
  }
  std::map<uint64_t, std::string> linked;  // model file id -> a name at the cut
  for (const auto& [p, e] : ref->ns)
    if (!e.is_dir) linked.emplace(e.file, p);
  // The namespace changes completed after the recovered state are lost,
  // but for the creation of a file that is there (roll-forward re-linked
  // it).
  uint64_t lost_here = 0;
  for (auto it = ref->ns_log.rbegin(); it != ref->ns_log.rend() && it->clock > recovered_clock; ++it) {
    switch (it->op) {
      case RefFs::NsChange::kCreate:
        if (got_paths.count(it->file)) continue;
        ++t->creates_lost;
        break;
      case RefFs::NsChange::kMkdir: ++t->mkdirs_lost; break;
      case RefFs::NsChange::kUnlink:
      case RefFs::NsChange::kRmdir: ++t->unlinks_lost; break;
      case RefFs::NsChange::kRename: ++t->renames_lost; break;
      case RefFs::NsChange::kLink: ++t->links_lost; break;
    }
    ++lost_here;
  }
  if (lost_here > 0) ++t->cuts_losing_ops;
  for (const auto& [id, path] : linked) {
    const std::vector<uint8_t>& want = ref->files.at(id).data;
    t->bytes_linked += want.size();
    auto gp = got_paths.find(id);
    if (gp == got_paths.end()) {
      t->bytes_lost += want.size();
      continue;
    }
    FsResult<Fd> fd = co_await fs->Open(gp->second.front(), kRdOnly);
    if (!fd.ok()) {
      t->bytes_lost += want.size();
      continue;
    }
    std::vector<uint8_t> have(want.size());
    FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, have);
    co_await fs->Close(fd.value);
    const uint64_t n = r.ok() ? r.value : 0;
    for (uint64_t i = 0; i < want.size(); ++i)
      if (i >= n || have[i] != want[i]) ++t->bytes_lost;
  }
}

// Runs `p.cuts` power cuts of `setup`.
inline LossTotals RunLossCuts(const LossSetup& setup, const LossParams& p) {
  LossTotals t;
  // The same workload and cut time for every setup of a workload (cut i
  // of F2FS and of F2FS-J pair up); the device's choices at the cut too.
  sim::Rng rng(p.seed, "f2fs.crash_loss." + setup.workload);
  for (int it = 0; it < p.cuts; ++it) {
    const uint64_t workload_seed = rng.Next();
    const int64_t span = (p.max_time - p.min_time).ns();
    const sim::SimTime cut = p.min_time + sim::Ns(static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(span) + 1)));
    if (it < p.first_cut) continue;
    Stack s(p.volume, setup.cfg);
    s.FormatAndMount();
    const uint64_t mount_ver = s.fs().checkpoint_version();
    WorkloadOptions opt;
    opt.ops = 1 << 30;
    opt.check_every_step = false;
    opt.mix = setup.mix;
    opt.think = p.think;
    opt.q = &s.q();
    JournalWatch* jw = nullptr;
    opt.on_op_done = [&jw] {
      if (jw) jw->OpDone();
    };
    RandomWorkload w(s.fs_ptr(), workload_seed, opt);
    CpRecorder rec(&w.ref());
    JournalWatch jwatch(&rec, &w.ref());
    jw = &jwatch;
    s.fs().set_listener(&jwatch);
    auto body = [&]() -> sim::Task<void> { co_await w.Run(); };
    sim::Task<void> task = body();
    auto h = task.Release();
    sim::Resume(h);
    while (s.q().now() < cut && w.failure.empty() && s.q().Step()) {
    }
    t.ops_before_cut += w.ops_done();
    t.ns_ops_before_cut += w.ref().ns_log.size();
    ++t.cuts;
    auto fail = [&t, it](int* counter, const std::string& what) {
      ++*counter;
      if (t.first_failure.empty()) t.first_failure = fmt::format("cut {}: {}", it, what);
    };
    if (!w.failure.empty()) {
      fail(&t.guarantee_failures, "workload: " + w.failure);
      s.q().Clear();
      h.destroy();
      continue;
    }
    s.fs().PowerCut();
    s.q().Clear();
    h.destroy();
    sim::Rng dev(p.seed + static_cast<uint64_t>(it), "f2fs.crash_loss.device." + setup.workload);
    const std::set<uint32_t> lost = s.RandomPowerCut(dev);
    const sim::Status st = s.Mount();
    if (!st.ok()) {
      fail(&t.mount_failures, st.message());
      continue;
    }
    if (const sim::Status ck = s.fs().Check(); !ck.ok()) fail(&t.checker_failures, ck.message());
    const StalePages stale = StalePagesOf(s, {&w.ref()}, lost);
    std::string err;
    uint64_t recovered_clock = 0;
    if (const uint64_t key = s.fs().journal_recovered_key(); key > 0) {
      if (!jwatch.before.count(key)) {
        err = fmt::format("commit {} was never switched", key);
      } else {
        const JournalWatch::State& b = jwatch.before.at(key);
        err = s.Run(CheckRecovered(s.fs_ptr(), &w.ref(), &b.ns, b.clock, &stale));
        recovered_clock = b.clock;
        if (!err.empty() && jwatch.after.count(key)) {
          const JournalWatch::State& a = jwatch.after.at(key);
          if (s.Run(CheckRecovered(s.fs_ptr(), &w.ref(), &a.ns, a.clock, &stale)).empty()) {
            err.clear();
            recovered_clock = a.clock;
          }
        }
      }
    } else {
      const uint64_t ver = s.fs().mounted_checkpoint_version();
      std::map<std::string, RefEntry> cp_ns{{"/", RefEntry{true, 0}}};
      uint64_t cp_clock = 0;
      if (ver > mount_ver) {
        if (!rec.snapshots.count(ver)) {
          err = fmt::format("checkpoint {} was never begun", ver);
        } else {
          cp_ns = rec.snapshots.at(ver);
          cp_clock = rec.clocks.at(ver);
        }
      }
      if (err.empty()) err = s.Run(CheckRecovered(s.fs_ptr(), &w.ref(), &cp_ns, cp_clock, &stale));
      recovered_clock = cp_clock;
    }
    if (!err.empty()) fail(&t.guarantee_failures, err);
    s.Run(CountLoss(s.fs_ptr(), &w.ref(), recovered_clock, &t));
  }
  return t;
}

// The setups of the experiment: F2FS and F2FS-J under a metadata-heavy and
// an fsync-heavy mix.
inline std::vector<LossSetup> LossSetups() {
  std::vector<LossSetup> v;
  for (auto [mix, wname] : {std::pair{WorkloadOptions::Mix::kMetadata, "metadata-heavy"},
                            std::pair{WorkloadOptions::Mix::kFsync, "fsync-heavy"}}) {
    v.push_back({"F2FS", LossF2fsConfig(), mix, wname});
    v.push_back({"F2FS-J", LossJournalConfig(), mix, wname});
  }
  return v;
}

// One markdown row per setup.
inline std::string LossTableHeader() {
  return "| workload | file system | cuts | operations before the cut (mean; namespace changes) | namespace changes "
         "lost per cut (mean) | cuts losing some | created files missing | directories missing | unlinked entries "
         "back | renames undone | links lost | data lost per cut (mean) | share of linked bytes lost | guarantees "
         "broken (fsynced data lost, ...) | checker failures | mount failures |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
}
inline std::string LossTableRow(const LossSetup& s, const LossTotals& t) {
  const double n = t.cuts ? t.cuts : 1;
  return fmt::format(
      "| {} | {} | {} | {:.0f}; {:.0f} | {:.1f} | {:.0f} % | {} | {} | {} | {} | {} | {:.1f} KiB | {:.1f} % | {} | {} | "
      "{} |\n",
      s.workload, s.name, t.cuts, t.ops_before_cut / n, t.ns_ops_before_cut / n, t.ops_lost() / n,
      100.0 * t.cuts_losing_ops / n, t.creates_lost, t.mkdirs_lost, t.unlinks_lost, t.renames_lost, t.links_lost,
      t.bytes_lost / n / 1024.0, t.bytes_linked ? 100.0 * t.bytes_lost / t.bytes_linked : 0.0, t.guarantee_failures,
      t.checker_failures, t.mount_failures);
}

}  // namespace fs::f2fs::testing
