// LineSource: a trace file as a stream of lines in constant memory.
//
// Plain, gzip, bzip2, xz and zstd files are recognised by their leading
// magic bytes (the file name is not consulted) and decompressed on the fly.
// Pipes and devices are read as streams like regular files.
// Lines end at '\n'; a "\r\n" ending is accepted and the '\r' removed; a
// last line without a terminator is still a line. Memory is one fixed
// buffer whatever the file size: a line longer than `max_line_bytes` is
// reported as kTooLong (its bytes are discarded, never accumulated), after
// which reading continues with the next line.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "sim/status.h"

namespace host {

enum class Compression : uint8_t { kNone, kGzip, kBzip2, kXz, kZstd };
std::string_view CompressionName(Compression c);  // "none", "gzip", ...
// The compression whose magic bytes start `head` (kNone if none matches).
Compression DetectCompression(std::string_view head);

// Where the bytes come from (a file descriptor, a decompressor, memory).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `n` bytes into `dst`; 0 means end of data. An error is a
  // corrupt or truncated compressed stream or a failed read.
  virtual sim::Result<size_t> Read(char* dst, size_t n) = 0;
};

class LineSource {
 public:
  static constexpr size_t kDefaultMaxLineBytes = 64 * 1024;
  // A too-long line is skipped up to the larger of kMaxDiscardFactor x
  // max_line_bytes and kMinDiscardBytes; a longer one (a stream without
  // line breaks, such as a device) ends the stream with an error.
  static constexpr uint64_t kMaxDiscardFactor = 64;
  static constexpr uint64_t kMinDiscardBytes = uint64_t{64} << 20;

  enum class Outcome : uint8_t {
    kLine,     // *line holds the next line
    kEof,      // no more lines
    kTooLong,  // the line exceeded max_line_bytes; it was skipped
  };

  // Opens `path`. Errors: NotFound (cannot open), Unsupported/IoError.
  // REQUIRES: max_line_bytes > 0.
  static sim::Result<std::unique_ptr<LineSource>> Open(const std::string& path,
                                                       size_t max_line_bytes = kDefaultMaxLineBytes);
  // Reads lines from `data` (possibly compressed), named `name` in errors.
  // `data` must outlive the source.
  static sim::Result<std::unique_ptr<LineSource>> FromMemory(std::string name, std::string_view data,
                                                             size_t max_line_bytes = kDefaultMaxLineBytes);

  LineSource(std::string name, Compression compression, std::unique_ptr<ByteSource> bytes,
             size_t max_line_bytes);
  ~LineSource();
  LineSource(const LineSource&) = delete;
  LineSource& operator=(const LineSource&) = delete;

  // Advances to the next line. On kLine, *line (without its terminator)
  // stays valid until the next call. A read or decompression failure is an
  // InvalidInput status "name:line: ..." and ends the stream.
  sim::Result<Outcome> Next(std::string_view* line);

  // 1-based number of the line last returned (or skipped as too long).
  uint64_t line_no() const { return line_no_; }
  const std::string& name() const { return name_; }
  Compression compression() const { return compression_; }
  size_t max_line_bytes() const { return max_line_bytes_; }

 private:
  // Moves unread bytes to the buffer start and appends more input.
  sim::Status Refill();

  std::string name_;
  Compression compression_;
  std::unique_ptr<ByteSource> bytes_;
  size_t max_line_bytes_;
  size_t capacity_;
  std::unique_ptr<char[]> buf_;
  size_t pos_ = 0;  // first unread byte
  size_t end_ = 0;  // one past the last valid byte
  bool eof_ = false;
  bool discarding_ = false;  // dropping the rest of a too-long line
  uint64_t discarded_ = 0;   // bytes of it dropped so far
  uint64_t line_no_ = 0;
};

}  // namespace host
