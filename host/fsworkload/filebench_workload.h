// FilebenchWorkload: runs a filebench personality (a script in the
// filebench language, built in or from a file) against an fs::FileSystem.
//
// The script is the data: filesets, thread groups and their flowop lists
// (filebench_script.h). Each filebench thread is one simulated thread
// running its flowops in order, each `iters` times, over and over until the
// run ends. Flowop semantics follow filebench's flowop_library.c:
//  - createfile picks a non-existing entry (in rotation), stat()s its
//    directory and creates missing directories, then open(O_RDWR|O_CREAT);
//    openfile / deletefile / statfile pick existing entries; an entry is
//    busy (skipped by other picks) from its pick to the end of its call;
//    deletefile leaves a file that another descriptor has open alone
//    (uncounted), and uses the file of its fd if it has one;
//  - readwholefile reads from offset 0 in iosize chunks until a read
//    returns 0; writewholefile writes the entry's drawn size (the srcfd
//    entry's size with srcfd) in iosize chunks (sizes above iosize are
//    rounded up to whole chunks, as filebench's loop does); appendfile
//    writes iosize bytes at EOF; appendfilerand a uniform size in
//    [0, iosize - 1] (0: counted, no I/O);
//  - read / write with `random` use pread/pwrite at a uniform offset in
//    [0, wss - iosize] rounded down to iosize (wss = workingset or the
//    entry's size); without it they continue from the descriptor's
//    position (a read at EOF rewinds); opennext rotates a thread's
//    descriptors over the fileset's files; dsync opens with O_SYNC,
//    directio with O_DIRECT;
//  - aiowrite issues the pwrite as a separate simulated thread; aiowait
//    waits until at least half (at least one) of the thread's outstanding
//    writes have completed; a thread waits for its writes before exiting;
//  - semblock / sempost model filebench's semaphore pairs (value,
//    highwater, blocking); hog takes value x hog_cost of simulated time;
//    delay sleeps value seconds;
//  - eventlimit / opslimit / iopslimit / bwlimit draw from the event
//    generator (rate events/s, a token per 1/rate s, FIFO); without one
//    they do nothing;
//  - finishoncount / finishonbytes end the run when filebench's global op
//    count (IO flowops) / byte count reaches the value.
// Positions: the model keeps each descriptor's position and each file's
// size, so "lseek + read/write" become read()/write() when the descriptor
// is already at that offset and pread()/pwrite() otherwise.
//
// Run end: the measured phase ends at the run time (cfg.run_time, else the
// script's "run N", else 60 s), at cfg.ops filebench ops, on a finish
// flowop, or when a thread cannot obtain a file/directory: in "quit
// firstdone" mode that ends the run, in "quit alldone" mode that thread,
// in the default timeout mode the run (run_status() says so, as filebench
// warns). A failed open/create/read/write ends the run with run_status()
// naming the flowop, path and errno; failed unlink/stat/mkdir/rmdir are
// counted as errors of their op only, as filebench ignores them.
//
// Setup (unmeasured): the fileset directory ($dir) is created; a fileset
// is removed first unless `reuse` finds it; with prealloc, its directory
// tree is made and prealloc% of its files (in random order, sized in 1 MiB
// writes; 32 at a time with paralloc) and leaf directories are created.
// Deviation: makedir creates missing parent directories (filebench's
// mkdir would fail with ENOENT when the tree was not preallocated).
//
// Statistics: FsWorkload's, with op.<flowop name>.* per flowop name, plus
// fb_ops (filebench's global op count), fb_ops_per_sec, fb_bytes.
#pragma once

#include <coroutine>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/filebench_script.h"
#include "host/fsworkload/fileset.h"
#include "host/fsworkload/fs_workload.h"
#include "host/fsworkload/notifier.h"
#include "sim/config.h"
#include "sim/units.h"

namespace host {

struct FilebenchConfig {
  std::string personality = "varmail";
  std::string variant = "stock";
  std::string script;  // path of a .f file; overrides personality
  std::string dir;     // $dir; empty = the script's
  uint64_t nfiles = 0;
  uint32_t nthreads = 0;
  sim::Bytes iosize{0};
  sim::Bytes meanappendsize{0};
  sim::Bytes filesize{0};
  uint64_t meandirwidth = 0;
  sim::SimTime run_time;
  uint64_t ops = 0;
  double eventrate = 0;
  std::vector<std::string> set;
  double size_gamma = -1;
  sim::SimTime hog_cost = sim::Ns(1);
  sim::SimTime think_time;

