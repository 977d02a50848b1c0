#include "host/trace/line_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <exception>
#include <ios>
#include <memory>
#include <string>

#include <boost/iostreams/device/array.hpp>
#include <boost/iostreams/device/file_descriptor.hpp>
#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_streambuf.hpp>
#include <boost/iostreams/read.hpp>
#include <fmt/format.h>

namespace host {
namespace {

namespace bio = boost::iostreams;

// Input is consumed in chunks of this size; large enough to amortise the
// per-read cost, small enough to stay in L2.
constexpr size_t kChunkBytes = 1 << 20;
// Buffer size handed to boost for each filter and device in a chain.
constexpr std::streamsize kBoostBufferBytes = 256 * 1024;

class FdSource final : public ByteSource {
 public:
  explicit FdSource(int fd) : fd_(fd) {}
  ~FdSource() override { ::close(fd_); }

  sim::Result<size_t> Read(char* dst, size_t n) override {
    for (;;) {
      const ssize_t r = ::read(fd_, dst, n);
      if (r >= 0) return static_cast<size_t>(r);
      if (errno != EINTR) return sim::Status::IoError(std::strerror(errno));
    }
  }

 private:
  int fd_;
};

// A pipe or socket cannot be re-read from the start: the bytes read to
// detect the compression are handed out again before the rest of the stream.
class PrefixedFdSource final : public ByteSource {
 public:
  PrefixedFdSource(std::string head, int fd) : head_(std::move(head)), fd_(fd) {}

  sim::Result<size_t> Read(char* dst, size_t n) override {
    if (pos_ < head_.size()) {
      const size_t k = std::min(n, head_.size() - pos_);
      std::memcpy(dst, head_.data() + pos_, k);
      pos_ += k;
      return k;
    }
    return fd_.Read(dst, n);
  }

 private:
  std::string head_;
  size_t pos_ = 0;
  FdSource fd_;
};

// The same as a boost source device, for decompressing such a stream.
// Copies share the state (boost copies devices into its chain).
class PrefixedFdDevice {
 public:
  using char_type = char;
  using category = boost::iostreams::source_tag;
  PrefixedFdDevice(std::string head, int fd) : src_(std::make_shared<PrefixedFdSource>(std::move(head), fd)) {}
  std::streamsize read(char* dst, std::streamsize n) {
    sim::Result<size_t> r = src_->Read(dst, static_cast<size_t>(n));
    if (!r.ok()) throw std::ios_base::failure(r.status().message());
    return *r == 0 ? -1 : static_cast<std::streamsize>(*r);
  }

 private:
  std::shared_ptr<PrefixedFdSource> src_;
};

class MemorySource final : public ByteSource {
 public:
  explicit MemorySource(std::string_view data) : data_(data) {}
  sim::Result<size_t> Read(char* dst, size_t n) override {
    const size_t k = std::min(n, data_.size());
    std::memcpy(dst, data_.data(), k);
    data_.remove_prefix(k);
    return k;
  }

 private:
  std::string_view data_;
};

// A decompressor chain over a file descriptor or a memory block. Boost
// reports corrupt input by throwing; the exception is turned into a Status
// here and nowhere else.
class DecompressingSource final : public ByteSource {
 public:
  DecompressingSource(Compression c, int fd) {
    PushFilter(c);
    chain_.push(bio::file_descriptor_source(fd, bio::close_handle), kBoostBufferBytes);
  }
  DecompressingSource(Compression c, PrefixedFdDevice device) {
    PushFilter(c);
    chain_.push(std::move(device), kBoostBufferBytes);
  }
  DecompressingSource(Compression c, std::string_view data) {
    PushFilter(c);
    chain_.push(bio::array_source(data.data(), data.size()), kBoostBufferBytes);
  }

