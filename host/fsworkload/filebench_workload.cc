#include "host/fsworkload/filebench_workload.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "host/fsworkload/filebench_personalities.h"

namespace host {

namespace {

constexpr uint64_t kAllocBlock = 1 << 20;  // filebench FILE_ALLOC_BLOCK
constexpr uint32_t kParallocThreads = 32;  // filebench MAX_PARALLOC_THREADS
constexpr uint64_t kMB = 1 << 20;

std::string Key(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

std::string DirName(std::string_view p) {
  const size_t slash = p.rfind('/');
  if (slash == std::string_view::npos) return ".";
  if (slash == 0) return "/";
  return std::string(p.substr(0, slash));
}

}  // namespace

void FilebenchConfig::Describe(sim::Schema<FilebenchConfig>& s) {
  s.Choice("personality", &FilebenchConfig::personality, "varmail", PersonalityNames(),
           "Built-in filebench personality to run");
  s.Choice("variant", &FilebenchConfig::variant, "stock", {"stock", "f2fsj"},
           "stock = filebench's own parameters; f2fsj = the F2FS-J evaluation's versions");
  s.Param("script", &FilebenchConfig::script, "",
          "Path of a filebench .f script to run instead of the built-in personality");
  s.Param("dir", &FilebenchConfig::dir, "", "Directory holding the filesets ($dir); empty = the script's");
  s.Param("nfiles", &FilebenchConfig::nfiles, "0",
          "Files in the fileset ($nfiles; $ndirs for makedirs/removedirs); 0 = the personality's");
  s.Param("nthreads", &FilebenchConfig::nthreads, "0", "Threads ($nthreads); 0 = the personality's");
  s.Param("iosize", &FilebenchConfig::iosize, "0", "I/O size of reads and whole-file I/O ($iosize); 0 = the personality's");
  s.Param("meanappendsize", &FilebenchConfig::meanappendsize, "0",
          "Append size ($meanappendsize, or $meaniosize for webproxy); 0 = the personality's");
  s.Param("filesize", &FilebenchConfig::filesize, "0",
          "Mean file size ($filesize or $meanfilesize; gamma-distributed unless the fileset says sizegamma=0); "
          "0 = the personality's");
  s.Param("meandirwidth", &FilebenchConfig::meandirwidth, "0",
          "Mean directory width ($meandirwidth); 0 = the personality's");
  s.Param("run_time", &FilebenchConfig::run_time, "0s",
          "Length of the measured phase; 0 = the script's run time (60 s if it gives none)");
  s.Param("ops", &FilebenchConfig::ops, "0",
          "End the run after this many filebench operations (also sets $count when the script has it); 0 = no "
          "extra bound");
  s.Param("eventrate", &FilebenchConfig::eventrate, "0",
          "Event generator rate in events/s for eventlimit/opslimit flowops ($eventrate when the script has it); "
          "0 = the script's")
      .Min(0);
  s.Param("set", &FilebenchConfig::set, "[]",
          "More script variables as \"name=value\" in script syntax, e.g. [\"nshadows=20\", \"filesize=32k\"]");
  s.Param("size_gamma", &FilebenchConfig::size_gamma, "-1",
          "Gamma shape of every fileset's file sizes: -1 = the script's (filebench draws gamma(1.5) sizes even "
          "for a plain size), 0 = every file exactly the mean size")
      .Min(-1);
  s.Param("hog_cost", &FilebenchConfig::hog_cost, "1ns", "Simulated CPU time of one hog-flowop iteration");
  s.Param("think_time", &FilebenchConfig::think_time, "0s",
          "Pause of each thread after every pass through its flowop list");
}

// ---------------------------------------------------------------------------
// Script assembly

constexpr size_t kMaxScriptBytes = size_t{1} << 20;

sim::Result<FilebenchScript> FilebenchWorkload::BuildScript(const FilebenchConfig& cfg, std::string_view path) {
  std::string text;
  std::string source;
  if (!cfg.script.empty()) {
    std::ifstream in(cfg.script, std::ios::binary);
    if (!in) {
      return sim::Status::InvalidInput(
          fmt::format("{}: cannot read filebench script '{}'", Key(path, "script"), cfg.script));
    }
    // Scripts are a few KiB; the bound keeps a wrong path (a device, a
    // huge file) from being read whole.
    text.resize(kMaxScriptBytes + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) {
      return sim::Status::InvalidInput(
          fmt::format("{}: cannot read filebench script '{}'", Key(path, "script"), cfg.script));
    }
    if (text.size() > kMaxScriptBytes) {
      return sim::Status::InvalidInput(fmt::format("{}: filebench script '{}' is larger than {} bytes",
                                                   Key(path, "script"), cfg.script, kMaxScriptBytes));
    }
    source = cfg.script;
  } else {
    sim::Result<const Personality*> p = FindPersonality(cfg.personality, cfg.variant);
    if (!p.ok()) return sim::Status::InvalidInput(fmt::format("{}: {}", Key(path, "personality"), p.status().message()));
    text = std::string((*p)->script);
    source = fmt::format("<{} {}>", cfg.personality, cfg.variant);
  }
  // First pass: which variables the script sets.
  FS_ASSIGN_OR_RETURN(FilebenchScript plain, ParseFilebenchScript(text, source));
  const auto& vars = plain.variables;
  std::map<std::string, std::string> overrides;
  // Maps a typed key onto the first of `names` the script sets.
  auto map_key = [&](std::string_view key, std::initializer_list<std::string_view> names,
                     std::string value) -> sim::Status {
    for (std::string_view n : names) {
      if (vars.count(std::string(n))) {
        overrides[std::string(n)] = std::move(value);
        return sim::Status::Ok();
      }
    }
    std::string known;
    for (const auto& [k, v] : vars) known += (known.empty() ? "$" : ", $") + k;
    return sim::Status::InvalidInput(fmt::format("{}: {} sets no {} variable (its variables: {})", Key(path, key),
                                                 source, *names.begin(), known.empty() ? "none" : known));
  };
  if (!cfg.dir.empty()) FS_RETURN_IF_ERROR(map_key("dir", {"dir"}, cfg.dir));
  if (cfg.nfiles) FS_RETURN_IF_ERROR(map_key("nfiles", {"nfiles", "ndirs"}, std::to_string(cfg.nfiles)));
  if (cfg.nthreads) FS_RETURN_IF_ERROR(map_key("nthreads", {"nthreads"}, std::to_string(cfg.nthreads)));
  if (cfg.iosize.value) FS_RETURN_IF_ERROR(map_key("iosize", {"iosize"}, std::to_string(cfg.iosize.value)));
  if (cfg.meanappendsize.value) {
    FS_RETURN_IF_ERROR(
        map_key("meanappendsize", {"meanappendsize", "meaniosize"}, std::to_string(cfg.meanappendsize.value)));
  }
  if (cfg.filesize.value) {
    FS_RETURN_IF_ERROR(map_key("filesize", {"filesize", "meanfilesize"}, std::to_string(cfg.filesize.value)));
  }
  if (cfg.meandirwidth) {
    FS_RETURN_IF_ERROR(map_key("meandirwidth", {"meandirwidth"}, std::to_string(cfg.meandirwidth)));
  }
  if (cfg.ops && vars.count("count")) overrides["count"] = std::to_string(cfg.ops);
  if (cfg.eventrate > 0 && vars.count("eventrate")) overrides["eventrate"] = fmt::format("{}", cfg.eventrate);
  for (const std::string& entry : cfg.set) {
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) {
      return sim::Status::InvalidInput(fmt::format("{}: expected \"name=value\": {}", Key(path, "set"), entry));
    }
    std::string name = entry.substr(0, eq);
    if (name.front() == '$') name.erase(0, 1);
    std::string value = entry.substr(eq + 1);
    // Project units ("32KiB") are accepted besides the script's ("32k").
    sim::ParamDecl bytes;
    bytes.kind = sim::ParamKind::kBytes;
    if (!ParseFilebenchNumber(value).ok()) {
      if (sim::Result<sim::ParamValue> v = sim::ParseParamValue(bytes, value); v.ok()) value = std::to_string(v->u);
    }
    overrides[name] = value;
  }
  sim::Result<FilebenchScript> script = ParseFilebenchScript(text, source, overrides);
  if (!script.ok()) return sim::Status::InvalidInput(fmt::format("{}: {}", Key(path, "set"), script.status().message()));
  if (script->TotalThreads() == 0) {
    return sim::Status::InvalidInput(fmt::format("{}: {} defines no threads", Key(path, "script"), source));
  }
  if (cfg.eventrate > 0) script->eventrate = cfg.eventrate;
  return script;
}

sim::Result<std::unique_ptr<FilebenchWorkload>> FilebenchWorkload::Create(const FilebenchConfig& cfg,
                                                                          FsWorkloadEnv env, std::string_view path) {
  FS_ASSIGN_OR_RETURN(FilebenchScript script, BuildScript(cfg, path));
  return std::make_unique<FilebenchWorkload>(std::move(script), cfg, std::move(env));
}

// ---------------------------------------------------------------------------
// Runtime state

struct FilebenchWorkload::Slot {
  fs::Fd fd = -1;
  int fileset = -1;
  int64_t file = -1;
  uint64_t pos = 0;     // the workload's position
  uint64_t fs_pos = 0;  // the file system's position of the descriptor
};

struct FilebenchWorkload::Rotation {  // opennext descriptors of a thread
  std::vector<Slot> slots;
  uint32_t next = 0;
  uint64_t rotor = 0;
};

struct FilebenchWorkload::Sem {
  explicit Sem(sim::EventQueue* q, int64_t initial) : count(initial), waiters(q) {}
  int64_t count;
  Notifier waiters;
};

struct FilebenchWorkload::FlowopRt {
  uint32_t op = 0;
  std::unique_ptr<Sem> lw, hw;  // semblock
  std::vector<Sem*> targets;    // sempost: the semblocks posted to (lw, hw pairs)
  bool limit_started = false;   // *limit flowops
  uint64_t tputlast = 0;
  int64_t bucket = 0;
};

struct FilebenchWorkload::ThreadRt {
  explicit ThreadRt(sim::EventQueue* q) : aio_done(q) {}
  const ThreadDef* def = nullptr;
  uint32_t index = 0;
  std::vector<Slot> slots;  // by fd number
  std::vector<FlowopRt> flowops;
  std::map<int, Rotation> rotations;  // by fileset
  uint32_t aio_outstanding = 0;
  Notifier aio_done;
  std::string path;
};

FilebenchWorkload::FilebenchWorkload(FilebenchScript script, const FilebenchConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(std::move(env), script.TotalThreads()),
      script_(std::move(script)),
      hog_cost_(cfg.hog_cost),
      think_time_(cfg.think_time),
      max_ops_(cfg.ops),
      eventrate_(script_.eventrate) {
  sim::SimTime run = cfg.run_time;
  if (run <= sim::SimTime::Zero()) run = script_.run_time > sim::SimTime::Zero() ? script_.run_time : sim::Sec(60);
  SetRunTime(run);

  for (size_t i = 0; i < script_.filesets.size(); ++i) {
    FilesetDef& d = script_.filesets[i];
    if (cfg.size_gamma >= 0 && !d.single_file) d.size_gamma = cfg.size_gamma;
    filesets_.push_back(std::make_unique<Fileset>(d, MakeRng("fileset." + d.name)));
    unbusy_.push_back(std::make_unique<Notifier>(queue()));
  }

  uint32_t index = 0;
  for (const ProcessDef& p : script_.processes) {
    for (uint32_t pi = 0; pi < p.instances; ++pi) {
      for (const ThreadDef& td : p.threads) {
        for (uint32_t ti = 0; ti < td.instances; ++ti) {
          auto t = std::make_unique<ThreadRt>(queue());
          t->def = &td;
          t->index = index++;
          uint32_t max_fd = 0;
          t->flowops.resize(td.flowops.size());
          for (size_t f = 0; f < td.flowops.size(); ++f) {
            const FlowopDef& d = td.flowops[f];
            max_fd = std::max({max_fd, d.fd, d.srcfd});
            FlowopRt& rt = t->flowops[f];
            rt.op = op_stats().Add(d.name);
            if (d.kind == FlowopKind::kSemBlock) {
              rt.lw = std::make_unique<Sem>(queue(), 0);
              rt.hw = std::make_unique<Sem>(queue(), static_cast<int64_t>(d.highwater));
            }
          }
          t->slots.resize(max_fd + 1);
          threads_.push_back(std::move(t));
        }
      }
    }
  }
  CHECK_EQ(threads_.size(), thread_count());
  // sempost targets: every instance of the named semblock.
  for (auto& t : threads_) {
    for (size_t f = 0; f < t->def->flowops.size(); ++f) {
      const FlowopDef& d = t->def->flowops[f];
      if (d.kind != FlowopKind::kSemPost) continue;
      for (auto& u : threads_) {
        for (size_t g = 0; g < u->def->flowops.size(); ++g) {
          if (u->def->flowops[g].name == d.target && u->flowops[g].lw) {
            t->flowops[f].targets.push_back(u->flowops[g].lw.get());
            t->flowops[f].targets.push_back(u->flowops[g].hw.get());
          }
        }
      }
    }
  }

  const sim::StatGroup& g = stats_group();
  g.Add(&fb_ops_, "fb_ops", "ops", "Filebench's global op count (IO flowops, as its summary reports)");
  g.Add(&fb_bytes_, "fb_bytes", "bytes", "Bytes moved by filebench's read/write flowops");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(fb_ops_.value()) / s : 0.0;
      },
      "fb_ops_per_sec", "ops/s", "Filebench's ops/s summary figure");
}

