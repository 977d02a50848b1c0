#include "host/trace/trace_format.h"

#include <fmt/format.h>

#include "sim/registry.h"

namespace host {
namespace {

// How a format fares on a detection sample.
struct SampleScore {
  size_t records = 0;
  size_t ignored = 0;
  size_t errors = 0;
};

SampleScore ScoreSample(const TraceFormat& format, std::span<const std::string> lines,
                        std::vector<std::string_view>* content) {
  ParserOptions options;
  options.time_unit_ns = format.default_time_unit.ns();
  std::unique_ptr<LineParser> parser = format.make_parser(options);
  SampleScore score;
  BlockTraceRecord rec;
  WideNs time_ns = 0;
  std::string error;
  bool first_content = true;
  content->clear();
  for (const std::string& line : lines) {
    if (IsBlankOrComment(line)) continue;
    const bool first = first_content;
    first_content = false;
    if (first && format.IsHeader(line)) continue;
    content->push_back(line);
    switch (parser->Parse(line, &rec, &time_ns, &error)) {
      case LineResult::kRecord: ++score.records; break;
      case LineResult::kIgnored: ++score.ignored; break;
      case LineResult::kError: ++score.errors; break;
    }
  }
  return score;
}

}  // namespace

bool TraceFormat::IsHeader(std::string_view line) const {
  if (header_first_field.empty()) return false;
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  line.remove_prefix(i);
  if (line.size() < header_first_field.size()) return false;
  if (!EqualsNoCase(line.substr(0, header_first_field.size()), header_first_field)) return false;
  if (line.size() == header_first_field.size()) return true;
  const char next = line[header_first_field.size()];
  return next == ',' || next == ' ' || next == '\t';
}

bool IsBlankOrComment(std::string_view line) {
  for (const char c : line) {
    if (c == ' ' || c == '\t') continue;
    return c == '#';
  }
  return true;
}

void FormatRegistry::Register(TraceFormat format) {
  CHECK(format.make_parser) << "trace format '" << format.name << "' has no parser";
  CHECK_GT(format.default_time_unit.ns(), 0) << format.name;
  for (const TraceFormat& f : formats_) CHECK_NE(f.name, format.name) << "trace format registered twice";
  formats_.push_back(std::move(format));
}

sim::Result<const TraceFormat*> FormatRegistry::Find(std::string_view name) const {
  for (const TraceFormat& f : formats_) {
    if (f.name == name) return &f;
  }
  return sim::Status::InvalidInput(
      fmt::format("unknown trace format '{}'; choices: {}", name, fmt::join(Names(), ", ")));
}

std::vector<std::string> FormatRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(formats_.size());
  for (const TraceFormat& f : formats_) names.push_back(f.name);
  return names;
}

sim::Result<const TraceFormat*> FormatRegistry::Detect(std::span<const std::string> first_lines,
                                                       std::string_view source) const {
  const TraceFormat* best = nullptr;
  SampleScore best_score;
  std::vector<std::string> tied;
  std::vector<std::string_view> content;
  for (const TraceFormat& f : formats_) {
    const SampleScore s = ScoreSample(f, first_lines, &content);
    const size_t accepted = s.records + s.ignored;
    if (accepted == 0 || s.errors * 10 > accepted + s.errors) continue;
    if (f.sniff_extra && !f.sniff_extra(content)) continue;
    const bool better = best == nullptr || s.errors < best_score.errors ||
                        (s.errors == best_score.errors && s.records > best_score.records);
    const bool same = best != nullptr && s.errors == best_score.errors && s.records == best_score.records;
    if (better) {
      best = &f;
      best_score = s;
      tied.assign(1, f.name);
    } else if (same) {
      tied.push_back(f.name);
    }
  }
  if (best == nullptr) {
    std::string first;
    for (const std::string& line : first_lines) {
      if (!IsBlankOrComment(line)) {
        first = Excerpt(line);
        break;
      }
    }
    if (first.empty()) {
      return sim::Status::InvalidInput(
          fmt::format("{}: no content lines to detect the trace format from; name one of: {}", source,
                      fmt::join(Names(), ", ")));
    }
    return sim::Status::InvalidInput(
        fmt::format("{}: trace format not recognised from the first lines (first: '{}'); name one of: {}",
                    source, first, fmt::join(Names(), ", ")));
  }
  if (tied.size() > 1) {
    return sim::Status::InvalidInput(fmt::format(
        "{}: trace format is ambiguous between {}; name one explicitly", source, fmt::join(tied, ", ")));
  }
  return best;
}

const FormatRegistry& BuiltinFormats() {
  static const FormatRegistry registry = [] {
    FormatRegistry r;
    for (const TraceFormatModule* m : sim::Registry<TraceFormatModule>::Get().entries()) m->add(&r);
    return r;
  }();
  return registry;
}

}  // namespace host