  sim::Result<size_t> Read(char* dst, size_t n) override {
    if (done_) return size_t{0};
    try {
      const std::streamsize r = bio::read(chain_, dst, static_cast<std::streamsize>(n));
      if (r <= 0) {
        done_ = true;
        return size_t{0};
      }
      return static_cast<size_t>(r);
    } catch (const std::exception& e) {
      done_ = true;
      return sim::Status::InvalidInput(e.what());
    }
  }

 private:
  void PushFilter(Compression c) {
    switch (c) {
      case Compression::kGzip: chain_.push(bio::gzip_decompressor(), kBoostBufferBytes); break;
      case Compression::kBzip2: chain_.push(bio::bzip2_decompressor(), kBoostBufferBytes); break;
      case Compression::kXz: chain_.push(bio::lzma_decompressor(), kBoostBufferBytes); break;
      case Compression::kZstd: chain_.push(bio::zstd_decompressor(), kBoostBufferBytes); break;
      case Compression::kNone: LOG(FATAL) << "no decompressor for plain input";
    }
  }

  bio::filtering_streambuf<bio::input> chain_;
  bool done_ = false;
};

constexpr size_t kMagicBytes = 6;

}  // namespace

std::string_view CompressionName(Compression c) {
  switch (c) {
    case Compression::kNone: return "none";
    case Compression::kGzip: return "gzip";
    case Compression::kBzip2: return "bzip2";
    case Compression::kXz: return "xz";
    case Compression::kZstd: return "zstd";
  }
  return "?";
}

Compression DetectCompression(std::string_view head) {
  auto starts = [&](std::string_view magic) { return head.substr(0, magic.size()) == magic; };
  if (starts(std::string_view("\x1f\x8b", 2))) return Compression::kGzip;
  if (starts("BZh")) return Compression::kBzip2;
  if (starts(std::string_view("\xfd" "7zXZ\0", 6))) return Compression::kXz;
  if (starts(std::string_view("\x28\xb5\x2f\xfd", 4))) return Compression::kZstd;
  return Compression::kNone;
}

sim::Result<std::unique_ptr<LineSource>> LineSource::Open(const std::string& path, size_t max_line_bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return sim::Status::NotFound(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return sim::Status::InvalidInput(fmt::format("{}: is a directory, not a trace file", path));
  }
  char head[kMagicBytes];
  ssize_t got;
  do {
    got = ::pread(fd, head, sizeof(head), 0);
  } while (got < 0 && errno == EINTR);
  if (got < 0 && errno == ESPIPE) {
    // A pipe or socket: read the head (it may arrive in pieces) and put it
    // back in front of the stream.
    std::string h;
    while (h.size() < kMagicBytes) {
      const ssize_t r = ::read(fd, head, kMagicBytes - h.size());
      if (r == 0) break;
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) {
        const int err = errno;
        ::close(fd);
        return sim::Status::IoError(fmt::format("{}: cannot read: {}", path, std::strerror(err)));
      }
      h.append(head, static_cast<size_t>(r));
    }
    const Compression c = DetectCompression(h);
    std::unique_ptr<ByteSource> bytes;
    if (c == Compression::kNone) {
      bytes = std::make_unique<PrefixedFdSource>(std::move(h), fd);
    } else {
      bytes = std::make_unique<DecompressingSource>(c, PrefixedFdDevice(std::move(h), fd));
    }
    return std::make_unique<LineSource>(path, c, std::move(bytes), max_line_bytes);
  }
  if (got < 0) {
    const int err = errno;
    ::close(fd);
    return sim::Status::IoError(fmt::format("{}: cannot read: {}", path, std::strerror(err)));
  }
  const Compression c = DetectCompression(std::string_view(head, static_cast<size_t>(got)));
  std::unique_ptr<ByteSource> bytes;
  if (c == Compression::kNone) {
    bytes = std::make_unique<FdSource>(fd);
  } else {
    bytes = std::make_unique<DecompressingSource>(c, fd);
  }
  return std::make_unique<LineSource>(path, c, std::move(bytes), max_line_bytes);
}