FilebenchWorkload::~FilebenchWorkload() { DestroyThreads(); }

FilebenchWorkload::Slot& FilebenchWorkload::SlotOf(ThreadRt& t, uint32_t fd) {
  CHECK_LT(fd, t.slots.size());
  return t.slots[fd];
}

uint32_t FilebenchWorkload::OpenFlags(const FlowopDef& d) const {
  uint32_t f = fs::kRdWr;
  if (d.dsync) f |= fs::kSync;
  if (d.directio) f |= fs::kDirect;
  return f;
}

void FilebenchWorkload::NotifyUnbusy(size_t fileset) {
  if (unbusy_[fileset]->has_waiters()) unbusy_[fileset]->NotifyAll();
}

void FilebenchWorkload::OnStop() {
  for (auto& t : threads_) {
    t->aio_done.NotifyAll();
    for (FlowopRt& rt : t->flowops) {
      if (rt.lw) rt.lw->waiters.NotifyAll();
      if (rt.hw) rt.hw->waiters.NotifyAll();
    }
  }
}

FilebenchWorkload::Rc FilebenchWorkload::Fail(const FlowopDef& d, std::string_view call, std::string_view path,
                                              fs::Errno e) {
  Abort(sim::Status::IoError(fmt::format("filebench flowop '{}' ({}): {} {} failed: {}", d.name,
                                         FlowopKindName(d.kind), call, path, fs::ErrnoName(e))));
  return Rc::kError;
}

