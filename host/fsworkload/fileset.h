// Fileset: the model of one filebench fileset (its directory tree, file
// entries, leaf-directory entries and their states), as filebench's
// fileset.c builds and picks them.
//
// Population (at construction, from one Rng stream): the tree is grown as
// filebench does: mean depth = ln(entries + leafdirs) / ln(dirwidth); each
// directory draws its depth and width from gamma(dirgamma) with those
// means (fixed when dirgamma = 0), becomes a leaf when its depth reaches
// the drawn depth, and leaves hold files (or leaf directories); the root
// keeps adding subdirectories until every entry is placed. Names are
// 8-digit serials ("00000001"); the tree lives in "<path>/<name>". File
// sizes are gamma(size_gamma) with mean size_mean (fixed if size_gamma is
// 0). A "define file" fileset is a single file at "<path>/<name>".
//
// Picking (in rotation, as filebench without an index attribute): a pick
// of an existing / non-existing file (or leaf directory) takes the member
// of that set at or after the set's rotor (wrapping), moves the rotor past
// it, and skips entries that are busy (another thread is between its pick
// and the end of its call). A picked entry is busy until Unbusy(). No
// pick is possible (kNone) when the set is empty or all of it is busy.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/fsworkload/filebench_script.h"
#include "sim/index_set.h"
#include "sim/rng.h"

namespace host {

class Fileset {
 public:
  static constexpr int64_t kNone = -1;

  struct Dir {
    uint32_t parent;  // index in dirs(); the root is its own parent
    uint32_t serial;
  };
  struct File {
    uint32_t dir;
    uint32_t serial;
    uint64_t size = 0;      // bytes drawn at population (filebench fse_size)
    uint64_t cur_size = 0;  // bytes currently in the file, as this model knows them
    uint32_t open_count = 0;
    bool exists = false;
    bool busy = false;
  };
  struct LeafDir {
    uint32_t dir;
    uint32_t serial;
    bool exists = false;
    bool busy = false;
  };

  Fileset(const FilesetDef& def, sim::Rng rng);
  // Memory a fileset of `def` takes (its entries, their sets and, about,
  // its directories), known before it is populated.
  static uint64_t MemoryBytes(const FilesetDef& def);

  const FilesetDef& def() const { return def_; }
  const std::vector<Dir>& dirs() const { return dirs_; }
  size_t file_count() const { return files_.size(); }
  size_t leafdir_count() const { return leafdirs_.size(); }
  File& file(uint64_t i) { return files_[i]; }
  const File& file(uint64_t i) const { return files_[i]; }
  LeafDir& leafdir(uint64_t i) { return leafdirs_[i]; }
  uint64_t total_bytes() const { return total_bytes_; }
  uint64_t existing_files() const { return exist_files_.size(); }
  uint64_t existing_leafdirs() const { return exist_leafdirs_.size(); }

  // "<path>/<name>" (for a single file: the file's path).
  const std::string& root() const { return root_; }
  // Paths into `out` (reused; never shrinks).
  void DirPath(uint32_t dir, std::string* out) const;
  void FilePath(uint64_t file, std::string* out) const;
  void LeafDirPath(uint64_t leaf, std::string* out) const;

  // Picks; the entry returned is busy. `rotor` null = the shared rotor.
  int64_t PickFile(bool existing, uint64_t* rotor = nullptr);
  int64_t PickLeafDir(bool existing);
  int64_t PickDir();  // any directory, in rotation (not marked busy)

  // State changes (they clear busy).
  void SetFileExists(uint64_t i, bool exists);
  void SetLeafDirExists(uint64_t i, bool exists);
  void MarkBusy(uint64_t file) {
    if (!files_[file].busy) ++busy_files_;
    files_[file].busy = true;
  }
  void Unbusy(uint64_t file) {
    if (files_[file].busy) --busy_files_;
    files_[file].busy = false;
  }
  void UnbusyLeafDir(uint64_t leaf) {
    if (leafdirs_[leaf].busy) --busy_leafdirs_;
    leafdirs_[leaf].busy = false;
  }
  // Filebench waits (instead of failing a pick) while no entry of the kind
  // is idle at all.
  bool all_files_busy() const { return !files_.empty() && busy_files_ == files_.size(); }
  bool all_leafdirs_busy() const { return !leafdirs_.empty() && busy_leafdirs_ == leafdirs_.size(); }

 private:
  void PopulateSubdir(int64_t parent, uint32_t serial, double depth);
  void AppendSerial(uint32_t serial, std::string* out) const;

  FilesetDef def_;
  sim::Rng rng_;
  std::string root_;
  double mean_depth_ = 1;
  std::vector<Dir> dirs_;
  std::vector<File> files_;
  std::vector<LeafDir> leafdirs_;
  uint64_t total_bytes_ = 0;
  sim::IndexSet exist_files_, noex_files_;
  sim::IndexSet exist_leafdirs_, noex_leafdirs_;
  uint64_t file_exrotor_ = 0, file_nerotor_ = 0;
  uint64_t leaf_exrotor_ = 0, leaf_nerotor_ = 0;
  uint64_t dir_rotor_ = 0;
  uint64_t busy_files_ = 0;
  uint64_t busy_leafdirs_ = 0;
  mutable std::vector<uint32_t> chain_;  // DirPath scratch (reused, never shrinks)
};

}  // namespace host
