#include "host/trace/block_trace_reader.h"

#include <limits>

#include <fmt/format.h>

namespace host {

void BlockTraceOptions::Describe(sim::Schema<BlockTraceOptions>& s) {
  s.Param("format", &BlockTraceOptions::format, "",
          "Trace format name (msr, systor17, tencent, alibaba, cloudphysics, umass_spc, fiu, blkparse, "
          "mqsim, disksim, wiscsee); empty = detect from the first lines");
  s.Choice("on_error", &BlockTraceOptions::on_error, "fail", {"fail", "skip"},
           "Malformed line: stop with file:line, or skip it and count it");
  s.Choice("zero_length", &BlockTraceOptions::zero_length, "drop", {"drop", "error"},
           "Zero-length read/write/trim: drop and count it, or treat it as a malformed line");
  s.Param("time_unit", &BlockTraceOptions::time_unit, "0ns",
          "Unit of the trace's time field; 0 = the format's own unit");
  s.Param("action", &BlockTraceOptions::action, "D",
          "blkparse/wiscsee event action taken as requests (D = dispatch, Q = queue, C = complete)");
  s.Param("max_line", &BlockTraceOptions::max_line, "64KiB", "Longest accepted trace line").Range(1, 1 << 30);
  s.Param("max_kept_errors", &BlockTraceOptions::max_kept_errors, "5",
          "Malformed-line messages kept for the report in skip mode");
}

namespace {

// Lines read ahead to detect the format, replayed before the rest.
struct SampleLine {
  LineSource::Outcome outcome;
  std::string text;
  uint64_t line_no;
};
constexpr size_t kDetectContentLines = 32;
constexpr size_t kDetectMaxLines = 256;

class LineTraceReader final : public BlockTraceReader {
 public:
  LineTraceReader(std::unique_ptr<LineSource> source, const TraceFormat* format,
                  const ParserOptions& parser_options, bool skip_errors, bool drop_zero_length,
                  uint32_t max_kept_errors, std::vector<SampleLine> sample)
      : source_(std::move(source)),
        format_(format),
        parser_(format->make_parser(parser_options)),
        time_unit_(sim::Ns(parser_options.time_unit_ns)),
        skip_errors_(skip_errors),
        drop_zero_length_(drop_zero_length),
        max_kept_errors_(max_kept_errors),
        sample_(std::move(sample)) {}

  sim::Result<bool> Next(BlockTraceRecord* rec) override;
  const std::string& path() const override { return source_->name(); }
  const TraceFormat& trace_format() const override { return *format_; }
  sim::SimTime time_unit() const override { return time_unit_; }
  Compression compression() const override { return source_->compression(); }
  const BlockTraceStats& stats() const override { return stats_; }

 private:
  // Records a malformed line. Returns true if reading goes on (skip mode).
  bool Reject(uint64_t line_no, std::string_view problem, std::string_view line) {
    return Reject(fmt::format("{}:{}: {}: {}", source_->name(), line_no, problem, Excerpt(line)));
  }
  bool Reject(std::string message);

