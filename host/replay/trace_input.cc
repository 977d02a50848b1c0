#include "host/replay/trace_input.h"

#include "host/trace/field_parse.h"
#include "host/trace/line_source.h"

namespace host {

sim::Result<std::unique_ptr<BlockTraceReader>> TraceInput::Open(const BlockTraceOptions& options) const {
  if (memory_) return OpenBlockTraceFromMemory(name_, data_, options);
  return OpenBlockTrace(name_, options);
}

std::string TraceInput::LineText(uint64_t line_no, const BlockTraceOptions& options) const {
  const size_t max_line = options.max_line.value > 0 ? options.max_line.value : LineSource::kDefaultMaxLineBytes;
  sim::Result<std::unique_ptr<LineSource>> src =
      memory_ ? LineSource::FromMemory(name_, data_, max_line) : LineSource::Open(name_, max_line);
  if (!src.ok()) return "";
  std::string_view line;
  for (;;) {
    sim::Result<LineSource::Outcome> r = (*src)->Next(&line);
    if (!r.ok() || *r == LineSource::Outcome::kEof) return "";
    if ((*src)->line_no() == line_no) return *r == LineSource::Outcome::kLine ? Excerpt(line) : "";
    if ((*src)->line_no() > line_no) return "";
  }
}

}  // namespace host
