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

#include <boost/iostreams/filter/bzip2.hpp>
#include <boost/iostreams/filter/lzma.hpp>
#include <boost/iostreams/filter/zstd.hpp>
#include <boost/iostreams/filtering_streambuf.hpp>
#include <boost/iostreams/read.hpp>
#include <fmt/format.h>
#include <zlib.h>

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

// A boost source device over any ByteSource (boost copies devices into its
// chain: copies share the source).
class ByteSourceDevice {
 public:
  using char_type = char;
  using category = boost::iostreams::source_tag;
  explicit ByteSourceDevice(std::shared_ptr<ByteSource> src) : src_(std::move(src)) {}
  std::streamsize read(char* dst, std::streamsize n) {
    sim::Result<size_t> r = src_->Read(dst, static_cast<size_t>(n));
    if (!r.ok()) throw std::ios_base::failure(r.status().message());
    return *r == 0 ? -1 : static_cast<std::streamsize>(*r);
  }

 private:
  std::shared_ptr<ByteSource> src_;
};

// gzip through zlib itself, which checks every member's CRC-32 and length
// (ISIZE) against its trailer; boost's gzip filter checks the CRC only.
// Members follow one another (a concatenated .gz); anything after the last
// member but a whole member is an error, as is a stream that ends inside
// one.
class GzipSource final : public ByteSource {
 public:
  explicit GzipSource(std::unique_ptr<ByteSource> raw) : raw_(std::move(raw)), in_(new unsigned char[kIn]) {
    zs_.zalloc = Z_NULL;
    zs_.zfree = Z_NULL;
    zs_.opaque = Z_NULL;
    CHECK_EQ(inflateInit2(&zs_, 16 + MAX_WBITS), Z_OK);
  }
  ~GzipSource() override { inflateEnd(&zs_); }

  sim::Result<size_t> Read(char* dst, size_t n) override {
    if (done_) return size_t{0};
    zs_.next_out = reinterpret_cast<unsigned char*>(dst);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0 && !eof_) {
        FS_ASSIGN_OR_RETURN(const size_t got, raw_->Read(reinterpret_cast<char*>(in_.get()), kIn));
        if (got == 0) eof_ = true;
        zs_.next_in = in_.get();
        zs_.avail_in = static_cast<uInt>(got);
      }
      if (zs_.avail_in == 0 && eof_) {
        if (in_member_) return Fail("the compressed stream ends inside a gzip member (truncated file)");
        done_ = true;
        break;
      }
      in_member_ = true;
      const int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        in_member_ = false;
        CHECK_EQ(inflateReset(&zs_), Z_OK);
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input
      if (rc != Z_OK) return Fail(zs_.msg != nullptr ? zs_.msg : "corrupt data");
    }
    return n - zs_.avail_out;
  }

 private:
  static constexpr size_t kIn = 256 * 1024;
  sim::Status Fail(const std::string& why) {
    done_ = true;
    return sim::Status::InvalidInput(fmt::format("gzip: {}", why));
  }
  std::unique_ptr<ByteSource> raw_;
  std::unique_ptr<unsigned char[]> in_;
  z_stream zs_{};
  bool eof_ = false;
  bool in_member_ = false;
  bool done_ = false;
};

// Passes a zstd stream through unchanged while following its frame
// structure (RFC 8878: frame header, block headers, optional checksum), so
// a stream cut inside a frame is told apart from a complete one: boost's
// zstd filter ends quietly on a truncated frame. Skippable frames are
// followed too. The content checksum itself is verified by the decoder.
class ZstdFrameWalker final : public ByteSource {
 public:
  explicit ZstdFrameWalker(std::unique_ptr<ByteSource> raw) : raw_(std::move(raw)) {}

  sim::Result<size_t> Read(char* dst, size_t n) override {
    FS_ASSIGN_OR_RETURN(const size_t got, raw_->Read(dst, n));
    for (size_t i = 0; i < got; ++i) Step(static_cast<unsigned char>(dst[i]));
    if (got == 0 && !complete()) {
      return sim::Status::InvalidInput("zstd: the compressed stream ends inside a frame (truncated file)");
    }
    if (bad_) return sim::Status::InvalidInput("zstd: not a valid frame structure");
    return got;
  }
  // The bytes so far end exactly after a frame.
  bool complete() const { return state_ == State::kMagic && have_ == 0; }