sim::Result<std::unique_ptr<LineSource>> LineSource::FromMemory(std::string name, std::string_view data,
                                                                size_t max_line_bytes) {
  const Compression c = DetectCompression(data.substr(0, kMagicBytes));
  std::unique_ptr<ByteSource> bytes;
  if (c == Compression::kNone) {
    bytes = std::make_unique<MemorySource>(data);
  } else {
    bytes = std::make_unique<DecompressingSource>(c, data);
  }
  return std::make_unique<LineSource>(std::move(name), c, std::move(bytes), max_line_bytes);
}

LineSource::LineSource(std::string name, Compression compression, std::unique_ptr<ByteSource> bytes,
                       size_t max_line_bytes)
    : name_(std::move(name)),
      compression_(compression),
      bytes_(std::move(bytes)),
      max_line_bytes_(max_line_bytes),
      // Room for a longest line (plus "\r\n") and a full chunk behind it, so
      // every refill reads at least one chunk.
      capacity_(max_line_bytes + 2 + kChunkBytes),
      buf_(new char[capacity_]) {
  CHECK_GT(max_line_bytes_, 0u);
}

LineSource::~LineSource() = default;

sim::Result<LineSource::Outcome> LineSource::Next(std::string_view* line) {
  for (;;) {
    const char* start = buf_.get() + pos_;
    const size_t avail = end_ - pos_;
    const auto* nl = static_cast<const char*>(std::memchr(start, '\n', avail));
    if (nl != nullptr) {
      size_t len = static_cast<size_t>(nl - start);
      pos_ += len + 1;
      if (discarding_) {  // the tail of a line already reported as too long
        discarding_ = false;
        discarded_ = 0;
        continue;
      }
      ++line_no_;
      if (len > 0 && start[len - 1] == '\r') --len;
      if (len > max_line_bytes_) return Outcome::kTooLong;
      *line = std::string_view(start, len);
      return Outcome::kLine;
    }
    if (discarding_) {
      // A line without end (a device, a binary file) is not skipped for
      // ever: past kMaxDiscardFactor x max_line_bytes it is an error.
      discarded_ += avail;
      pos_ = end_;
      if (discarded_ > std::max<uint64_t>(kMaxDiscardFactor * max_line_bytes_, kMinDiscardBytes)) {
        const uint64_t dropped = discarded_;
        eof_ = true;
        end_ = pos_ = 0;
        discarding_ = false;
        discarded_ = 0;
        return sim::Status::InvalidInput(fmt::format(
            "{}:{}: no line break in {} bytes: not a line-oriented trace", name_, line_no_, dropped));
      }
    } else if (avail > max_line_bytes_ + 1) {  // +1: the line may still end in "\r\n"
      ++line_no_;
      discarding_ = true;
      pos_ = end_;
      return Outcome::kTooLong;
    }
    if (eof_) {
      if (pos_ == end_) return Outcome::kEof;
      size_t len = end_ - pos_;
      pos_ = end_;
      ++line_no_;
      if (start[len - 1] == '\r') --len;
      if (len > max_line_bytes_) return Outcome::kTooLong;
      *line = std::string_view(start, len);
      return Outcome::kLine;
    }
    FS_RETURN_IF_ERROR(Refill());
  }
}

sim::Status LineSource::Refill() {
  const size_t keep = end_ - pos_;
  if (keep > 0 && pos_ > 0) std::memmove(buf_.get(), buf_.get() + pos_, keep);
  pos_ = 0;
  end_ = keep;
  sim::Result<size_t> got = bytes_->Read(buf_.get() + end_, capacity_ - end_);
  if (!got.ok()) {
    eof_ = true;
    return sim::Status::InvalidInput(fmt::format("{}:{}: cannot read {} input: {}", name_, line_no_ + 1,
                                                 CompressionName(compression_), got.status().message()));
  }
  if (*got == 0) eof_ = true;
  end_ += *got;
  return sim::Status::Ok();
}

}  // namespace host
