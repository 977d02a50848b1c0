// MobiGen syscall traces (ESOS-Lab Mobibench's MobiGen output), parsed.
//
// One syscall per line, fields separated by spaces:
//   <tid> <t_us> <call> <args...>
// tid: thread index (0..n-1 with gaps); t_us: microseconds since the first
// traced call, non-decreasing within a thread. Calls and arguments:
//   open <path> <flags> <fd>      path quoted ("/system/...") or not
//                                 ("data/data"); flags "O_A|O_B|..."; fd =
//                                 the descriptor the call returned
//   read|write <fd> <bytes>       bytes returned
//   pread|pwrite <fd> <offset> <bytes>
//   fsync|fdatasync|close|fstat64 <fd> <ret>
//   access|stat64|lstat64|unlink <"path"> <ret>
// A quoted argument may contain spaces. Any other call name on an
// otherwise well-formed line ("<tid> <t_us> <name> ...") is an unknown
// call: kept, counted by name, never replayed. Blank lines are skipped.
// A malformed line (bad number, wrong argument count, unbalanced quote,
// time going backwards within a thread, unknown O_ flag, a timestamp above
// kMaxMobigenTimestampUs) is an InvalidInput error
// "<source>:<line>: <problem>: <line text>", or with skip_malformed is
// counted and skipped (the first messages are kept).
// Accounting: records (known + unknown) + skipped = lines.
//
// Input is read as a stream of lines (host/trace/line_source.h: plain or
// compressed files, pipes and devices alike) and only the parsed records
// are kept. Bounds that stop a wrong input (a binary file, /dev/zero)
// before it exhausts memory are errors even with skip_malformed: a line
// longer than max_line_bytes, more than max_lines lines or more than
// max_bytes bytes.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"

namespace host {

enum class MobigenCall : uint8_t {
  kOpen,
  kClose,
  kRead,
  kWrite,
  kPread,
  kPwrite,
  kFsync,
  kFdatasync,
  kFstat,
  kStat,
  kLstat,
  kAccess,
  kUnlink,
  kUnknown,
};
constexpr size_t kNumMobigenCalls = static_cast<size_t>(MobigenCall::kUnknown) + 1;
// The trace's names: "open", ..., "fstat64", "stat64", "lstat64", "access", "unlink", "unknown".
std::string_view MobigenCallName(MobigenCall c);

struct MobigenRecord {
  uint32_t line = 0;
  uint32_t thread = 0;  // index into MobigenTrace::tids
  MobigenCall call = MobigenCall::kUnknown;
  bool quoted = false;   // open / path calls: the path was quoted
  bool rdonly = false;   // open: the flags start with O_RDONLY
  uint32_t flags = 0;    // open: fs::OpenFlags from the recorded flags
  int32_t fd = -1;       // fd calls: the descriptor; open: the returned one
  int64_t t_us = 0;
  int64_t ret = 0;       // close/fsync/fdatasync/fstat64/path calls: the recorded result
  uint64_t offset = 0;   // pread/pwrite
  int64_t bytes = 0;     // read/write/pread/pwrite (negative: the call failed)
  uint32_t name = UINT32_MAX;  // open / path calls: index into paths; unknown: into unknown_names
};

struct MobigenTrace {
  std::string source;
  uint64_t lines = 0;  // lines in the input
  std::vector<MobigenRecord> records;  // known and unknown calls, input order
  std::vector<int64_t> tids;           // thread index -> trace tid (ascending)
  std::vector<std::vector<uint32_t>> thread_records;  // per thread: record indices in input order
  std::vector<std::string> paths;          // interned, quotes removed
  std::vector<std::string> unknown_names;  // interned unknown call names
  std::map<std::string, uint64_t> unknown_counts;
  std::array<uint64_t, kNumMobigenCalls> counts{};  // records per call
  uint64_t skipped = 0;    // blank + malformed lines
  uint64_t malformed = 0;  // with skip_malformed
  std::vector<std::string> errors;  // the first messages of skipped malformed lines
  int64_t first_us = 0;    // smallest timestamp
  int64_t last_us = 0;     // largest timestamp

  uint64_t count(MobigenCall c) const { return counts[static_cast<size_t>(c)]; }
  uint64_t unknown() const { return count(MobigenCall::kUnknown); }
};

// Largest accepted timestamp: about 127 years in microseconds, so that
// timestamps in ns (x 1000) stay far inside 64 bits.
inline constexpr int64_t kMaxMobigenTimestampUs = 4'000'000'000'000'000;

struct MobigenParseOptions {
  bool skip_malformed = false;
  size_t max_error_messages = 20;
  size_t max_line_bytes = 64 * 1024;
  uint64_t max_lines = uint64_t{1} << 24;  // line numbers are 32-bit; records take ~70 bytes each
  uint64_t max_bytes = uint64_t{1} << 30;
};

sim::Result<MobigenTrace> ParseMobigen(std::string_view text, std::string_view source,
                                       const MobigenParseOptions& options = {});
// Streams and parses a file (any readable file: regular, pipe, device). A
// file that cannot be opened is InvalidInput "<path>: cannot read the trace
// file: <reason>"; a read failure later is "<path>:<line>: cannot read ...".
sim::Result<MobigenTrace> ReadMobigenFile(const std::string& path, const MobigenParseOptions& options = {});

}  // namespace host