 private:
  enum class State { kMagic, kDescriptor, kHeaderRest, kBlockHeader, kSkipBody, kSkipSize, kChecksum };
  void Step(unsigned char b) {
    if (skip_ > 0) {  // inside a block body, skippable data or the rest of a header
      if (--skip_ == 0) Done();
      return;
    }
    acc_[have_++] = b;
    switch (state_) {
      case State::kMagic:
        if (have_ < 4) return;
        have_ = 0;
        if (acc_[0] == 0x28 && acc_[1] == 0xb5 && acc_[2] == 0x2f && acc_[3] == 0xfd) {
          state_ = State::kDescriptor;
          skippable_ = false;
        } else if ((acc_[0] & 0xf0) == 0x50 && acc_[1] == 0x2a && acc_[2] == 0x4d && acc_[3] == 0x18) {
          state_ = State::kSkipSize;
          skippable_ = true;
        } else {
          bad_ = true;
        }
        return;
      case State::kSkipSize:
        if (have_ < 4) return;
        have_ = 0;
        skip_ = Le(4);
        state_ = State::kSkipBody;
        if (skip_ == 0) Done();
        return;
      case State::kDescriptor: {
        have_ = 0;
        const unsigned fcs_flag = b >> 6, single = (b >> 5) & 1, dict = b & 3;
        checksum_ = (b >> 2) & 1;
        static constexpr uint32_t kDict[] = {0, 1, 2, 4};
        static constexpr uint32_t kFcs[] = {0, 2, 4, 8};
        uint64_t rest = (single ? 0 : 1) + kDict[dict] + (fcs_flag == 0 && single ? 1 : kFcs[fcs_flag]);
        state_ = State::kHeaderRest;
        if (rest == 0) {
          state_ = State::kBlockHeader;
        } else {
          skip_ = rest;
        }
        return;
      }
      case State::kBlockHeader: {
        if (have_ < 3) return;
        have_ = 0;
        const uint32_t h = static_cast<uint32_t>(Le(3));
        last_ = h & 1;
        const uint32_t type = (h >> 1) & 3;
        const uint32_t size = h >> 3;
        if (type == 3) {
          bad_ = true;
          return;
        }
        state_ = State::kSkipBody;
        skip_ = type == 1 ? 1 : size;
        if (skip_ == 0) Done();
        return;
      }
      case State::kChecksum:
        if (have_ < 4) return;
        have_ = 0;
        state_ = State::kMagic;
        return;
      case State::kHeaderRest:
      case State::kSkipBody:
        have_ = 0;  // not reached: bodies are skipped above
        return;
    }
  }
  // The end of a header, a block body or a skippable frame's data.
  void Done() {
    switch (state_) {
      case State::kHeaderRest:
        state_ = State::kBlockHeader;
        return;
      case State::kSkipBody:
        if (skippable_) {
          state_ = State::kMagic;
        } else if (last_) {
          state_ = checksum_ ? State::kChecksum : State::kMagic;
        } else {
          state_ = State::kBlockHeader;
        }
        return;
      default:
        return;
    }
  }
  uint64_t Le(int k) const {
    uint64_t v = 0;
    for (int i = k; i-- > 0;) v = v << 8 | acc_[i];
    return v;
  }

  std::unique_ptr<ByteSource> raw_;
  State state_ = State::kMagic;
  unsigned char acc_[8] = {};
  int have_ = 0;
  uint64_t skip_ = 0;
  bool checksum_ = false;
  bool last_ = false;
  bool skippable_ = false;
  bool bad_ = false;
};

// A decompressor chain over a file descriptor or a memory block. Boost
// reports corrupt input by throwing; the exception is turned into a Status
// here and nowhere else.
class DecompressingSource final : public ByteSource {
 public:
  DecompressingSource(Compression c, std::unique_ptr<ByteSource> raw) {
    PushFilter(c);
    chain_.push(ByteSourceDevice(std::shared_ptr<ByteSource>(std::move(raw))), kBoostBufferBytes);
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
      case Compression::kGzip: LOG(FATAL) << "gzip is read by GzipSource";
      case Compression::kBzip2: chain_.push(bio::bzip2_decompressor(), kBoostBufferBytes); break;
      case Compression::kXz: chain_.push(bio::lzma_decompressor(), kBoostBufferBytes); break;
      case Compression::kZstd: chain_.push(bio::zstd_decompressor(), kBoostBufferBytes); break;
      case Compression::kNone: LOG(FATAL) << "no decompressor for plain input";
    }
  }

  bio::filtering_streambuf<bio::input> chain_;
  bool done_ = false;
};

// The decompressor for `c` over the raw (compressed) bytes.
std::unique_ptr<ByteSource> Decompress(Compression c, std::unique_ptr<ByteSource> raw) {
  if (c == Compression::kGzip) return std::make_unique<GzipSource>(std::move(raw));
  if (c == Compression::kZstd) raw = std::make_unique<ZstdFrameWalker>(std::move(raw));
  return std::make_unique<DecompressingSource>(c, std::move(raw));
}

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
      bytes = Decompress(c, std::make_unique<PrefixedFdSource>(std::move(h), fd));
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
    bytes = Decompress(c, std::make_unique<FdSource>(fd));
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
    bytes = Decompress(c, std::make_unique<MemorySource>(data));
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
