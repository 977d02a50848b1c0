#include <cmath>
#include <iterator>
#include <string>

#include <fmt/format.h>
#include <glog/logging.h>

#include "sim/stats.h"

namespace sim {

namespace {

std::string Quoted(std::string_view s) {
  std::string buf;
  buf.reserve(s.size() + 2);
  buf.push_back('"');
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': buf += "\\\""; break;
      case '\\': buf += "\\\\"; break;
      case '\b': buf += "\\b"; break;
      case '\f': buf += "\\f"; break;
      case '\n': buf += "\\n"; break;
      case '\r': buf += "\\r"; break;
      case '\t': buf += "\\t"; break;
      default:
        // Other control characters must be escaped; bytes >= 0x80 are UTF-8
        // sequences and pass through unchanged.
        if (c < 0x20) {
          fmt::format_to(std::back_inserter(buf), "\\u{:04x}", c);
        } else {
          buf.push_back(ch);
        }
    }
  }
  buf.push_back('"');
  return buf;
}

}  // namespace

void JsonWriter::Prefix() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty()) return;
  CHECK(stack_.back().array) << "JSON value inside an object needs a key first";
  NextElement();
}

void JsonWriter::NextElement() {
  Level& top = stack_.back();
  if (!top.first) out_ << ',';
  top.first = false;
  if (top.compact) return;
  if (indent_ > 0) out_ << '\n' << std::string(stack_.size() * static_cast<size_t>(indent_), ' ');
}

void JsonWriter::BeginObject() {
  Prefix();
  out_ << '{';
  stack_.push_back(Level{false, true, !stack_.empty() && stack_.back().compact});
}

void JsonWriter::EndObject() {
  CHECK(!stack_.empty() && !stack_.back().array) << "EndObject without an open object";
  CHECK(!after_key_) << "EndObject after a key without a value";
  const bool empty = stack_.back().first;
  const bool compact = stack_.back().compact;
  stack_.pop_back();
  if (!empty && !compact && indent_ > 0) out_ << '\n' << std::string(stack_.size() * static_cast<size_t>(indent_), ' ');
  out_ << '}';
}

void JsonWriter::BeginArray(bool compact) {
  Prefix();
  out_ << '[';
  stack_.push_back(Level{true, true, compact || (!stack_.empty() && stack_.back().compact)});
}

void JsonWriter::EndArray() {
  CHECK(!stack_.empty() && stack_.back().array) << "EndArray without an open array";
  const bool empty = stack_.back().first;
  const bool compact = stack_.back().compact;
  stack_.pop_back();
  if (!empty && !compact && indent_ > 0) out_ << '\n' << std::string(stack_.size() * static_cast<size_t>(indent_), ' ');
  out_ << ']';
}

void JsonWriter::Key(std::string_view k) {
  CHECK(!stack_.empty() && !stack_.back().array) << "JSON key outside an object";
  CHECK(!after_key_) << "two JSON keys in a row";
  NextElement();
  out_ << Quoted(k);
  out_ << (indent_ > 0 ? ": " : ":");
  after_key_ = true;
}

void JsonWriter::String(std::string_view s) {
  Prefix();
  out_ << Quoted(s);
}

void JsonWriter::Number(double v) {
  if (!std::isfinite(v)) {
    Null();
    return;
  }
  Prefix();
  // fmt's default double format is the shortest string that reads back to
  // the same value, and it is locale-independent.
  out_ << fmt::format("{}", v);
}

void JsonWriter::Int(int64_t v) {
  Prefix();
  out_ << fmt::format("{}", v);
}

void JsonWriter::Uint(uint64_t v) {
  Prefix();
  out_ << fmt::format("{}", v);
}

void JsonWriter::Bool(bool v) {
  Prefix();
  out_ << (v ? "true" : "false");
}

void JsonWriter::Null() {
  Prefix();
  out_ << "null";
}

}  // namespace sim
