// The ext4 model: format, mount, lifecycle and the namespace operations.
#include <algorithm>
#include <deque>

#include <fmt/format.h>
#include <glog/logging.h>

#include "fs/ext4/ext4_internal.h"

namespace fs::ext4 {
namespace {

bool Writable(uint32_t flags) { return (flags & (kWrOnly | kRdWr)) != 0; }

void SetBit(std::vector<uint64_t>& w, uint32_t i) { w[i / 64] |= uint64_t{1} << (i % 64); }

}  // namespace

// ---------------------------------------------------------------------------
// mke2fs

sim::Status Ext4::Format(const Ext4Config& cfg, uint64_t volume_bytes, Image* image) {
  FS_RETURN_IF_ERROR(cfg.Validate());
  sim::Result<Layout> lr = ComputeLayout(volume_bytes / kBlockSize, cfg.mkfs.blocks_per_group,
                                         cfg.mkfs.inode_ratio.value, cfg.mkfs.inode_size, cfg.mkfs.flex_bg,
                                         static_cast<uint32_t>(cfg.mkfs.journal_size.value / kBlockSize));
  if (!lr.ok()) return sim::Status::InvalidInput("fs.volume: cannot be formatted as ext4: " + lr.status().message());
  const Layout& l = *lr;
  CHECK_LE(l.blocks, image->blocks());
  const uint32_t words = (l.blocks_per_group + 63) / 64;
  std::vector<std::vector<uint64_t>> bb(l.groups, std::vector<uint64_t>(words, 0));
  std::vector<GroupDesc> gd(l.groups);
  for (auto [s, n] : l.MetadataRuns())
    for (uint32_t b = s; b < s + n; ++b) SetBit(bb[l.GroupOf(b)], b % l.blocks_per_group);
  // Blocks past the end of a short last group are marked in use.
  const uint32_t last = l.groups - 1;
  for (uint32_t i = l.GroupBlocks(last); i < words * 64; ++i) SetBit(bb[last], i);
  // The root directory's block: the first free block of its flex group's
  // first group (ext4_inode_to_goal_block for a directory).
  uint32_t root_blk = 0;
  for (uint32_t b = 0; b < l.blocks; ++b) {
    const auto& w = bb[l.GroupOf(b)];
    const uint32_t i = b % l.blocks_per_group;
    if (!(w[i / 64] >> (i % 64) & 1)) {
      root_blk = b;
      break;
    }
  }
  SetBit(bb[l.GroupOf(root_blk)], root_blk % l.blocks_per_group);
  for (uint32_t g = 0; g < l.groups; ++g) {
    uint32_t used = 0;
    for (uint64_t w : bb[g]) used += static_cast<uint32_t>(__builtin_popcountll(w));
    gd[g].free_blocks = words * 64 - used;
    gd[g].free_inodes = l.inodes_per_group;
    gd[g].itable_unused = l.inodes_per_group;
  }
  const uint32_t iwords = (l.inodes_per_group + 63) / 64;
  std::vector<std::vector<uint64_t>> ib(l.groups, std::vector<uint64_t>(iwords, 0));
  for (uint32_t ino = 1; ino < kFirstIno; ++ino) SetBit(ib[0], ino - 1);
  gd[0].free_inodes -= kFirstIno - 1;
  gd[0].itable_unused = l.inodes_per_group - (kFirstIno - 1);
  gd[0].used_dirs = 1;
  for (uint32_t g = 0; g < l.groups; ++g) {
    auto bm = std::make_shared<BitmapBlock>();
    bm->words = bb[g];
    image->WriteDurable(BlockNo{l.block_bitmap[g]}, bm);
    auto im = std::make_shared<BitmapBlock>();
    im->words = ib[g];
    image->WriteDurable(BlockNo{l.inode_bitmap[g]}, im);
  }
  for (uint32_t k = 0; k < l.gdt_blocks; ++k) {
    auto gb = std::make_shared<GroupDescBlock>();
    for (uint32_t g = k * kDescsPerBlock; g < std::min(l.groups, (k + 1) * kDescsPerBlock); ++g)
      gb->descs.push_back(gd[g]);
    image->WriteDurable(BlockNo{1 + k}, gb);
  }
  // Inode-table blocks holding the reserved inodes and the root.
  const uint32_t ipb = l.InodesPerBlock();
  for (uint32_t blk = l.inode_table[0]; blk <= l.InodeBlock(kFirstIno - 1); ++blk) {
    auto it = std::make_shared<InodeTableBlock>();
    it->inodes.resize(ipb);
    if (blk == l.InodeBlock(kRootIno)) {
      DiskInode& r = it->inodes[(kRootIno - 1) % ipb];
      r.mode = 2;
      r.links = 2;
      r.size = kBlockSize;
      r.root = {Extent{0, root_blk, 1}};
      r.parent = kRootIno;
    }
    image->WriteDurable(BlockNo{blk}, it);
  }
  auto root = std::make_shared<DirBlock>();
  image->WriteDurable(BlockNo{root_blk}, root);
  auto sb = std::make_shared<SuperBlock>();
  sb->layout = l;
  sb->hash_seed = 0x5eed0000u ^ l.blocks;
  image->WriteDurable(BlockNo{0}, sb);
  image->WriteDurable(BlockNo{l.journal_start}, std::make_shared<JournalSuperBlock>());
  return sim::Status::Ok();
}

// ---------------------------------------------------------------------------
// Lifecycle

Ext4::Ext4(const Ext4Config& cfg, Env env, Layout layout)
    : cfg_(cfg),
      q_(env.events),
      dev_(env.device),
      image_(env.image),
      stat_group_(env.stats),
      device_wa_(std::move(env.device_write_amplification)),
      layout_(std::move(layout)),
      rng_(1, "ext4.orlov"),
      cache_(this, std::max<uint64_t>(64, cfg.page_cache.memory.value / kBlockSize)),
      wb_(env.events, cfg_.page_cache, &cache_),
      io_wq_(env.events),
      commit_wq_(env.events),
      commit_timer_(env.events),
      space_wq_(env.events),
      updates_wq_(env.events),
      locked_wq_(env.events),
      threads_(env.events) {
  cpu_ = env.cpu;
  i_rwsem_class_ = std::make_unique<vfs::LockClass>(
      "i_rwsem", vfs::LockClass::Kind::kSleeping, cpu_,
      env.stats.prefix().empty() ? env.stats : env.stats.Group("locks").Group("i_rwsem"));
  for (auto& l : locks_) l = std::make_unique<vfs::RwLock>(env.events, i_rwsem_class_.get());
  if (cpu_ != nullptr) {
    owner_jbd2_ = cpu_->Owner("ext4.jbd2");
    owner_flusher_ = cpu_->Owner("ext4.flusher");
  }
}

Ext4::~Ext4() {
  threads_.DestroyAll();
  // Pages are owned by inodes and the metadata map; detach nothing: the
  // cache goes with them.
}

sim::Task<sim::Result<std::unique_ptr<Ext4>>> Ext4::Mount(const Ext4Config& cfg, Env env) {
  const SuperBlock* sb = As<SuperBlock>(env.image->Read(BlockNo{0}));
  if (sb == nullptr) co_return sim::Status::InvalidInput("ext4: no superblock (not formatted)");
  std::unique_ptr<Ext4> fs(new Ext4(cfg, env, sb->layout));
  fs->RegisterStats();
  // The superblock and the group descriptors are read at mount and stay.
  std::vector<uint32_t> first;
  for (uint32_t b = 0; b <= fs->layout_.gdt_blocks; ++b) first.push_back(b);
  co_await fs->ReadMeta(first);
  sim::Status st = co_await fs->Recover();
  if (!st.ok()) co_return st;
  st = fs->Load();
  if (!st.ok()) co_return st;
  ++fs->mounts_;
  fs->Dirty(0);
  fs->ApplyOrphans();
  fs->threads_.Spawn(fs->CommitThread(), fs->owner_jbd2_);
  fs->threads_.Spawn(fs->wb_.Run(fs.get()), fs->owner_flusher_);
  co_return std::move(fs);
}

sim::Task<void> Ext4::Unmount() {
  co_await Sync();
  // Everything committed goes home; the log is then empty.
  co_await Checkpoint(layout_.journal_blocks);
  stopping_ = true;
  commit_timer_.Kick();
  wb_.Kick();
  while (!commit_thread_done_ && !dead_) co_await commit_wq_.Wait();
  while (ios_in_flight_ > 0 && !dead_) co_await io_wq_.Wait();
}

void Ext4::Kill() {
  dead_ = true;
  wb_.Kill();
  io_wq_.Kill();
  commit_wq_.Kill();
  space_wq_.Kill();
  updates_wq_.Kill();
  locked_wq_.Kill();
  commit_timer_.Cancel();
  for (auto& l : locks_) l->Kill();
}

sim::CpuBurst Ext4::Cpu(sim::SimTime d) { return sim::CpuBurst(cpu_, q_, d); }

sim::SimTime Ext4::Stamp() const {
  const int64_t g = cfg_.timestamp_granularity.ns();
  const int64_t now = q_->now().ns();
  return g > 0 ? sim::SimTime::FromNs(now / g * g) : q_->now();
}

void Ext4::UpdateTimes(Inode* in) {
  const sim::SimTime t = Stamp();
  if (in->mtime == t && in->ctime == t) return;
  in->mtime = in->ctime = t;
  DirtyInode(in, false);
}

// relatime_need_update, atime_needs_update: the access time moves when it
// is not after the modification or change time, or a day old (relatime),
// or whenever the coarse clock moved (strictatime); the inode is logged.
void Ext4::TouchAtime(Inode* in) {
  if (cfg_.atime == "noatime") return;
  const sim::SimTime t = Stamp();
  if (cfg_.atime == "relatime" && in->atime > in->mtime && in->atime > in->ctime &&
      t - in->atime < sim::Sec(24 * 3600))
    return;
  if (in->atime == t) return;
  in->atime = t;
  DirtyInode(in, false);
}

void Ext4::AllocDaBlocks(Inode* in) {
  if (in->delalloc_pages > 0) WritebackPages(in, 0);
}

uint64_t Ext4::free_blocks() const {
  uint64_t n = 0;
  for (const GroupDesc& g : gd_) n += g.free_blocks;
  return n;
}

// Free on disk, less what is held: freed by a transaction not committed
// yet, or preallocated to a file or the locality group.
uint64_t Ext4::AvailBlocks() const { return free_blocks() - busy_blocks_; }

// ---------------------------------------------------------------------------
// Names

uint32_t Ext4::Hash(std::string_view name) const {
  uint32_t h = 2166136261u ^ hash_seed_;
  for (unsigned char c : name) {
    h ^= c;
    h *= 16777619u;
  }
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  return h & ~1u;  // the low bit flags continued hash collisions in ext4
}

Ext4::Lookup Ext4::Resolve(std::string_view path) const {
  Lookup r;
  const vfs::ParsedPath pp = vfs::ParsePath(path);
  if (pp.err != Errno::kOk) {
    r.err = pp.err;
    return r;
  }
  Inode* cur = inodes_.at(kRootIno).get();
  for (const std::string_view comp : pp.dirs) {
    if (vfs::CheckName(comp) != Errno::kOk) {
      r.err = Errno::kNameTooLong;
      return r;
    }
    if (comp == "..") {
      cur = inodes_.at(cur->parent).get();
      continue;
    }
    auto it = cur->children.find(comp);
    if (it == cur->children.end()) {
      r.err = Errno::kNoEnt;
      return r;
    }
    Inode* next = inodes_.at(it->second.ino).get();
    if (!next->is_dir) {
      r.err = Errno::kNotDir;
      return r;
    }
    cur = next;
  }
  r.dir_required = pp.dir_required;
  if (vfs::CheckName(pp.last) != Errno::kOk) {
    r.err = Errno::kNameTooLong;
    return r;
  }
  if (pp.is_root) {
    r.node = inodes_.at(kRootIno).get();
    r.dot = true;
    return r;
  }
  r.parent = cur;
  r.name = pp.last;
  if (pp.last_is_dot()) {
    r.dot = true;
    r.node = pp.last == "." ? cur : inodes_.at(cur->parent).get();
    return r;
  }
  auto it = cur->children.find(pp.last);
  r.node = it == cur->children.end() ? nullptr : inodes_.at(it->second.ino).get();
  return r;
}

// The blocks a lookup of `name` in `dir` reads: the htree root and interior
// node and the leaf the hash leads to, or every block of a linear
// directory up to the one holding the name (all of them when it is absent).
std::vector<uint32_t> Ext4::LookupBlocks(const Inode* dir, std::string_view name) const {
  std::vector<uint32_t> out;
  if (dir->dblocks.empty()) return out;
  if (dir->indexed) {
    out.push_back(MapBlock(dir, 0));
    const uint32_t h = Hash(name);
    auto it = std::upper_bound(dir->dx.begin(), dir->dx.end(), std::make_pair(h, UINT32_MAX));
    const size_t pos = it == dir->dx.begin() ? 0 : static_cast<size_t>(it - dir->dx.begin()) - 1;
    if (!dir->dx_nodes.empty()) out.push_back(MapBlock(dir, dir->dx_nodes[std::min(pos / kDxNodeEntries,
                                                                                        dir->dx_nodes.size() - 1)]));
    out.push_back(MapBlock(dir, LeafFor(dir, h)));
    return out;
  }
  auto c = dir->children.find(name);
  const uint32_t upto = c != dir->children.end() ? c->second.lblk : static_cast<uint32_t>(dir->dblocks.size() - 1);
  for (uint32_t b = 0; b <= upto; ++b) out.push_back(MapBlock(dir, b));
  return out;
}

// One step of a path walk from directory *cur: the blocks it reads (the
// directory's inode and extent blocks, the lookup's directory blocks, the
// found inode's block for the last component); *cur becomes the found
// directory (0 when the walk ends).
std::vector<uint32_t> Ext4::WarmStep(uint32_t* cur, std::string_view comp, bool last) const {
  std::vector<uint32_t> blocks;
  auto it = inodes_.find(*cur);
  if (it == inodes_.end() || !it->second->is_dir) {
    *cur = 0;
    return blocks;
  }
  const Inode* d = it->second.get();
  blocks.push_back(layout_.InodeBlock(d->ino));
  for (uint32_t b : ExtentBlocksFor(d)) blocks.push_back(b);
  for (uint32_t b : LookupBlocks(d, comp)) blocks.push_back(b);
  auto c = d->children.find(comp);
  if (c != d->children.end()) {
    if (last) blocks.push_back(layout_.InodeBlock(c->second.ino));
    *cur = c->second.ino;
  } else if (comp == "..") {
    *cur = d->parent;
  } else {
    *cur = 0;
  }
  return blocks;
}

sim::Task<void> Ext4::WarmPath(std::string_view path) {
  const vfs::ParsedPath pp = vfs::ParsePath(path);
  if (pp.err != Errno::kOk) co_return;
  uint32_t cur = kRootIno;
  for (std::string_view comp : pp.dirs) {
    if (cur == 0 || dead_) co_return;
    std::vector<uint32_t> blocks = WarmStep(&cur, comp, false);
    co_await ReadMeta(std::move(blocks));
  }
  if (cur == 0 || dead_) co_return;
  std::vector<uint32_t> blocks;
  if (pp.is_root || pp.last_is_dot()) {
    blocks.push_back(layout_.InodeBlock(cur));
  } else {
    blocks = WarmStep(&cur, pp.last, true);
  }
  co_await ReadMeta(std::move(blocks));
  co_await Cpu(cfg_.cpu.dir_block_search * static_cast<int64_t>(pp.dirs.size() + 1));
}

Ext4::OpenFile* Ext4::FileOf(Fd fd) { return fds_.Get(fd); }

vfs::RwLock& Ext4::ILock(uint32_t ino) { return *locks_[ino % locks_.size()]; }

// i_rwsem of what a namespace change touches — the parent directories of
// the paths and the inodes they name — taken exclusive in stripe order.
sim::Task<Ext4::Change> Ext4::LockForChange(std::string_view a, std::string_view b) {
  std::vector<size_t> stripes;
  for (std::string_view p : {a, b}) {
    if (p.empty()) continue;
    const Lookup l = Resolve(p);
    if (l.parent) stripes.push_back(l.parent->ino % locks_.size());
    if (l.node && !l.dot) stripes.push_back(l.node->ino % locks_.size());
  }
  std::sort(stripes.begin(), stripes.end());
  stripes.erase(std::unique(stripes.begin(), stripes.end()), stripes.end());
  Change c;
  for (size_t s : stripes) {
    co_await locks_[s]->LockExclusive();
    c.locks.emplace_back(locks_[s].get());
  }
  // The file system's operation (ext4_create, ext4_unlink, ...) starts its
  // handle, then does its work under it.
  c.handle = co_await StartHandle();
  co_await Cpu(cfg_.cpu.namespace_op);
  co_return c;
}

FileStat Ext4::StatOf(const Inode& n) const {
  FileStat s;
  s.ino = n.ino;
  s.is_dir = n.is_dir;
  s.size = n.is_dir ? uint64_t{n.dblocks.size()} * kBlockSize : n.size;
  uint64_t blocks = n.tree.size();
  for (const auto& [l, e] : n.ext) blocks += e.len;
  s.blocks = blocks + (n.is_dir ? 0 : n.delalloc_pages);
  s.nlink = n.is_dir ? 2 + n.subdirs : n.names;
  s.mtime = n.mtime;
  return s;
}

// ---------------------------------------------------------------------------
// Directory blocks

uint32_t Ext4::LeafFor(const Inode* dir, uint32_t hash) const {
  auto it = std::upper_bound(dir->dx.begin(), dir->dx.end(), std::make_pair(hash, UINT32_MAX));
  CHECK(it != dir->dx.begin());
  return std::prev(it)->second;
}

// ext4_append: one more block at the end of the directory.
uint32_t Ext4::DirAppendBlock(Inode* dir) {
  const uint32_t lblk = static_cast<uint32_t>(dir->dblocks.size());
  uint32_t goal = InodeGoal(dir);
  if (lblk > 0) goal = MapBlock(dir, lblk - 1) + 1;
  const uint32_t pblk = AllocMeta(dir, goal);
  InsertExtent(dir, lblk, pblk, 1);
  dir->dblocks.emplace_back();
  dyn_meta_[pblk] = MetaRef{dir->ino, 0, lblk};
  MakeResident(pblk);
  Dirty(pblk);
  DirtyInode(dir, true);
  return lblk;
}

// make_indexed_dir: the full single block becomes the htree root; its
// entries move to two leaves split by hash.
void Ext4::MakeIndexed(Inode* dir) {
  CHECK(!dir->indexed && dir->dblocks.size() == 1);
  std::vector<std::string> names = std::move(dir->dblocks[0].names);
  dir->dblocks[0] = Inode::Leaf{};
  const uint32_t a = DirAppendBlock(dir);
  dir->indexed = true;
  dir->dx = {{0, a}};
  for (std::string& n : names) {
    dir->dblocks[a].used += DirRecLen(n.size());
    dir->children.find(n)->second.lblk = a;
    dir->dblocks[a].names.push_back(std::move(n));
  }
  Dirty(MapBlock(dir, 0));
  Dirty(MapBlock(dir, a));
  SplitLeaf(dir, a);
}

// do_split: the upper half (by hash) of a full leaf moves to a new block.
void Ext4::SplitLeaf(Inode* dir, uint32_t lblk) {
  Inode::Leaf& leaf = dir->dblocks[lblk];
  std::vector<std::pair<uint32_t, std::string>> byhash;
  for (std::string& n : leaf.names) byhash.emplace_back(Hash(n), std::move(n));
  std::sort(byhash.begin(), byhash.end());
  size_t mid = byhash.size() / 2;
  // Names of one hash stay together.
  while (mid < byhash.size() && mid > 0 && byhash[mid].first == byhash[mid - 1].first) ++mid;
  if (mid == byhash.size()) {
    mid = byhash.size() / 2;
    while (mid > 0 && byhash[mid].first == byhash[mid - 1].first) --mid;
  }
  leaf.names.clear();
  leaf.used = 0;
  if (mid == 0) {  // one hash only: it cannot split (the leaf overflows)
    for (auto& [h, n] : byhash) {
      leaf.used += DirRecLen(n.size());
      leaf.names.push_back(std::move(n));
    }
    return;
  }
  const uint32_t nb = DirAppendBlock(dir);
  Inode::Leaf& low = dir->dblocks[lblk];
  Inode::Leaf& high = dir->dblocks[nb];
  for (size_t i = 0; i < byhash.size(); ++i) {
    Inode::Leaf& to = i < mid ? low : high;
    to.used += DirRecLen(byhash[i].second.size());
    dir->children.find(byhash[i].second)->second.lblk = i < mid ? lblk : nb;
    to.names.push_back(std::move(byhash[i].second));
  }
  dir->dx.emplace_back(byhash[mid].first, nb);
  std::sort(dir->dx.begin(), dir->dx.end());
  // Interior nodes once the root is full.
  const size_t need = dir->dx.size() > kDxRootEntries ? (dir->dx.size() + kDxNodeEntries - 1) / kDxNodeEntries : 0;
  while (dir->dx_nodes.size() < need) dir->dx_nodes.push_back(DirAppendBlock(dir));
  Dirty(MapBlock(dir, lblk));
  Dirty(MapBlock(dir, nb));
  Dirty(MapBlock(dir, 0));
  for (uint32_t n : dir->dx_nodes) Dirty(MapBlock(dir, n));
}

FsStatus Ext4::AddEntry(Inode* dir, std::string_view name, uint32_t ino) {
  const uint32_t rec = DirRecLen(name.size());
  uint32_t lblk = UINT32_MAX;
  if (dir->indexed) {
    lblk = LeafFor(dir, Hash(name));
    if (dir->dblocks[lblk].used + rec > kDirLeafBytes) {
      SplitLeaf(dir, lblk);
      lblk = LeafFor(dir, Hash(name));
    }
  } else {
    // Block 0 holds "." and ".." (12 bytes each).
    const uint32_t room0 = kDirLeafBytes - 24;
    if (dir->dblocks[0].used + rec <= room0) {
      lblk = 0;
    } else {
      MakeIndexed(dir);
      lblk = LeafFor(dir, Hash(name));
      if (dir->dblocks[lblk].used + rec > kDirLeafBytes) {
        SplitLeaf(dir, lblk);
        lblk = LeafFor(dir, Hash(name));
      }
    }
  }
  Inode::Leaf& leaf = dir->dblocks[lblk];
  leaf.used += rec;
  leaf.names.emplace_back(name);
  dir->children.emplace(std::string(name), Inode::Child{ino, lblk});
  Dirty(MapBlock(dir, lblk));
  dir->mtime = dir->ctime = Stamp();
  DirtyInode(dir, false);
  return FsStatus{true, Errno::kOk};
}

void Ext4::RemoveEntry(Inode* dir, std::string_view name) {
  auto it = dir->children.find(name);
  CHECK(it != dir->children.end());
  Inode::Leaf& leaf = dir->dblocks[it->second.lblk];
  auto n = std::find(leaf.names.begin(), leaf.names.end(), name);
  CHECK(n != leaf.names.end());
  leaf.names.erase(n);
  leaf.used -= DirRecLen(name.size());
  Dirty(MapBlock(dir, it->second.lblk));
  dir->children.erase(it);
  dir->mtime = dir->ctime = Stamp();
  DirtyInode(dir, false);
}

// ---------------------------------------------------------------------------
// Inodes

Ext4::Inode* Ext4::NewInode(bool is_dir, Inode* parent) {
  const uint32_t ino = AllocInodeNumber(is_dir, parent);
  if (ino == 0) return nullptr;
  auto n = std::make_unique<Inode>();
  n->ino = ino;
  n->gen = next_gen_++;
  n->is_dir = is_dir;
  n->group = layout_.InodeGroup(ino);
  n->mtime = n->ctime = n->atime = Stamp();
  n->parent = is_dir ? parent->ino : 0;
  Inode* p = n.get();
  inodes_[ino] = std::move(n);
  if (is_dir) {
    DirAppendBlock(p);
    p->size = kBlockSize;
  }
  DirtyInode(p, true);
  return p;
}

void Ext4::DropName(Inode* n) {
  if (n->is_dir) {
    n->names = 0;
  } else {
    --n->names;
  }
  n->ctime = Stamp();
  MaybeFreeInode(n);
}

void Ext4::MaybeFreeInode(Inode* n) {
  const bool linked = n->is_dir ? n->names > 0 || n->ino == kRootIno : n->names > 0;
  if (linked) {
    DirtyInode(n, false);
    return;
  }
  if (n->open > 0) {
    // Unlinked while open: on the orphan list until the last close.
    if (orphans_.insert(n->ino).second) Dirty(0);
    DirtyInode(n, false);
    return;
  }
  // ext4_orphan_add at the unlink, ext4_orphan_del at the eviction: the
  // superblock's s_last_orphan changes (no orphan_file feature: mke2fs's
  // default features).
  Dirty(0);
  FreeInode(n);
}

void Ext4::FreeInode(Inode* n) {
  if (orphans_.erase(n->ino)) Dirty(0);
  // Pages go first; their writes in flight finish as zombies.
  for (const uint64_t idx : n->pages.Indices()) {
    std::unique_ptr<DataPage> p = n->pages.Take(idx);
    if (p->dirty) wb_.FileDataCleaned(&n->wb, --n->dirty_pages);
    if (p->delalloc) {
      --n->delalloc_pages;
      --reserved_blocks_;
    }
    cache_.Detach(std::move(p));
  }
  DropInodePrealloc(n);
  FreeExtentsFrom(n, 0);
  for (uint32_t b : n->tree) {
    dyn_meta_.erase(b);
    FreeBlocks(b, 1, true);
  }
  n->tree.clear();
  const uint32_t g = layout_.InodeGroup(n->ino);
  const uint32_t idx = (n->ino - 1) % layout_.inodes_per_group;
  ibits_[g][idx / 64] &= ~(uint64_t{1} << (idx % 64));
  ++gd_[g].free_inodes;
  if (n->is_dir) --gd_[g].used_dirs;
  DirtyGroup(g, false, true);
  n->freed = true;
  Dirty(layout_.InodeBlock(n->ino));
  inodes_.erase(n->ino);
}

// ---------------------------------------------------------------------------
// open / close

sim::Task<FsResult<Fd>> Ext4::DoOpen(std::string_view path, uint32_t flags) {
  using R = FsResult<Fd>;
  if ((flags & kWrOnly) && (flags & kRdWr)) co_return R{0, Errno::kInval};
  if ((flags & kCreat) && (flags & kDirectory)) co_return R{0, Errno::kInval};
  co_await WarmPath(path);
  if (dead_) co_return R{0, Errno::kIo};
  Lookup r = Resolve(path);
  Change held;
  if (r.err == Errno::kOk && r.node == nullptr && (flags & kCreat)) {
    held = co_await LockForChange(path, {});
    if (dead_) co_return R{0, Errno::kIo};
    r = Resolve(path);
  }
  if (r.err != Errno::kOk) co_return R{0, r.err};
  if ((flags & kCreat) && r.dir_required && !r.dot) co_return R{0, Errno::kIsDir};
  Inode* node = r.node;
  if (node == nullptr) {
    if (!(flags & kCreat)) co_return R{0, Errno::kNoEnt};
    if (AvailBlocks() < reserved_blocks_ + 4) co_return R{0, Errno::kNoSpc};
    node = NewInode(false, r.parent);
    if (node == nullptr) co_return R{0, Errno::kNoSpc};
    node->names = 1;
    AddEntry(r.parent, r.name, node->ino);
    const std::vector<uint32_t> touched = {layout_.inode_bitmap[layout_.InodeGroup(node->ino)]};
    ++node->open;
    const Fd fd = fds_.Open(OpenFile{node->ino, flags, 0});
    co_await ReadMeta(touched);
    co_return R{fd, Errno::kOk};
  }
  if ((flags & kCreat) && (flags & kExcl)) co_return R{0, Errno::kExist};
  if (node->is_dir) {
    if (Writable(flags) || (flags & (kCreat | kTrunc))) co_return R{0, Errno::kIsDir};
  } else {
    if (r.dir_required || (flags & kDirectory)) co_return R{0, Errno::kNotDir};
  }
  ++node->open;
  const Fd fd = fds_.Open(OpenFile{node->ino, flags, 0});
  // handle_truncate: O_TRUNC truncates (and stamps) an existing file even
  // when it is empty.
  if (!node->is_dir && (flags & kTrunc) && Writable(flags)) {
    held.handle.Stop();  // DoTruncate starts its own (a handle nested in a locked one would wait forever)
    const Errno e = co_await DoTruncate(node, 0);
    CHECK(e == Errno::kOk || dead_);
  }
  co_return R{fd, Errno::kOk};
}

sim::Task<FsResult<Fd>> Ext4::Open(std::string_view path, uint32_t flags) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kOpen, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_return co_await DoOpen(path, flags);
}

