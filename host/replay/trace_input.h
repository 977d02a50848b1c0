// TraceInput: the trace a replay reads, as a file or as bytes in memory.
// The replay reads it several times (the address pre-pass, each loop), so
// it keeps the means to reopen it rather than an open reader.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "host/trace/block_trace_reader.h"
#include "sim/status.h"

namespace host {

class TraceInput {
 public:
  static TraceInput File(std::string path) { return TraceInput(std::move(path), {}, false); }
  // `data` (possibly compressed) must outlive every reader opened from it.
  static TraceInput Memory(std::string name, std::string_view data) { return TraceInput(std::move(name), data, true); }

  // The name used in messages: the path, or the memory trace's name.
  const std::string& name() const { return name_; }

  // A fresh reader positioned at the first record.
  sim::Result<std::unique_ptr<BlockTraceReader>> Open(const BlockTraceOptions& options) const;

  // The text of line `line_no` (1-based) made printable and cut to 200
  // bytes (host::Excerpt), for an error message; "" if it cannot be read.
  // Reads the trace from its start: for error paths only.
  std::string LineText(uint64_t line_no, const BlockTraceOptions& options) const;

 private:
  TraceInput(std::string name, std::string_view data, bool memory)
      : name_(std::move(name)), data_(data), memory_(memory) {}
  std::string name_;
  std::string_view data_;
  bool memory_;
};

}  // namespace host
