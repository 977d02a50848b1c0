// The filebench workload language (".f" files), the subset the project
// runs: personalities are data in this language (the built-in ones in
// filebench_personalities.cc, or a user's file), parsed into the model
// below and executed by FilebenchWorkload.
//
// Supported statements (one per line; '#' starts a comment; an attribute
// list ending with ',' continues on the next line):
//   set $var=<value>             integer (suffix k/m/g/t = KiB/MiB/GiB/TiB),
//                                word, or cvar(type=cvar-gamma,
//                                parameters=mean:<m>;gamma:<g>)
//   set mode quit firstdone|alldone|timeout
//   eventgen rate = <events/s>
//   define fileset|file name=..,path=..,size=..,entries=..,leafdirs=..,
//          dirwidth=..,prealloc[=<percent>],paralloc,reuse,readonly,cached,
//          sizegamma=<gamma x 1000>,dirgamma=<gamma x 1000>
//   define process name=..,instances=.. { thread name=..,instances=..,
//          memsize=..,useism { flowop <type> name=..,<attrs> ... } ... }
//   run [<seconds>]   echo "..."   usage "..."   enable lathist   debug <n>
// Flowop types: createfile openfile closefile deletefile statfile fsync
// fsyncset readwholefile writewholefile appendfile appendfilerand read
// write aiowrite aiowait makedir removedir listdir hog delay semblock
// sempost eventlimit opslimit iopslimit bwlimit finishoncount
// finishonbytes. Flowop attributes: name, filesetname (= fileset,
// filename), fd, srcfd, iosize, iters, random, dsync, directio, opennext,
// workingset, value, highwater, target, blocking.
//
// Anything else (unknown statements, attributes or flowop types, an
// undefined variable, a bad number) is an InvalidInput error
// "<source>:<line>: <problem>: <offending text>".
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"
#include "sim/time.h"

namespace host {

enum class FlowopKind : uint8_t {
  kCreateFile,
  kOpenFile,
  kCloseFile,
  kDeleteFile,
  kStatFile,
  kFsync,
  kFsyncSet,
  kReadWholeFile,
  kWriteWholeFile,
  kAppendFile,
  kAppendFileRand,
  kRead,
  kWrite,
  kAioWrite,
  kAioWait,
  kMakeDir,
  kRemoveDir,
  kListDir,
  kHog,
  kDelay,
  kSemBlock,
  kSemPost,
  kEventLimit,
  kOpsLimit,
  kIopsLimit,
  kBwLimit,
  kFinishOnCount,
  kFinishOnBytes,
};
std::string_view FlowopKindName(FlowopKind k);

// How filebench counts a flowop in its global statistics.
struct FlowopTraits {
  bool io = false;     // counted in the global op count (FLOW_TYPE_IO/AIO)
  bool read = false;   // bytes count as read
  bool write = false;  // bytes count as written
};
FlowopTraits TraitsOf(FlowopKind k);

struct FlowopDef {
  FlowopKind kind = FlowopKind::kHog;
  std::string name;
  int fileset = -1;  // index into FilebenchScript::filesets; -1 = none
  uint32_t fd = 0;
  uint32_t srcfd = 0;
  uint64_t iosize = 0;
  uint64_t workingset = 0;
  uint64_t iters = 1;
  uint64_t value = 0;
  uint64_t highwater = 0;
  std::string target;
  bool random = false;
  bool dsync = false;
  bool directio = false;
  bool opennext = false;
  bool blocking = false;
  int line = 0;
};

struct ThreadDef {
  std::string name;
  uint32_t instances = 1;
  std::vector<FlowopDef> flowops;
  int line = 0;
};

struct ProcessDef {
  std::string name;
  uint32_t instances = 1;
  std::vector<ThreadDef> threads;
  int line = 0;
};

struct FilesetDef {
  std::string name;
  std::string path;
  bool single_file = false;  // "define file": one file at <path>/<name>
  uint64_t entries = 0;
  uint64_t leafdirs = 0;
  double dirwidth = 0;
  double size_mean = 0;   // bytes
  double size_gamma = 0;  // 0 = every file has size_mean bytes
  double dirgamma = 1.5;  // 0 = fixed widths and depths
  bool prealloc = false;  // the attribute is present: directories are made
  uint32_t prealloc_percent = 0;
  bool paralloc = false;
  bool reuse = false;
  bool readonly = false;
  int line = 0;
};

enum class RunMode : uint8_t { kTimeout, kFirstDone, kAllDone };

struct FilebenchScript {
  std::string source;  // name used in messages
  std::vector<FilesetDef> filesets;
  std::vector<ProcessDef> processes;
  RunMode mode = RunMode::kTimeout;
  bool has_run = false;   // a run statement was seen
  sim::SimTime run_time;  // from "run <seconds>"; zero when absent
  double eventrate = 0;   // events per second; 0 = no event generator
  // Every variable after parsing, overrides applied ("$" dropped).
  std::map<std::string, std::string> variables;

  uint32_t TotalThreads() const;
  int FindFileset(std::string_view name) const;
};

// Parses `text`. `overrides` replace the value of "set $<name>=" lines
// (the variable must be set by the script); values use the script syntax.
sim::Result<FilebenchScript> ParseFilebenchScript(std::string_view text, std::string_view source,
                                                  const std::map<std::string, std::string>& overrides = {});

// A script number: digits with an optional k/m/g/t (binary) suffix, or a
// decimal fraction without suffix.
sim::Result<double> ParseFilebenchNumber(std::string_view text);

}  // namespace host