sim::Task<FsStatus> Ext4::Close(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kClose, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsStatus{false, Errno::kBadF};
  const uint32_t ino = f->ino;
  const bool wrote = Writable(f->flags);
  fds_.Close(fd);
  auto it = inodes_.find(ino);
  if (it == inodes_.end()) co_return FsStatus{true, Errno::kOk};
  Inode* n = it->second.get();
  --n->open;
  // ext4_release_file: a file truncated to 0 writes its delayed blocks at
  // close (auto_da_alloc).
  if (n->da_alloc_close) {
    n->da_alloc_close = false;
    AllocDaBlocks(n);
  }
  // ext4_release_file: the last writer's close drops the inode's
  // preallocation once no delayed block is left.
  if (wrote && n->open == 0 && n->delalloc_pages == 0) DropInodePrealloc(n);
  if (n->open == 0 && orphans_.count(ino)) FreeInode(n);
  co_return FsStatus{true, Errno::kOk};
}

// ---------------------------------------------------------------------------
// Namespace operations

sim::Task<FsResult<FileStat>> Ext4::Fstat(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFstat, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  OpenFile* f = FileOf(fd);
  if (f == nullptr) co_return FsResult<FileStat>{{}, Errno::kBadF};
  co_return FsResult<FileStat>{StatOf(*inodes_.at(f->ino)), Errno::kOk};
}