  std::unique_ptr<LineSource> source_;
  const TraceFormat* format_;
  std::unique_ptr<LineParser> parser_;
  const sim::SimTime time_unit_;
  const bool skip_errors_;
  const bool drop_zero_length_;
  const uint32_t max_kept_errors_;
  std::vector<SampleLine> sample_;
  size_t sample_next_ = 0;
  bool first_content_ = true;
  bool have_time_ = false;
  WideNs first_time_ns_ = 0;
  int64_t prev_time_ns_ = 0;
  std::string error_;  // reused for every parse error
  sim::Status status_;
  BlockTraceStats stats_;
};

sim::Result<bool> LineTraceReader::Next(BlockTraceRecord* rec) {
  if (!status_.ok()) return status_;
  for (;;) {
    std::string_view line;
    LineSource::Outcome outcome;
    uint64_t line_no;
    if (sample_next_ < sample_.size()) {
      const SampleLine& s = sample_[sample_next_++];
      outcome = s.outcome;
      line = s.text;
      line_no = s.line_no;
    } else {
      if (!sample_.empty()) {  // replayed; no view into it is live any more
        sample_.clear();
        sample_.shrink_to_fit();
        sample_next_ = 0;
      }
      sim::Result<LineSource::Outcome> r = source_->Next(&line);
      if (!r.ok()) {
        status_ = r.status();
        return status_;
      }
      outcome = *r;
      line_no = source_->line_no();
    }
    if (outcome == LineSource::Outcome::kEof) return false;
    ++stats_.lines;
    if (outcome == LineSource::Outcome::kTooLong) {
      if (Reject(fmt::format("{}:{}: line longer than {} bytes", source_->name(), line_no,
                             source_->max_line_bytes()))) {
        continue;
      }
      return status_;
    }
    if (IsBlankOrComment(line)) {
      ++stats_.ignored;
      continue;
    }
    if (first_content_) {
      first_content_ = false;
      if (format_->IsHeader(line)) {
        ++stats_.ignored;
        continue;
      }
    }

    *rec = BlockTraceRecord();
    WideNs time_ns = 0;
    const LineResult result = parser_->Parse(line, rec, &time_ns, &error_);
    if (result == LineResult::kIgnored) {
      ++stats_.ignored;
      continue;
    }
    if (result == LineResult::kError) {
      if (Reject(line_no, error_, line)) continue;
      return status_;
    }

    if (rec->op == BlockTraceRecord::Op::kFlush) {
      rec->offset_bytes = 0;
      rec->length_bytes = 0;
    } else {
      if (rec->length_bytes == 0) {
        if (drop_zero_length_) {
          ++stats_.zero_length_dropped;
          continue;
        }
        if (Reject(line_no, fmt::format("zero-length {}", OpName(rec->op)), line)) continue;
        return status_;
      }
      uint64_t end;
      if (__builtin_add_overflow(rec->offset_bytes, rec->length_bytes, &end)) {
        if (Reject(line_no, "offset + length overflows 64 bits", line)) continue;
        return status_;
      }
    }

    if (rec->valid_time) {
      if (!have_time_) {
        have_time_ = true;
        first_time_ns_ = time_ns;
      }
      const WideNs rel = time_ns - first_time_ns_;
      if (rel > std::numeric_limits<int64_t>::max() || rel < std::numeric_limits<int64_t>::min()) {
        if (Reject(line_no, "time is too far (> 292 years) from the first record", line)) continue;
        return status_;
      }
      const auto rel64 = static_cast<int64_t>(rel);
      if (stats_.records > 0 && rel64 < prev_time_ns_) ++stats_.time_backwards;
      prev_time_ns_ = rel64;
      rec->time = sim::Ns(rel64);
    }
    rec->line_no = line_no;
    ++stats_.records;
    return true;
  }
}

bool LineTraceReader::Reject(std::string message) {
  if (!skip_errors_) {
    status_ = sim::Status::InvalidInput(std::move(message));
    return false;
  }
  ++stats_.skipped;
  if (stats_.first_errors.size() < max_kept_errors_) stats_.first_errors.push_back(std::move(message));
  return true;
}

sim::Result<std::unique_ptr<BlockTraceReader>> MakeReader(std::unique_ptr<LineSource> source,
                                                          const BlockTraceOptions& options,
                                                          const FormatRegistry& formats) {
  if (options.on_error != "fail" && options.on_error != "skip") {
    return sim::Status::InvalidInput(
        fmt::format("trace option on_error: '{}' is not one of: fail, skip", options.on_error));
  }
  if (options.zero_length != "drop" && options.zero_length != "error") {
    return sim::Status::InvalidInput(
        fmt::format("trace option zero_length: '{}' is not one of: drop, error", options.zero_length));
  }
  if (options.time_unit < sim::SimTime::Zero()) {
    return sim::Status::InvalidInput(
        fmt::format("trace option time_unit: must not be negative, got {}", options.time_unit.ToString()));
  }
  if (options.action.empty()) return sim::Status::InvalidInput("trace option action: must not be empty");

  const TraceFormat* format = nullptr;
  std::vector<SampleLine> sample;
  if (!options.format.empty()) {
    FS_ASSIGN_OR_RETURN(format, formats.Find(options.format));
  } else {
    std::vector<std::string> texts;
    size_t content = 0;
    while (content < kDetectContentLines && sample.size() < kDetectMaxLines) {
      std::string_view line;
      FS_ASSIGN_OR_RETURN(LineSource::Outcome outcome, source->Next(&line));
      if (outcome == LineSource::Outcome::kEof) break;
      sample.push_back(SampleLine{outcome, std::string(line), source->line_no()});
      // The rest of a too-long line may never end (a stream without line
      // breaks): detect from the lines before it.
      if (outcome == LineSource::Outcome::kTooLong) {
        if (content > 0) break;
        return sim::Status::InvalidInput(fmt::format("{}:{}: line longer than {} bytes before any trace record",
                                                     source->name(), source->line_no(), options.max_line.value));
      }
      if (outcome == LineSource::Outcome::kLine) {
        texts.emplace_back(line);
        if (!IsBlankOrComment(line)) ++content;
      }
    }
    FS_ASSIGN_OR_RETURN(format, formats.Detect(texts, source->name()));
  }

  ParserOptions parser_options;
  parser_options.time_unit_ns =
      options.time_unit > sim::SimTime::Zero() ? options.time_unit.ns() : format->default_time_unit.ns();
  parser_options.action = options.action;
  return std::unique_ptr<BlockTraceReader>(std::make_unique<LineTraceReader>(
      std::move(source), format, parser_options, options.on_error == "skip", options.zero_length == "drop",
      options.max_kept_errors, std::move(sample)));
}

size_t MaxLineBytes(const BlockTraceOptions& options) {
  return options.max_line.value == 0 ? LineSource::kDefaultMaxLineBytes : options.max_line.value;
}

}  // namespace

sim::Result<std::unique_ptr<BlockTraceReader>> OpenBlockTrace(const std::string& path,
                                                               const BlockTraceOptions& options,
                                                               const FormatRegistry& formats) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<LineSource> source, LineSource::Open(path, MaxLineBytes(options)));
  return MakeReader(std::move(source), options, formats);
}

sim::Result<std::unique_ptr<BlockTraceReader>> OpenBlockTraceFromMemory(std::string name, std::string_view data,
                                                                        const BlockTraceOptions& options,
                                                                        const FormatRegistry& formats) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<LineSource> source,
                      LineSource::FromMemory(std::move(name), data, MaxLineBytes(options)));
  return MakeReader(std::move(source), options, formats);
}

}  // namespace host