void FilebenchWorkload::Count(const FlowopDef& d, FlowopRt& rt, sim::SimTime t0, uint64_t bytes, bool ok) {
  op_stats().Record(rt.op, now() - t0, bytes, ok);
  const FlowopTraits tr = TraitsOf(d.kind);
  if (tr.io) {
    fb_ops_.Inc();
    fb_bytes_.Inc(bytes);
  }
  if (tr.read) {
    fb_rops_.Inc();
    fb_rbytes_.Inc(bytes);
  } else if (tr.write) {
    fb_wops_.Inc();
    fb_wbytes_.Inc(bytes);
  }
}

// ---------------------------------------------------------------------------
// Setup

sim::Task<bool> FilebenchWorkload::MkdirP(fs::FileSystem* f, std::string path) {
  fs::FsResult<fs::FileStat> st = co_await f->Stat(path);
  if (st.ok()) co_return st.value.is_dir;
  if (path.size() > 1) {
    const std::string parent = DirName(path);
    if (parent != path && !(co_await MkdirP(f, parent))) co_return false;
  }
  fs::FsStatus m = co_await f->Mkdir(path);
  co_return m.ok() || m.err == fs::Errno::kExist;
}

sim::Task<void> FilebenchWorkload::RemoveTree(std::string path) {
  fs::FileSystem* f = raw_fs();
  fs::FsResult<fs::FileStat> st = co_await f->Stat(path);
  if (!st.ok()) co_return;
  if (!st.value.is_dir) {
    co_await f->Unlink(path);
    co_return;
  }
  fs::FsResult<std::vector<std::string>> names = co_await f->Readdir(path);
  if (names.ok()) {
    for (const std::string& n : names.value) co_await RemoveTree(path + "/" + n);
  }
  co_await f->Rmdir(path);
}

sim::Task<void> FilebenchWorkload::Setup() {
  for (size_t i = 0; i < filesets_.size() && !stopping(); ++i) co_await SetupFileset(i);
}