sim::Task<FsResult<FileStat>> Ext4::Stat(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kStat, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return FsResult<FileStat>{{}, l.err};
  if (l.node == nullptr) co_return FsResult<FileStat>{{}, Errno::kNoEnt};
  if (l.SlashOnFile()) co_return FsResult<FileStat>{{}, Errno::kNotDir};
  co_return FsResult<FileStat>{StatOf(*l.node), Errno::kOk};
}

sim::Task<FsStatus> Ext4::Unlink(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kUnlink, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  Change held = co_await LockForChange(path, {});
  if (dead_) co_return FsStatus{false, Errno::kIo};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return FsStatus{false, l.err};
  if (l.node == nullptr) co_return FsStatus{false, Errno::kNoEnt};
  if (l.node->is_dir) co_return FsStatus{false, Errno::kIsDir};
  if (l.SlashOnFile()) co_return FsStatus{false, Errno::kNotDir};
  RemoveEntry(l.parent, l.name);
  DropName(l.node);
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> Ext4::Mkdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kMkdir, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  Change held = co_await LockForChange(path, {});
  if (dead_) co_return FsStatus{false, Errno::kIo};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return FsStatus{false, l.err};
  if (l.node != nullptr) co_return FsStatus{false, Errno::kExist};
  if (AvailBlocks() < reserved_blocks_ + 4) co_return FsStatus{false, Errno::kNoSpc};
  Inode* d = NewInode(true, l.parent);
  if (d == nullptr) co_return FsStatus{false, Errno::kNoSpc};
  d->names = 1;
  AddEntry(l.parent, l.name, d->ino);
  ++l.parent->subdirs;
  const std::vector<uint32_t> touched = {layout_.inode_bitmap[layout_.InodeGroup(d->ino)]};
  co_await ReadMeta(touched);
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> Ext4::Rmdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRmdir, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  Change held = co_await LockForChange(path, {});
  if (dead_) co_return FsStatus{false, Errno::kIo};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return FsStatus{false, l.err};
  if (l.node == nullptr) co_return FsStatus{false, Errno::kNoEnt};
  if (!l.node->is_dir) co_return FsStatus{false, Errno::kNotDir};
  if (l.dot) co_return FsStatus{false, Errno::kInval};
  if (!l.node->children.empty()) co_return FsStatus{false, Errno::kNotEmpty};
  RemoveEntry(l.parent, l.name);
  --l.parent->subdirs;
  DropName(l.node);
  co_return FsStatus{true, Errno::kOk};
}

