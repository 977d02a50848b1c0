// Java properties text, as YCSB reads its workload files (-P file) with
// java.util.Properties.load().
//
// The format, as Properties.load() defines it:
//  - Natural lines end at "\n", "\r" or "\r\n". A line holding only
//    whitespace (space, tab, form feed) is blank; a line whose first
//    non-whitespace character is '#' or '!' is a comment. Both are skipped.
//  - A line ending in an odd number of backslashes continues on the next
//    natural line, whose leading whitespace is dropped (a comment line does
//    not continue; a continued line is never a comment).
//  - The key runs from the first non-whitespace character to the first
//    unescaped '=', ':' or whitespace. Whitespace around the separator and
//    one '=' or ':' are skipped; the value is the rest of the line, trailing
//    whitespace included. "key" alone is a key with an empty value.
//  - In keys and values, "\t" "\n" "\r" "\f" are those characters,
//    "\uXXXX" is that UTF-16 code unit (written here as UTF-8; a surrogate
//    pair becomes its code point), and a backslash before any other
//    character stands for that character. A malformed "\u" escape is an
//    error, as it is for Java.
//  - A key given twice keeps its last value (the entry keeps that line).
// Bytes are kept as they are (Java reads ISO-8859-1); NUL bytes are data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"

namespace host::sqlite {

struct JavaProperty {
  std::string key;
  std::string value;
  int line = 0;  // 1-based natural line the entry starts on
};

// The entries of `text` in the order their keys first appear (a repeated
// key keeps its first position and its last value and line). Errors are
// InvalidInput "<source>:<line>: <problem>".
sim::Result<std::vector<JavaProperty>> ParseJavaProperties(std::string_view text, std::string_view source);

// Reads and parses the file at `path` (at most kMaxPropertiesBytes).
// Errors name the path ("cannot read", too large) or "<path>:<line>".
inline constexpr size_t kMaxPropertiesBytes = size_t{1} << 20;
sim::Result<std::vector<JavaProperty>> ReadJavaPropertiesFile(const std::string& path);

}  // namespace host::sqlite