sim::Task<void> FilebenchWorkload::SetupFileset(size_t index) {
  Fileset& set = *filesets_[index];
  const FilesetDef& d = set.def();
  fs::FileSystem* f = raw_fs();
  if (!(co_await MkdirP(f, d.path))) {
    Abort(sim::Status::IoError(fmt::format("filebench setup: cannot create directory {}", d.path)));
    co_return;
  }
  bool reusing = false;
  if (d.reuse) {
    fs::FsResult<fs::FileStat> st = co_await f->Stat(set.root());
    reusing = st.ok();
  }
  if (!reusing) co_await RemoveTree(set.root());
  if (!reusing && d.prealloc && !d.single_file) {
    std::string p;
    for (uint32_t dir = 0; dir < set.dirs().size(); ++dir) {
      set.DirPath(dir, &p);
      fs::FsStatus m = co_await f->Mkdir(p);
      if (!m.ok() && m.err != fs::Errno::kExist) {
        Abort(sim::Status::IoError(fmt::format("filebench setup: mkdir {} failed: {}", p, fs::ErrnoName(m.err))));
        co_return;
      }
    }
  }
  if (d.prealloc_percent == 0) co_return;
  // Entries are visited in random order; each is created with the
  // preallocation probability.
  sim::Rng rng = MakeRng("fileset." + d.name + ".prealloc");
  for (int pass = 0; pass < 2; ++pass) {
    const bool leafdirs = pass == 1;
    const uint64_t n = leafdirs ? set.leafdir_count() : set.file_count();
    if (n == 0) continue;
    std::vector<uint64_t> order(n);
    for (uint64_t i = 0; i < n; ++i) order[i] = i;
    for (uint64_t i = n - 1; i > 0; --i) std::swap(order[i], order[rng.Uniform(i + 1)]);
    std::vector<uint64_t> chosen;
    for (uint64_t i : order) {
      if (rng.UniformDouble() * 100.0 < d.prealloc_percent) chosen.push_back(i);
    }
    size_t next = 0;
    const uint32_t workers = d.paralloc && !leafdirs ? kParallocThreads : 1;
    // The workers share `next`; the last one to finish resumes this setup.
    uint32_t running = workers;
    sim::Completion<bool> all_done(queue());
    auto worker = [](FilebenchWorkload* self, size_t fs_index, const std::vector<uint64_t>* ord, size_t* nx,
                     bool leaf, bool reuse, uint32_t* run, sim::Completion<bool>* done) -> sim::Task<void> {
      co_await self->PreallocWorker(fs_index, ord, nx, leaf, reuse);
      if (--*run == 0) done->Complete(true);
    };
    for (uint32_t w = 0; w < workers; ++w) {
      Spawn(worker(this, index, &chosen, &next, leafdirs, reusing, &running, &all_done));
    }
    co_await all_done;
    if (stopping()) co_return;
  }
}

sim::Task<void> FilebenchWorkload::PreallocWorker(size_t fileset, const std::vector<uint64_t>* order, size_t* next,
                                                  bool leafdirs, bool reusing) {
  Fileset& set = *filesets_[fileset];
  fs::FileSystem* f = raw_fs();
  std::string p;
  while (*next < order->size() && !stopping()) {
    const uint64_t e = (*order)[(*next)++];
    if (leafdirs) {
      set.LeafDirPath(e, &p);
      if (!(co_await MkdirP(f, p))) {
        Abort(sim::Status::IoError(fmt::format("filebench setup: cannot create leaf directory {}", p)));
        co_return;
      }
      set.SetLeafDirExists(e, true);
      continue;
    }
    Fileset::File& file = set.file(e);
    set.FilePath(e, &p);
    if (reusing) {
      fs::FsResult<fs::FileStat> st = co_await f->Stat(p);
      if (st.ok() && st.value.size >= file.size) {
        if (st.value.size > file.size) co_await f->Truncate(p, file.size);
        file.cur_size = file.size;
        set.SetFileExists(e, true);
        continue;
      }
    }
    if (!set.def().single_file) co_await MkdirP(f, DirName(p));
    fs::FsResult<fs::Fd> fd = co_await f->Open(p, fs::kRdWr | fs::kCreat);
    if (!fd.ok()) {
      Abort(sim::Status::IoError(fmt::format("filebench setup: open {} failed: {}", p, fs::ErrnoName(fd.err))));
      co_return;
    }
    for (uint64_t off = 0; off < file.size; off += kAllocBlock) {
      const uint64_t len = std::min(kAllocBlock, file.size - off);
      fs::FsResult<uint64_t> w = co_await f->Pwrite(fd.value, off, {}, len);
      if (!w.ok()) {
        Abort(sim::Status::IoError(fmt::format("filebench setup: write {} failed: {}", p, fs::ErrnoName(w.err))));
        co_await f->Close(fd.value);
        co_return;
      }
    }
    co_await f->Close(fd.value);
    file.cur_size = file.size;
    set.SetFileExists(e, true);
  }
}