bool Ext4::IsAncestor(uint32_t a, uint32_t b) const {
  for (uint32_t x = b;;) {
    if (x == a) return true;
    const Inode* n = inodes_.at(x).get();
    if (n->parent == x) return false;
    x = n->parent;
  }
}

FsStatus Ext4::DoRename(std::string_view from, std::string_view to) {
  const Lookup s = Resolve(from);
  if (s.err != Errno::kOk) return FsStatus{false, s.err};
  const Lookup t = Resolve(to);
  if (t.err != Errno::kOk) return FsStatus{false, t.err};
  if (s.node == nullptr) return FsStatus{false, Errno::kNoEnt};
  if (s.dot || t.dot) return FsStatus{false, Errno::kInval};
  Inode* src = s.node;
  Inode* dst = t.node;
  if (!src->is_dir && (s.dir_required || t.dir_required)) return FsStatus{false, Errno::kNotDir};
  if (src->is_dir && IsAncestor(src->ino, t.parent->ino)) return FsStatus{false, Errno::kInval};
  if (dst != nullptr && dst->is_dir && IsAncestor(dst->ino, s.parent->ino)) return FsStatus{false, Errno::kNotEmpty};
  if (src == dst) return FsStatus{true, Errno::kOk};
  if (src->is_dir) {
    if (dst != nullptr && !dst->is_dir) return FsStatus{false, Errno::kNotDir};
    if (dst != nullptr && !dst->children.empty()) return FsStatus{false, Errno::kNotEmpty};
  } else if (dst != nullptr && dst->is_dir) {
    return FsStatus{false, Errno::kIsDir};
  }
  if (AvailBlocks() < reserved_blocks_ + 4) return FsStatus{false, Errno::kNoSpc};
  const std::string new_name(t.name);
  // ext4_rename: a file replacing another gets its delayed blocks written
  // at once (auto_da_alloc), so the new name does not point at an empty
  // file after a crash.
  if (dst != nullptr && !src->is_dir && cfg_.auto_da_alloc) AllocDaBlocks(src);
  if (dst != nullptr) {
    RemoveEntry(t.parent, new_name);
    if (dst->is_dir) --t.parent->subdirs;
    DropName(dst);
  }
  RemoveEntry(s.parent, s.name);
  AddEntry(t.parent, new_name, src->ino);
  if (src->is_dir) {
    --s.parent->subdirs;
    ++t.parent->subdirs;
    src->parent = t.parent->ino;
  }
  // ext4_rename: the moved inode's ctime changes (so an fsync of it
  // commits the rename).
  src->ctime = Stamp();
  DirtyInode(src, false);
  return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> Ext4::Rename(std::string_view from, std::string_view to) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRename, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(from);
  co_await WarmPath(to);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  Change held = co_await LockForChange(from, to);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  co_return DoRename(from, to);
}

