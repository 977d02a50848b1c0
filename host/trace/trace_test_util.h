// Helpers shared by the fs_trace tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/trace/block_trace_reader.h"

namespace host::trace_test {

inline std::string SamplePath(const std::string& name) {
  return std::string(FLASHSTACK_SOURCE_DIR) + "/traces/samples/" + name;
}

inline std::string SharedTracePath(const std::string& rel) {
  return std::string(FLASHSTACK_SHARED_DIR) + "/traces/" + rel;
}

// A fresh directory under the test temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("fs_trace_") + info->test_suite_name() + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';  // parameterized test names contain '/'
    }
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }
  std::string Write(const std::string& name, const std::string& content) const {
    const std::string p = File(name);
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every record of a trace; fails the test on any error.
inline std::vector<BlockTraceRecord> ReadAll(BlockTraceReader* reader) {
  std::vector<BlockTraceRecord> out;
  BlockTraceRecord rec;
  for (;;) {
    sim::Result<bool> more = reader->Next(&rec);
    EXPECT_TRUE(more.ok()) << more.status().message();
    if (!more.ok() || !*more) break;
    out.push_back(rec);
  }
  return out;
}

inline std::vector<BlockTraceRecord> ReadAllFile(const std::string& path, const BlockTraceOptions& options = {}) {
  sim::Result<std::unique_ptr<BlockTraceReader>> r = OpenBlockTrace(path, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  return ReadAll(r->get());
}

// Every record of the trace text `data` (named "mem" in messages).
inline std::vector<BlockTraceRecord> ReadAllMemory(const std::string& data, const BlockTraceOptions& options = {}) {
  sim::Result<std::unique_ptr<BlockTraceReader>> r = OpenBlockTraceFromMemory("mem", data, options);
  EXPECT_TRUE(r.ok()) << r.status().message();
  if (!r.ok()) return {};
  return ReadAll(r->get());
}

}  // namespace host::trace_test
