// The dependency rule of docs/DESIGN.md, enforced: a folder includes only
// itself and the folders below it, and a layer reaches the one below only
// through its interface header.
//
// Layers, bottom to top: sim, flash, ftl, ssd, fs, host, app; tests/ and
// tools/ sit beside them. Within fs/ the file systems (fs/f2fs, fs/memfs, …)
// share fs/*.h and fs/vfs/ but never include each other; within host/ the
// listed sibling folders may be used (replay reads traces). Test code
// (*_test.cc, *_bench.cc, *test_util*.h and the like) may also include any
// layer below its own and the shared fakes in tests/fakes/.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace {

namespace stdfs = std::filesystem;

// The top-level layer of a project path ("fs/f2fs/f2fs.h" -> "fs").
std::string LayerOf(const std::string& path) { return path.substr(0, path.find('/')); }

// The folder of a project path ("fs/f2fs/f2fs.h" -> "fs/f2fs").
std::string FolderOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

int Rank(const std::string& layer) {
  static const std::map<std::string, int> kRank = {{"sim", 0}, {"flash", 1}, {"ftl", 2}, {"ssd", 3},
                                                   {"fs", 4},  {"host", 5},  {"app", 6}, {"tests", 7}};
  auto it = kRank.find(layer);
  return it == kRank.end() ? -1 : it->second;
}

bool IsTestCode(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return base.find("_test.") != std::string::npos || base.find("_bench.") != std::string::npos ||
         base.find("test_util") != std::string::npos || base.find("test_schema") != std::string::npos ||
         base.rfind("testing_", 0) == 0;
}