sim::Task<void> FilebenchWorkload::Teardown() {
  fs::FileSystem* f = raw_fs();
  for (auto& t : threads_) {
    for (Slot& s : t->slots) {
      if (s.fd >= 0) co_await f->Close(s.fd);
      s = Slot{};
    }
    for (auto& [set, rot] : t->rotations) {
      for (Slot& s : rot.slots) {
        if (s.fd >= 0) co_await f->Close(s.fd);
        s = Slot{};
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Threads

sim::Task<void> FilebenchWorkload::Worker(uint32_t index) {
  ThreadRt& t = *threads_[index];
  const std::vector<FlowopDef>& flowops = t.def->flowops;
  bool alive = true;
  while (alive && !stopping()) {
    // Progress is simulated time passing or a file-system call; control
    // flowops (finishoncount, opslimit, ...) are recorded but are neither.
    const uint64_t calls_before = metered().calls_total();
    const sim::SimTime pass_start = now();
    for (uint32_t fi = 0; fi < flowops.size() && alive; ++fi) {
      for (uint64_t it = 0; it < flowops[fi].iters; ++it) {
        if (stopping()) {
          alive = false;
          break;
        }
        const Rc rc = co_await Exec(t, fi);
        if (max_ops_ > 0 && fb_ops_.value() >= max_ops_ && !finished_) {
          finished_ = true;
          RequestStop();
        }
        if (rc == Rc::kOk) continue;
        alive = false;
        if (rc == Rc::kDone) {
          finished_ = true;
          RequestStop();
        } else if (rc == Rc::kNoRsc) {
          out_of_entries_ = true;
          if (script_.mode == RunMode::kFirstDone) {
            RequestStop();
          } else if (script_.mode == RunMode::kTimeout) {
            Abort(sim::Status::InvalidInput(fmt::format(
                "filebench flowop '{}' could not obtain a file or directory: the run stopped early (use more "
                "files, a shorter run, or quit firstdone/alldone mode)",
                flowops[fi].name)));
          }
        }
        break;
      }
    }
    if (alive && think_time_ > sim::SimTime::Zero() && !stopping()) co_await SleepUntil(now() + think_time_);
    if (alive && !stopping() && now() == pass_start && metered().calls_total() == calls_before) {
      // No file-system call and no time passed: the loop would spin.
      Abort(sim::Status::InvalidInput(fmt::format(
          "filebench thread '{}' makes no progress: none of its flowops calls the file system or waits (e.g. "
          "only finishoncount, or eventlimit/opslimit without an event rate)",
          t.def->name)));
      alive = false;
    }
  }
  while (t.aio_outstanding > 0) co_await t.aio_done.Wait();
}

sim::Task<void> FilebenchWorkload::WaitUnbusy(size_t fileset, uint64_t file) {
  while (filesets_[fileset]->file(file).busy) co_await unbusy_[fileset]->Wait();
}

sim::Task<int64_t> FilebenchWorkload::Pick(int fileset, bool leafdir, bool existing, uint64_t* rotor) {
  Fileset& set = *filesets_[fileset];
  for (;;) {
    const int64_t e = leafdir ? set.PickLeafDir(existing) : set.PickFile(existing, rotor);
    if (e != Fileset::kNone) co_return e;
    if (!(leafdir ? set.all_leafdirs_busy() : set.all_files_busy())) co_return Fileset::kNone;
    if (stopping()) co_return kStopped;
    co_await unbusy_[fileset]->Wait();
  }
}

sim::Task<void> FilebenchWorkload::EnsureParentDir(std::string dir) {
  // fileset_openfile: stat the directory; if missing, fileset_mkdir walks up
  // stat()ing until a directory exists and makes the rest top-down.
  fs::FsResult<fs::FileStat> st = co_await fs()->Stat(dir);
  if (st.ok()) co_return;
  std::vector<std::string> missing;
  std::string p = dir;
  for (;;) {
    fs::FsResult<fs::FileStat> s = co_await fs()->Stat(p);
    if (s.ok() || p.size() < 3) break;
    missing.push_back(p);
    p = DirName(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) co_await fs()->Mkdir(*it);
}

// Filebench never looks at what it reads: the discarding reads do the same
// work without copying the bytes out.
FilebenchWorkload::PosIo FilebenchWorkload::ReadAt(Slot* s, uint64_t off, uint64_t len) {
  if (off == s->fs_pos) return PosIo{fs()->ReadDiscard(s->fd, len), s, true};
  return PosIo{fs()->PreadDiscard(s->fd, off, len), s, false};
}

FilebenchWorkload::PosIo FilebenchWorkload::WriteAt(Slot* s, uint64_t off, uint64_t len) {
  if (off == s->fs_pos) return PosIo{fs()->Write(s->fd, {}, len), s, true};
  return PosIo{fs()->Pwrite(s->fd, off, {}, len), s, false};
}

fs::FsResult<uint64_t> FilebenchWorkload::PosIo::await_resume() {
  fs::FsResult<uint64_t> r = call.await_resume();
  if (at_pos && r.ok()) s->fs_pos += r.value;
  return r;
}

sim::Task<FilebenchWorkload::Rc> FilebenchWorkload::OpenCommon(ThreadRt& t, const FlowopDef& d, Slot* slot,
                                                               uint64_t* rotor) {
  if (slot->fd >= 0) {
    Abort(sim::Status::InvalidInput(fmt::format("filebench flowop '{}' opens fd {} without closing it", d.name, d.fd)));
    co_return Rc::kError;
  }
  if (d.fileset < 0) {
    Abort(sim::Status::InvalidInput(fmt::format("filebench flowop '{}' uses fd {} before it is open", d.name, d.fd)));
    co_return Rc::kError;
  }
  Fileset& set = *filesets_[d.fileset];
  const int64_t e = co_await Pick(d.fileset, false, true, rotor);
  if (e == kStopped) co_return Rc::kOk;
  if (e == Fileset::kNone) co_return Rc::kNoRsc;
  set.FilePath(e, &t.path);
  fs::FsResult<fs::Fd> r = co_await fs()->Open(t.path, OpenFlags(d));
  set.Unbusy(e);
  NotifyUnbusy(d.fileset);
  if (!r.ok()) co_return Fail(d, "open", t.path, r.err);
  ++set.file(e).open_count;
  *slot = Slot{r.value, d.fileset, e, 0, 0};
  co_return Rc::kOk;
}

sim::Task<FilebenchWorkload::Rc> FilebenchWorkload::FileSetup(ThreadRt& t, const FlowopDef& d, Slot** slot) {
  Slot* s;
  uint64_t* rotor = nullptr;
  if (d.opennext) {
    Rotation& rot = t.rotations[d.fileset];
    if (rot.slots.empty()) rot.slots.resize(std::max<size_t>(1, filesets_[d.fileset]->file_count()));
    s = &rot.slots[rot.next];
    rot.next = (rot.next + 1) % rot.slots.size();
    rotor = &rot.rotor;
  } else {
    s = &SlotOf(t, d.fd);
  }
  if (s->fd < 0) {
    const Rc rc = co_await OpenCommon(t, d, s, rotor);
    if (rc != Rc::kOk) co_return rc;
  }
  *slot = s;
  co_return Rc::kOk;
}

sim::Task<bool> FilebenchWorkload::SemTake(Sem* s, int64_t n) {
  while (s->count < n) {
    if (stopping()) co_return false;
    co_await s->waiters.Wait();
  }
  s->count -= n;
  co_return true;
}

sim::Task<bool> FilebenchWorkload::TakeEvents(uint64_t n) {
  // Events arrive at eventrate_ per second from the measured start; a
  // request is served when all events before it (FIFO) and its own exist.
  events_taken_ += static_cast<double>(n);
  const sim::SimTime ready = start_time() + sim::Sec(events_taken_ / eventrate_);
  co_await SleepUntil(ready);
  co_return !stopping();
}

sim::Task<void> FilebenchWorkload::AioWrite(ThreadRt* t, uint32_t op, fs::Fd fd, uint64_t off, uint64_t len,
                                            const FlowopDef* d) {
  const sim::SimTime t0 = now();
  fs::FsResult<uint64_t> r = co_await fs()->Pwrite(fd, off, {}, len);
  op_stats().Record(op, now() - t0, r.ok() ? r.value : 0, r.ok());
  if (!r.ok()) Fail(*d, "aio pwrite", std::to_string(fd), r.err);
  --t->aio_outstanding;
  t->aio_done.NotifyAll();
}

sim::Task<FilebenchWorkload::Rc> FilebenchWorkload::Exec(ThreadRt& t, uint32_t fi) {
  const FlowopDef& d = t.def->flowops[fi];
  FlowopRt& rt = t.flowops[fi];
  const sim::SimTime t0 = now();
  uint64_t bytes = 0;
  bool ok = true;
  bool counted = true;
  switch (d.kind) {
    case FlowopKind::kCreateFile: {
      Slot& s = SlotOf(t, d.fd);
      if (s.fd >= 0) {
        Abort(sim::Status::InvalidInput(
            fmt::format("filebench flowop '{}' creates on fd {} without closing it", d.name, d.fd)));
        co_return Rc::kError;
      }
      Fileset& set = *filesets_[d.fileset];
      const int64_t e = co_await Pick(d.fileset, false, false, nullptr);
      if (e == kStopped) co_return Rc::kOk;
      if (e == Fileset::kNone) co_return Rc::kNoRsc;
      set.FilePath(e, &t.path);
      if (!set.def().single_file) co_await EnsureParentDir(DirName(t.path));
      fs::FsResult<fs::Fd> r = co_await fs()->Open(t.path, OpenFlags(d) | fs::kCreat);
      if (!r.ok()) {
        set.Unbusy(e);
        NotifyUnbusy(d.fileset);
        co_return Fail(d, "create", t.path, r.err);
      }
      Fileset::File& file = set.file(e);
      file.cur_size = 0;
      ++file.open_count;
      set.SetFileExists(e, true);
      NotifyUnbusy(d.fileset);
      s = Slot{r.value, d.fileset, e, 0, 0};
      break;
    }
    case FlowopKind::kOpenFile: {
      Slot* s;
      if (d.opennext) {
        const Rc rc = co_await FileSetup(t, d, &s);
        if (rc != Rc::kOk) co_return rc;
      } else {
        const Rc rc = co_await OpenCommon(t, d, &SlotOf(t, d.fd), nullptr);
        if (rc != Rc::kOk) co_return rc;
      }
      break;
    }
    case FlowopKind::kCloseFile: {
      Slot& s = SlotOf(t, d.fd);
      if (s.fd < 0) {
        Abort(sim::Status::InvalidInput(fmt::format("filebench flowop '{}' closes fd {} which is not open", d.name, d.fd)));
        co_return Rc::kError;
      }
      const Slot closing = s;
      s = Slot{};
      if (closing.file >= 0) {
        co_await WaitUnbusy(closing.fileset, closing.file);
        filesets_[closing.fileset]->MarkBusy(closing.file);
      }
      fs::FsStatus r = co_await fs()->Close(closing.fd);
      ok = r.ok();
      if (closing.file >= 0) {
        Fileset::File& file = filesets_[closing.fileset]->file(closing.file);
        if (file.open_count > 0) --file.open_count;
        filesets_[closing.fileset]->Unbusy(closing.file);
        NotifyUnbusy(closing.fileset);
      }
      break;
    }
    case FlowopKind::kDeleteFile: {
      int set_index = d.fileset;
      int64_t e = Fileset::kNone;
      const bool own_fd = d.fd > 0 && SlotOf(t, d.fd).file >= 0;
      if (own_fd) {
        Slot& s = SlotOf(t, d.fd);
        set_index = s.fileset;
        e = s.file;
        s.file = -1;  // the descriptor stays open; its file is gone
        co_await WaitUnbusy(set_index, e);
        filesets_[set_index]->MarkBusy(e);
      } else {
        if (set_index < 0) co_return Rc::kOk;
        e = co_await Pick(set_index, false, true, nullptr);
        if (e == kStopped) co_return Rc::kOk;
        if (e == Fileset::kNone) co_return Rc::kNoRsc;
      }
      Fileset& set = *filesets_[set_index];
      Fileset::File& file = set.file(e);
      const bool fd_open = d.fd > 0 && SlotOf(t, d.fd).fd >= 0;
      if ((fd_open && file.open_count > 1) || (!fd_open && file.open_count > 0)) {
        set.Unbusy(e);  // opened by another thread: left alone, not counted
        NotifyUnbusy(set_index);
        co_return Rc::kOk;
      }
      set.FilePath(e, &t.path);
      fs::FsStatus r = co_await fs()->Unlink(t.path);
      ok = r.ok();
      file.open_count = 0;
      file.cur_size = 0;
      set.SetFileExists(e, false);
      NotifyUnbusy(set_index);
      break;
    }
    case FlowopKind::kStatFile: {
      if (d.fd > 0 && SlotOf(t, d.fd).fd >= 0) {
        fs::FsResult<fs::FileStat> r = co_await fs()->Fstat(SlotOf(t, d.fd).fd);
        ok = r.ok();
        break;
      }
      if (d.fileset < 0) co_return Rc::kOk;
      Fileset& set = *filesets_[d.fileset];
      const int64_t e = co_await Pick(d.fileset, false, true, nullptr);
      if (e == kStopped) co_return Rc::kOk;
      if (e == Fileset::kNone) co_return Rc::kNoRsc;
      set.FilePath(e, &t.path);
      fs::FsResult<fs::FileStat> r = co_await fs()->Stat(t.path);
      ok = r.ok();
      set.Unbusy(e);
      NotifyUnbusy(d.fileset);
      break;
    }
    case FlowopKind::kFsync: {
      Slot& s = SlotOf(t, d.fd);
      if (s.fd < 0) {
        Abort(sim::Status::InvalidInput(fmt::format("filebench flowop '{}' fsyncs fd {} which is not open", d.name, d.fd)));
        co_return Rc::kError;
      }
      fs::FsStatus r = co_await fs()->Fsync(s.fd);
      ok = r.ok();
      break;
    }
    case FlowopKind::kFsyncSet: {
      counted = false;
      for (Slot& s : t.slots) {
        if (s.fd < 0 || s.fileset != d.fileset) continue;
        const sim::SimTime t1 = now();
        fs::FsStatus r = co_await fs()->Fsync(s.fd);
        Count(d, rt, t1, 0, r.ok());
      }
      break;
    }
    case FlowopKind::kReadWholeFile: {
      Slot* s;
      const Rc rc = co_await FileSetup(t, d, &s);
      if (rc != Rc::kOk) co_return rc;
      const uint64_t wss = filesets_[s->fileset]->file(s->file < 0 ? 0 : s->file).size;
      const uint64_t iosize = d.iosize ? d.iosize : wss;
      uint64_t off = 0;
      for (;;) {
        fs::FsResult<uint64_t> r = co_await ReadAt(s, off, iosize);
        if (!r.ok()) co_return Fail(d, "read", t.path, r.err);
        if (r.value == 0) break;
        off += r.value;
      }
      s->pos = off;
      bytes = off;
      break;
    }
    case FlowopKind::kWriteWholeFile: {
      Slot* s;
      const Rc rc = co_await FileSetup(t, d, &s);
      if (rc != Rc::kOk) co_return rc;
      uint64_t wss = s->file >= 0 ? filesets_[s->fileset]->file(s->file).size : 0;
      if (d.srcfd != 0) {
        const Slot& src = SlotOf(t, d.srcfd);
        if (src.file < 0) {
          Abort(sim::Status::InvalidInput(fmt::format("filebench flowop '{}': srcfd {} has no file", d.name, d.srcfd)));
          co_return Rc::kError;
        }
        wss = filesets_[src.fileset]->file(src.file).size;
      }
      const uint64_t iosize = d.iosize ? d.iosize : wss;
      // Filebench's loop: every write but the first of a file larger than
      // iosize uses min(wss - seek, iosize) taken before seek advances.
      uint64_t wsize = std::min(wss, iosize);
      for (uint64_t seek = 0; seek < wss; seek += wsize) {
        fs::FsResult<uint64_t> r = co_await WriteAt(s, s->pos, wsize);
        if (!r.ok()) co_return Fail(d, "write", "fd " + std::to_string(s->fd), r.err);
        s->pos += r.value;
        bytes += r.value;
        wsize = std::min(wss - seek, iosize);
      }
      if (s->file >= 0) {
        Fileset::File& file = filesets_[s->fileset]->file(s->file);
        file.cur_size = std::max(file.cur_size, s->pos);
      }
      break;
    }
    case FlowopKind::kAppendFile:
    case FlowopKind::kAppendFileRand: {
      uint64_t len = d.iosize;
      if (d.kind == FlowopKind::kAppendFileRand) {
        len = rng(t.index).Uniform(d.iosize);
        if (len == 0) break;  // counted, no I/O
      }
      Slot* s;
      const Rc rc = co_await FileSetup(t, d, &s);
      if (rc != Rc::kOk) co_return rc;
      Fileset::File* file = s->file >= 0 ? &filesets_[s->fileset]->file(s->file) : nullptr;
      const uint64_t off = file ? file->cur_size : s->pos;
      if (file) file->cur_size = off + len;  // reserved now: concurrent appends never overlap
      fs::FsResult<uint64_t> r = co_await WriteAt(s, off, len);
      if (!r.ok()) co_return Fail(d, "append", "fd " + std::to_string(s->fd), r.err);
      s->pos = off + r.value;
      bytes = r.value;
      break;
    }
    case FlowopKind::kRead:
    case FlowopKind::kWrite:
    case FlowopKind::kAioWrite: {
      Slot* s;
      const Rc rc = co_await FileSetup(t, d, &s);
      if (rc != Rc::kOk) co_return rc;
      const bool write = d.kind != FlowopKind::kRead;
      if (d.random) {
        const uint64_t wss = d.workingset ? d.workingset : filesets_[s->fileset]->file(s->file).size;
        if (wss < d.iosize) {
          Abort(sim::Status::InvalidInput(
              fmt::format("filebench flowop '{}': file size {} smaller than iosize {}", d.name, wss, d.iosize)));
          co_return Rc::kError;
        }
        const auto span = static_cast<double>(wss - d.iosize);
        const uint64_t off = static_cast<uint64_t>(rng(t.index).UniformDouble() * span) / d.iosize * d.iosize;
        if (d.kind == FlowopKind::kAioWrite) {
          ++t.aio_outstanding;
          Spawn(AioWrite(&t, rt.op, s->fd, off, d.iosize, &d));
          // Counted when issued (filebench's aiowrite); the latency is the
          // write's, recorded when it completes.
          fb_ops_.Inc();
          fb_bytes_.Inc(d.iosize);
          fb_wops_.Inc();
          fb_wbytes_.Inc(d.iosize);
          counted = false;
          break;
        }
        fs::FsResult<uint64_t> r = write ? co_await fs()->Pwrite(s->fd, off, {}, d.iosize)
                                         : co_await fs()->PreadDiscard(s->fd, off, d.iosize);
        if (!r.ok()) co_return Fail(d, write ? "pwrite" : "pread", "fd " + std::to_string(s->fd), r.err);
        bytes = r.value;
        if (!write && r.value == 0) s->pos = 0;
      } else {
        fs::FsResult<uint64_t> r = write ? co_await WriteAt(s, s->pos, d.iosize) : co_await ReadAt(s, s->pos, d.iosize);
        if (!r.ok()) co_return Fail(d, write ? "write" : "read", "fd " + std::to_string(s->fd), r.err);
        bytes = r.value;
        s->pos = (!write && r.value == 0) ? 0 : s->pos + r.value;
        if (write && s->file >= 0) {
          Fileset::File& file = filesets_[s->fileset]->file(s->file);
          file.cur_size = std::max(file.cur_size, s->pos);
        }
      }
      break;
    }
    case FlowopKind::kAioWait: {
      if (t.aio_outstanding > 0) {
        const uint32_t todo = std::max<uint32_t>(1, t.aio_outstanding / 2);
        const uint32_t target = t.aio_outstanding - todo;
        while (t.aio_outstanding > target && !stopping()) co_await t.aio_done.Wait();
      }
      break;
    }
    case FlowopKind::kMakeDir:
    case FlowopKind::kRemoveDir: {
      const bool make = d.kind == FlowopKind::kMakeDir;
      Fileset& set = *filesets_[d.fileset];
      const int64_t e = co_await Pick(d.fileset, true, !make, nullptr);
      if (e == kStopped) co_return Rc::kOk;
      if (e == Fileset::kNone) co_return Rc::kNoRsc;
      set.LeafDirPath(e, &t.path);
      if (make) co_await EnsureParentDir(DirName(t.path));
      fs::FsStatus r = make ? co_await fs()->Mkdir(t.path) : co_await fs()->Rmdir(t.path);
      ok = r.ok();
      set.SetLeafDirExists(e, make);
      NotifyUnbusy(d.fileset);
      break;
    }
    case FlowopKind::kListDir: {
      Fileset& set = *filesets_[d.fileset];
      const int64_t dir = set.PickDir();
      if (dir == Fileset::kNone) co_return Rc::kNoRsc;
      set.DirPath(static_cast<uint32_t>(dir), &t.path);
      fs::FsResult<std::vector<std::string>> r = co_await fs()->Readdir(t.path);
      ok = r.ok();
      if (ok) {
        for (const std::string& n : r.value) bytes += n.size() + 279;  // + sizeof(struct dirent) - 1
      }
      break;
    }
    case FlowopKind::kHog:
      co_await SleepUntil(now() + hog_cost_ * static_cast<int64_t>(d.value));
      break;
    case FlowopKind::kDelay:
      co_await SleepUntil(now() + sim::Sec(static_cast<double>(d.value)));
      break;
    case FlowopKind::kSemBlock:
      rt.hw->count += static_cast<int64_t>(d.value);
      rt.hw->waiters.NotifyAll();
      if (!(co_await SemTake(rt.lw.get(), static_cast<int64_t>(d.value)))) co_return Rc::kOk;
      break;
    case FlowopKind::kSemPost:
      for (size_t i = 0; i + 1 < rt.targets.size(); i += 2) {
        Sem* lw = rt.targets[i];
        Sem* hw = rt.targets[i + 1];
        if (d.blocking && !(co_await SemTake(hw, static_cast<int64_t>(d.value)))) co_return Rc::kOk;
        lw->count += static_cast<int64_t>(d.value);
        lw->waiters.NotifyAll();
      }
      break;
    case FlowopKind::kEventLimit:
      if (eventrate_ <= 0) co_return Rc::kOk;  // no event generator: nothing, not counted
      if (!(co_await TakeEvents(1))) co_return Rc::kOk;
      break;
    case FlowopKind::kOpsLimit:
    case FlowopKind::kIopsLimit:
    case FlowopKind::kBwLimit: {
      if (eventrate_ <= 0) co_return Rc::kOk;
      uint64_t measure;
      if (!d.target.empty()) {
        const OpStats::Op* op = op_stats().Find(d.target);
        measure = op == nullptr ? 0 : (d.kind == FlowopKind::kBwLimit ? op->bytes.value() : op->count.value());
      } else if (d.kind == FlowopKind::kOpsLimit) {
        measure = fb_ops_.value();
      } else if (d.kind == FlowopKind::kIopsLimit) {
        measure = fb_rops_.value() + fb_wops_.value();
      } else {
        measure = fb_rbytes_.value() + fb_wbytes_.value();
      }
      if (!rt.limit_started) {
        rt.limit_started = true;
        rt.tputlast = measure;
        co_return Rc::kOk;
      }
      rt.bucket -= static_cast<int64_t>(measure - rt.tputlast);
      rt.tputlast = measure;
      if (rt.bucket >= 0) break;
      const uint64_t need = static_cast<uint64_t>(-rt.bucket);
      const uint64_t events = d.kind == FlowopKind::kBwLimit ? need / kMB + 1 : need;
      if (!(co_await TakeEvents(events))) co_return Rc::kOk;
      rt.bucket += static_cast<int64_t>(d.kind == FlowopKind::kBwLimit ? events * kMB : events);
      break;
    }
    case FlowopKind::kFinishOnCount:
    case FlowopKind::kFinishOnBytes: {
      uint64_t v;
      const bool by_count = d.kind == FlowopKind::kFinishOnCount;
      if (!d.target.empty()) {
        const OpStats::Op* op = op_stats().Find(d.target);
        v = op == nullptr ? 0 : (by_count ? op->count.value() : op->bytes.value());
      } else {
        v = by_count ? fb_ops_.value() : fb_bytes_.value();
      }
      Count(d, rt, t0, 0, true);
      if (by_count ? v >= d.value : v > d.value) co_return Rc::kDone;
      co_return Rc::kOk;
    }
  }
  if (counted) Count(d, rt, t0, bytes, ok);
  co_return Rc::kOk;
}

}  // namespace host
