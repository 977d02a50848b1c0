// Git-aging traces (tools/git_age_trace.py; format in traces/aging/README.md),
// parsed.
//
// A text file: the first line is "# flashstack git-aging trace v1"; other
// lines starting with '#' and blank lines are skipped. Every other line is
// one operation, fields separated by single spaces:
//   pull <i> <commit>       starts pull i (0, 1, 2, ... in order)
//   mkdir <path>            rmdir <path>           unlink <path>
//   write <path> <bytes>    create or truncate, then write <bytes> bytes
//   append <path> <bytes>   create if missing, then add <bytes> bytes
//   rename <from> <to>      (replacing <to> if it exists)
// Paths are relative to the mount root, '/'-separated, with bytes <= 0x20,
// 0x7f and '%' written as %XX (two hex digits); a decoded path is not
// empty, has no empty, "." or ".." component and no NUL. Numbers are
// decimal digits that fit in 63 bits.
//
// A malformed line (unknown operation, wrong number of fields, bad number,
// bad escape, bad path, an operation before the first pull, a pull out of
// order) is an InvalidInput error "<source>:<line>: <problem>: <line>".
// A file without the header line is "<source>:1: not a git-aging trace".
// A trace without any pull is an error too.
//
// Paths are interned: records hold indices into AgingTrace::paths.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"

namespace host {

enum class AgingOp : uint8_t { kMkdir, kRmdir, kWrite, kAppend, kUnlink, kRename };
constexpr size_t kNumAgingOps = static_cast<size_t>(AgingOp::kRename) + 1;
// The trace's names: "mkdir", "rmdir", "write", "append", "unlink", "rename".
std::string_view AgingOpName(AgingOp op);

inline constexpr std::string_view kAgingTraceMagic = "# flashstack git-aging trace v1";

struct AgingRecord {
  AgingOp op = AgingOp::kMkdir;
  uint32_t path = 0;   // index into AgingTrace::paths
  uint32_t path2 = 0;  // rename: the target
  uint32_t line = 0;
  uint64_t bytes = 0;  // write / append
};

struct AgingPull {
  std::string commit;
  uint32_t line = 0;
  uint64_t first = 0, end = 0;  // its records: [first, end) of AgingTrace::records
};

struct AgingTrace {
  std::string source;
  uint64_t lines = 0;
  std::vector<std::string> paths;  // decoded, relative (no leading '/')
  std::vector<AgingRecord> records;
  std::vector<AgingPull> pulls;
  std::array<uint64_t, kNumAgingOps> counts{};  // records per operation
};

struct AgingParseOptions {
  size_t max_line_bytes = 64 * 1024;
  uint64_t max_lines = uint64_t{1} << 31;  // line numbers are 32-bit
};

// Decodes a %XX-escaped path field; empty on success, else the problem.
std::string DecodeAgingPath(std::string_view field, std::string* out);

sim::Result<AgingTrace> ParseAgingTrace(std::string_view text, std::string_view source,
                                        const AgingParseOptions& options = {});
// Streams and parses a file (plain or compressed). A file that cannot be
// opened is InvalidInput "<path>: cannot read the trace file: <reason>".
sim::Result<AgingTrace> ReadAgingTraceFile(const std::string& path, const AgingParseOptions& options = {});

}  // namespace host
