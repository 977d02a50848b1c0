// Field splitting and number parsing shared by the trace line parsers.
//
// Everything here works on string_views into the caller's line buffer and
// never allocates, except to build an error message. Integers are decimal
// digits only: no sign, no surrounding spaces, no exponent. Times
// (ParseDecimalTime) also take a fraction and an exponent. Each Parse*
// function returns false after writing the problem ("Size: not a number:
// 'x12'") to *error.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ssd/block_device.h"

namespace host {

// Nanoseconds held in 128 bits, so that any 64-bit count of a trace's time
// unit (e.g. FILETIME's 100 ns ticks since 1601) converts without overflow.
using WideNs = __int128;

// Splits `line` at every `sep` into out[0..max). Returns the number of
// fields, or max + 1 if the line has more than `max` fields. Spaces and
// tabs around each field are trimmed.
size_t SplitAt(std::string_view line, char sep, std::string_view* out, size_t max);

// Splits `line` into runs of non-blank characters (blank = space or tab).
// Returns the number of fields, or max + 1 if there are more than `max`.
size_t SplitBlanks(std::string_view line, std::string_view* out, size_t max);

// ASCII case-insensitive equality.
bool EqualsNoCase(std::string_view a, std::string_view b);

bool ParseU64(std::string_view text, std::string_view what, uint64_t* value, std::string* error);
bool ParseU32(std::string_view text, std::string_view what, uint32_t* value, std::string* error);
// Hexadecimal digits, optionally prefixed by "0x".
bool ParseHexU64(std::string_view text, std::string_view what, uint64_t* value, std::string* error);

// A non-negative decimal "123", "123.456", ".5" or "5.", optionally with an
// exponent as C's %g and Python's str(float) write it ("7.3902e-05",
// "1e+16", "2E3"), counted in units of `unit_ns` nanoseconds, converted to
// nanoseconds (digits beyond 1 ns are truncated). The value must be below
// 2^64 units. REQUIRES: unit_ns > 0.
bool ParseDecimalTime(std::string_view text, std::string_view what, int64_t unit_ns, WideNs* ns,
                      std::string* error);

// "R"/"Read" -> kRead, "W"/"Write" -> kWrite, in any letter case.
bool ParseReadWrite(std::string_view text, std::string_view what, ssd::BlockOp* op, std::string* error);

// *bytes = count * unit_bytes; false if that overflows 64 bits.
bool ScaleToBytes(uint64_t count, uint64_t unit_bytes, std::string_view what, uint64_t* bytes,
                  std::string* error);

// `text` made printable for an error message: bytes outside 0x20..0x7e
// become \xNN, and text beyond `max` bytes is cut and marked "...".
std::string Excerpt(std::string_view text, size_t max = 200);

// Error text for a line with the wrong number of fields; `got` is a
// Split*() result.
void FieldCountError(size_t got, size_t max, std::string_view expected, std::string* error);

}  // namespace host