sim::Task<FsStatus> Ext4::Link(std::string_view existing, std::string_view new_path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kLink, &dead_);
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(existing);
  co_await WarmPath(new_path);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  Change held = co_await LockForChange(existing, new_path);
  if (dead_) co_return FsStatus{false, Errno::kIo};
  const Lookup s = Resolve(existing);
  const Lookup t = s.err == Errno::kOk ? Resolve(new_path) : Lookup{};
  if (s.err != Errno::kOk) co_return FsStatus{false, s.err};
  if (s.node == nullptr) co_return FsStatus{false, Errno::kNoEnt};
  if (s.SlashOnFile()) co_return FsStatus{false, Errno::kNotDir};
  if (t.err != Errno::kOk) co_return FsStatus{false, t.err};
  if (t.node != nullptr || t.dot) co_return FsStatus{false, Errno::kExist};
  if (t.dir_required) co_return FsStatus{false, Errno::kNoEnt};
  if (s.node->is_dir) co_return FsStatus{false, Errno::kPerm};
  if (AvailBlocks() < reserved_blocks_ + 4) co_return FsStatus{false, Errno::kNoSpc};
  AddEntry(t.parent, t.name, s.node->ino);
  ++s.node->names;
  s.node->ctime = Stamp();
  DirtyInode(s.node, false);
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsResult<std::vector<std::string>>> Ext4::Readdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kReaddir, &dead_);
  using R = FsResult<std::vector<std::string>>;
  co_await Cpu(cfg_.cpu.syscall);
  co_await WarmPath(path);
  Lookup l = Resolve(path);
  if (l.err != Errno::kOk) co_return R{{}, l.err};
  if (l.node == nullptr) co_return R{{}, Errno::kNoEnt};
  if (!l.node->is_dir) co_return R{{}, Errno::kNotDir};
  const uint32_t ino = l.node->ino;
  TouchAtime(l.node);  // iterate_dir -> file_accessed
  std::vector<uint32_t> blocks;
  for (uint32_t b = 0; b < l.node->dblocks.size(); ++b) blocks.push_back(MapBlock(l.node, b));
  co_await ReadMeta(blocks);
  co_await Cpu(cfg_.cpu.dir_block_search * static_cast<int64_t>(blocks.size()));
  auto it = inodes_.find(ino);
  if (it == inodes_.end() || dead_) co_return R{{}, Errno::kNoEnt};
  const Inode* d = it->second.get();
  R r;
  r.value.reserve(d->children.size());
  if (d->indexed) {
    // ext4_dx_readdir: hash order.
    std::vector<std::pair<uint32_t, const std::string*>> v;
    for (const auto& [name, c] : d->children) v.emplace_back(Hash(name), &name);
    std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : *a.second < *b.second;
    });
    for (auto& [h, n] : v) r.value.push_back(*n);
  } else {
    for (const std::string& n : d->dblocks[0].names) r.value.push_back(n);
  }
  co_return r;
}

// ---------------------------------------------------------------------------
// Orphans (at mount)

void Ext4::ApplyOrphans() {
  std::vector<uint32_t> orphans(orphans_.begin(), orphans_.end());
  for (uint32_t ino : orphans) {
    auto it = inodes_.find(ino);
    if (it == inodes_.end()) {
      orphans_.erase(ino);
      continue;
    }
    FreeInode(it->second.get());
  }
  orphans_.clear();
}

}  // namespace fs::ext4