bool StartsWith(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Why `from` may not include `target`, or "" when it may.
std::string Violation(const std::string& from, const std::string& target) {
  const std::string lf = LayerOf(from), lt = LayerOf(target);
  const int rf = Rank(lf), rt = Rank(lt);
  if (rt < 0) return "";  // not a project header
  if (lf == "tests" || lf == "app") return lf == "app" && lt == "tests" ? "app must not include tests/" : "";
  const bool test = IsTestCode(from);
  if (test && StartsWith(target, "tests/fakes/")) return "";
  if (rt > rf) return "upward include: " + lf + " is below " + lt;
  if (rt < rf) {
    if (test) return "";
    // Layers above the device see it only through its interface headers.
    if (rf >= Rank("fs") && lt != "sim" && lt != "fs" && !StartsWith(target, "ssd/block_device.h") &&
        !StartsWith(target, "ssd/device_layout.h")) {
      return "reaches around a layer: " + lf + " uses the device only through ssd/block_device.h";
    }
    if (lf == "host" && lt == "fs" && FolderOf(target) != "fs" && !StartsWith(target, "fs/vfs/")) {
      return "host uses file systems only through fs/*.h and fs/vfs/";
    }
    return "";
  }
  // Same layer: own folder, the layer's root, or an allowed sibling.
  const std::string ff = FolderOf(from), ft = FolderOf(target);
  if (ff == ft || ft == lf) return "";
  if (StartsWith(ff, ft + "/")) return "";  // an ancestor folder of the same layer
  static const std::set<std::pair<std::string, std::string>> kSiblings = {
      {"host/replay", "host/trace"},
      {"host/fsworkload", "host/trace"},  // the MobiGen reader streams lines as the trace readers do
  };
  if (lf == "fs" && StartsWith(ft, "fs/vfs")) return "";
  if (kSiblings.count({ff, ft})) return "";
  if (test && lf == "host" && ft == "host/workload") return "";
  return "sibling include: " + ff + " may not include " + ft;
}

// A project path's file name without extensions ("fs/f2fs/cleaner.h" -> "cleaner").
std::string StemOf(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  return base.substr(0, base.find('.'));
}

// The F2FS model's managers (docs/DESIGN.md, "The F2FS model's
// managers"), ranked: a manager's files include only the headers of
// managers ranked below it, so state flows one way — the cleaner never
// reaches the I/O layer or the namespace, the I/O layer never the discard
// policy — and only the assembling F2fs (f2fs.h, f2fs_*.cc) sees them all.
// -1: not a manager (formats, configs, policy interfaces a manager uses).
// The manager a file belongs to: its stem, or for the implementations of a
// manager's interface (one file each) the interface's.
std::string F2fsManagerOf(const std::string& path) {
  static const std::map<std::string, std::string> kImplementationOf = {
      {"checkpoint_durability", "durability"}, {"journal_durability", "durability"}};
  const std::string stem = StemOf(path);
  auto it = kImplementationOf.find(stem);
  return it == kImplementationOf.end() ? stem : it->second;
}

int F2fsManagerRank(const std::string& path) {
  if (!StartsWith(path, "fs/f2fs/") || IsTestCode(path)) return -1;
  const std::string base = F2fsManagerOf(path);
  static const std::map<std::string, int> kRank = {
      // Tables: the SIT/SSA and logs, the NAT, node pages, the journal's log.
      {"segment_manager", 0}, {"nat_table", 0}, {"node_cache", 0}, {"journal", 0},
      // Over the tables: the in-memory inodes (each pins its inode page and
      // holds its dirty node list), pending discards, the CP pack,
      // durability modes (with their implementations), cleaning control.
      {"inode_table", 1}, {"discard_queue", 1}, {"checkpoint_writer", 1}, {"durability", 1}, {"cleaner", 1},
      // Block I/O, then what issues through it: the discard policy and the
      // node manager (NAT and node pages).
      {"io_manager", 2}, {"discard_manager", 3}, {"node_manager", 3},
      // The checkpoint (cp_rwsem, what a checkpoint writes and frees) and
      // the names (directories, path walks, iget), both over the nodes.
      // The page cache's data and dentry pages, also over the nodes.
      {"checkpoint_manager", 4}, {"namespace_manager", 4}, {"data_pages", 4},
      // The consistency checker: reads the tables only, through const
      // pointers; it can reach no I/O and no manager that changes state.
      {"fsck", 2},
      // fsync: node writes with marks or a checkpoint.
      {"fsync_manager", 5},
      // Over fsync: transactions (their commits ask fsync's checkpoint
      // checks) and the journal's commits (fsync's data-phase figures).
      {"tx_manager", 6}, {"journal_committer", 6},
      // The data path: reads, writes, truncation, a data page's write (its
      // journal record's CPU is the committer's).
      {"data_path", 7},
      // Mount-time recovery: orphans and roll-forward (it counts the
      // transactions it replays).
      {"recovery", 7}, {"journal_replay", 7},
      // The callers of the data path and the names, side by side: the
      // namespace calls (namei.c) and cleaning's migration (a data page's
      // write is the data path's; it makes no namespace call).
      {"namei", 8}, {"gc_migrator", 8}};
  auto it = kRank.find(base);
  if (it != kRank.end()) return it->second;
  if (base == "f2fs" || (StartsWith(base, "f2fs_") && base != "f2fs_config")) return 100;  // the assembly
  return -1;
}

// Why F2FS file `from` may not include F2FS header `target`, or "".
std::string F2fsManagerViolation(const std::string& from, const std::string& target) {
  const int rf = F2fsManagerRank(from), rt = F2fsManagerRank(target);
  if (rf < 0 || rt < 0 || rf == 100 || F2fsManagerOf(from) == F2fsManagerOf(target)) return "";
  if (rt == 100) {
    return "a manager includes the assembling F2fs (f2fs.h): it gets what it needs through its constructor and "
           "host interface";
  }
  if (rt >= rf) {
    return "F2FS manager " + F2fsManagerOf(from) + " may include only managers ranked below it, not " +
           F2fsManagerOf(target);
  }
  return "";
}

struct Finding {
  std::string file;
  int line;
  std::string target;
  std::string why;
};

std::vector<Finding> CheckTree(const stdfs::path& root) {
  std::vector<Finding> out;
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  for (const char* layer : {"sim", "flash", "ftl", "ssd", "fs", "host", "app", "tests"}) {
    if (!stdfs::exists(root / layer)) continue;
    for (const auto& e : stdfs::recursive_directory_iterator(root / layer)) {
      if (!e.is_regular_file()) continue;
      const std::string ext = e.path().extension().string();
      if (ext != ".h" && ext != ".cc") continue;
      const std::string rel = stdfs::relative(e.path(), root).generic_string();
      std::ifstream in(e.path());
      std::string text;
      int n = 0;
      while (std::getline(in, text)) {
        ++n;
        std::smatch m;
        if (!std::regex_search(text, m, kInclude)) continue;
        std::string why = Violation(rel, m[1]);
        if (why.empty()) why = F2fsManagerViolation(rel, m[1]);
        if (!why.empty()) out.push_back({rel, n, m[1], why});
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.file, a.line) < std::tie(b.file, b.line);
  });
  return out;
}

TEST(LayeringTest, SourceTreeFollowsTheDependencyRule) {
  const stdfs::path root = FLASHSTACK_SOURCE_DIR;
  ASSERT_TRUE(stdfs::exists(root / "sim" / "time.h"));
  const std::vector<Finding> found = CheckTree(root);
  for (const Finding& f : found) ADD_FAILURE() << f.file << ":" << f.line << ": \"" << f.target << "\": " << f.why;
  EXPECT_TRUE(found.empty());
}

TEST(LayeringTest, RuleRejectsUpwardSidewaysAndAroundIncludes) {
  EXPECT_NE(Violation("sim/config.cc", "ftl/ftl.h"), "");             // upward
  EXPECT_NE(Violation("ssd/ssd.h", "fs/file_system.h"), "");          // upward
  EXPECT_NE(Violation("fs/f2fs/f2fs.cc", "fs/memfs/mem_fs.h"), "");   // sibling file systems
  EXPECT_NE(Violation("fs/f2fs/f2fs.cc", "ftl/ftl.h"), "");           // around the device interface
  EXPECT_NE(Violation("host/fsworkload/x.cc", "fs/f2fs/f2fs.h"), "");  // a concrete FS from host
  EXPECT_NE(Violation("ftl/page_ftl.cc", "tests/fakes/fake_flash_array.h"), "");  // fakes only in tests
  EXPECT_NE(Violation("app/experiment.cc", "tests/fakes/fake_ftl.h"), "");
  EXPECT_EQ(Violation("ftl/page_ftl_test.cc", "tests/fakes/fake_flash_array.h"), "");
  EXPECT_EQ(Violation("fs/f2fs/f2fs.cc", "ssd/block_device.h"), "");
  EXPECT_EQ(Violation("fs/f2fs/f2fs.cc", "fs/vfs/page_cache.h"), "");
  EXPECT_EQ(Violation("ssd/ssd.h", "ftl/ftl.h"), "");
  EXPECT_EQ(Violation("host/replay/x.cc", "host/trace/block_record.h"), "");
  EXPECT_EQ(Violation("app/experiment.cc", "fs/f2fs/f2fs.h"), "");
  EXPECT_EQ(Violation("tests/presets_test.cc", "app/experiment.h"), "");
}

TEST(LayeringTest, F2fsManagersUseOnlyManagersBelowThem) {
  // Downward: allowed.
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/discard_manager.h", "fs/f2fs/io_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/io_manager.cc", "fs/f2fs/segment_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/cleaner.h", "fs/f2fs/segment_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/io_manager.cc", "fs/f2fs/io_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/f2fs.h", "fs/f2fs/discard_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/f2fs_gc.cc", "fs/f2fs/f2fs.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/io_manager.h", "fs/f2fs/f2fs_config.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/journal_durability.cc", "fs/f2fs/durability.h"), "");
  // Upward, sideways, or into the assembly: refused.
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/io_manager.h", "fs/f2fs/discard_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.cc", "fs/f2fs/io_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.h", "fs/f2fs/checkpoint_writer.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/segment_manager.cc", "fs/f2fs/nat_table.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/inode_table.h", "fs/f2fs/io_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/inode_table.h", "fs/f2fs/node_cache.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/discard_manager.cc", "fs/f2fs/f2fs.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/checkpoint_manager.h", "fs/f2fs/discard_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/fsck.cc", "fs/f2fs/io_manager.h"), "");       // the checker does no I/O
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.cc", "fs/f2fs/tx_manager.h"), "");    // shadow GC via CleanerHost
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/checkpoint_manager.cc", "fs/f2fs/journal_committer.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/tx_manager.h", "fs/f2fs/journal_committer.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/tx_manager.cc", "fs/f2fs/fsync_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/tx_manager.cc", "fs/f2fs/data_path.h"), "");  // through TxManager::Host
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/node_manager.cc", "fs/f2fs/data_path.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/data_path.cc", "fs/f2fs/journal_committer.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/recovery.cc", "fs/f2fs/data_path.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/recovery.cc", "fs/f2fs/namespace_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/namespace_manager.cc", "fs/f2fs/namei.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/journal.cc", "fs/f2fs/journal_replay.h"), "");  // the log knows no replay
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/journal_replay.cc", "fs/f2fs/journal.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/namei.cc", "fs/f2fs/gc_migrator.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.cc", "fs/f2fs/gc_migrator.h"), "");      // via CleanerHost
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/gc_migrator.cc", "fs/f2fs/namei.h"), "");        // no namespace calls
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/gc_migrator.cc", "fs/f2fs/data_path.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/io_manager.h", "fs/f2fs/checkpoint_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.cc", "fs/f2fs/checkpoint_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/checkpoint_manager.h", "fs/f2fs/node_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/node_manager.cc", "fs/f2fs/checkpoint_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/node_manager.h", "fs/f2fs/discard_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/namespace_manager.cc", "fs/f2fs/node_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.cc", "fs/f2fs/namespace_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/checkpoint_manager.cc", "fs/f2fs/namespace_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/node_manager.h", "fs/f2fs/namespace_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/fsync_manager.cc", "fs/f2fs/checkpoint_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/checkpoint_manager.h", "fs/f2fs/fsync_manager.h"), "");
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/data_pages.h", "fs/f2fs/node_manager.h"), "");
  EXPECT_NE(F2fsManagerViolation("fs/f2fs/cleaner.h", "fs/f2fs/data_pages.h"), "");
  // Tests may include anything of their folder.
  EXPECT_EQ(F2fsManagerViolation("fs/f2fs/cleaner_test.cc", "fs/f2fs/f2fs.h"), "");
}

TEST(LayeringTest, CheckerFindsAnUpwardIncludeInATree) {
  const stdfs::path root = stdfs::path(::testing::TempDir()) / "layering_tree";
  stdfs::remove_all(root);
  stdfs::create_directories(root / "sim");
  stdfs::create_directories(root / "ftl");
  std::ofstream(root / "sim" / "time.h") << "#pragma once\n";
  std::ofstream(root / "ftl" / "ftl.h") << "#pragma once\n#include \"sim/time.h\"\n";
  EXPECT_TRUE(CheckTree(root).empty());
  std::ofstream(root / "sim" / "event_queue.h") << "#pragma once\n\n#include \"ftl/ftl.h\"\n";
  const std::vector<Finding> found = CheckTree(root);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].file, "sim/event_queue.h");
  EXPECT_EQ(found[0].line, 3);
  stdfs::remove_all(root);
}

}  // namespace