  static void Describe(sim::Schema<FilebenchConfig>& s);
};

class FilebenchWorkload final : public FsWorkload {
 public:
  // Builds the script (cfg.script's file, else the built-in personality
  // and variant) with the configured variables. Errors are InvalidInput
  // and name the key under `path` ("workload.filebench.nthreads: ...") or
  // the script line.
  static sim::Result<std::unique_ptr<FilebenchWorkload>> Create(const FilebenchConfig& cfg, FsWorkloadEnv env,
                                                                std::string_view path = "");
  // The script with cfg's variables applied (what Create runs).
  static sim::Result<FilebenchScript> BuildScript(const FilebenchConfig& cfg, std::string_view path = "");

  // Runs `script`; cfg supplies run_time, ops, eventrate, size_gamma,
  // hog_cost and think_time (its variable keys are ignored here).
  FilebenchWorkload(FilebenchScript script, const FilebenchConfig& cfg, FsWorkloadEnv env);
  ~FilebenchWorkload() override;

  const FilebenchScript& script() const { return script_; }
  size_t fileset_count() const { return filesets_.size(); }
  const Fileset& fileset(size_t i) const { return *filesets_[i]; }
  // Filebench's global counters (IO flowops; bytes of read/write flowops).
  uint64_t fb_ops() const { return fb_ops_.value(); }
  uint64_t fb_bytes() const { return fb_bytes_.value(); }
  // True once a finish flowop or the ops bound ended the run.
  bool finished() const { return finished_; }
  // True once a thread could not obtain a file or directory.
  bool out_of_entries() const { return out_of_entries_; }

 private:
  enum class Rc { kOk, kNoRsc, kDone, kError };
  struct Slot;
  struct Rotation;
  struct Sem;
  struct FlowopRt;
  struct ThreadRt;

  sim::Task<void> Setup() override;
  sim::Task<void> Worker(uint32_t index) override;
  sim::Task<void> Teardown() override;
  void OnStop() override;

  sim::Task<void> SetupFileset(size_t index);
  sim::Task<void> PreallocWorker(size_t fileset, const std::vector<uint64_t>* order, size_t* next, bool leafdirs,
                                 bool reusing);
  sim::Task<bool> MkdirP(fs::FileSystem* f, std::string path);
  sim::Task<void> RemoveTree(std::string path);

  sim::Task<Rc> Exec(ThreadRt& t, uint32_t fi);
  sim::Task<Rc> FileSetup(ThreadRt& t, const FlowopDef& d, Slot** slot);
  sim::Task<Rc> OpenCommon(ThreadRt& t, const FlowopDef& d, Slot* slot, uint64_t* rotor);
  sim::Task<void> EnsureParentDir(std::string dir);
  // A read or write of `len` bytes at `off` through the slot's descriptor:
  // read/write when `off` is the descriptor's position (which then advances
  // by the bytes moved), pread/pwrite otherwise. An awaitable around the
  // file system's own call, without a coroutine frame of its own; await it
  // at once.
  struct PosIo {
    sim::Task<fs::FsResult<uint64_t>> call;
    Slot* s;
    bool at_pos;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept { call.await_suspend(h); }
    fs::FsResult<uint64_t> await_resume();
  };
  PosIo ReadAt(Slot* s, uint64_t off, uint64_t len);
  PosIo WriteAt(Slot* s, uint64_t off, uint64_t len);
  sim::Task<bool> SemTake(Sem* s, int64_t n);
  sim::Task<bool> TakeEvents(uint64_t n);
  sim::Task<void> AioWrite(ThreadRt* t, uint32_t op, fs::Fd fd, uint64_t off, uint64_t len, const FlowopDef* d);
  sim::Task<void> WaitUnbusy(size_t fileset, uint64_t file);
  // Picks as Fileset does, but waits while every entry of the kind is busy.
  // Returns the entry, Fileset::kNone (nothing to pick) or kStopped.
  static constexpr int64_t kStopped = -2;
  sim::Task<int64_t> Pick(int fileset, bool leafdir, bool existing, uint64_t* rotor);
  Slot& SlotOf(ThreadRt& t, uint32_t fd);
  Rc Fail(const FlowopDef& d, std::string_view call, std::string_view path, fs::Errno e);
  void Count(const FlowopDef& d, FlowopRt& rt, sim::SimTime t0, uint64_t bytes, bool ok);
  uint32_t OpenFlags(const FlowopDef& d) const;
  void NotifyUnbusy(size_t fileset);

  FilebenchScript script_;
  sim::SimTime hog_cost_;
  sim::SimTime think_time_;
  uint64_t max_ops_ = 0;
  double eventrate_ = 0;
  std::vector<std::unique_ptr<Fileset>> filesets_;
  std::vector<std::unique_ptr<Notifier>> unbusy_;  // per fileset
  std::vector<std::unique_ptr<ThreadRt>> threads_;

  // Event generator.
  double events_taken_ = 0;

  sim::Counter fb_ops_, fb_bytes_, fb_rops_, fb_wops_, fb_rbytes_, fb_wbytes_;
  bool finished_ = false;
  bool out_of_entries_ = false;
};

}  // namespace host
