#include "flash/nand_array.h"

#include <algorithm>
#include <bit>
#include <string>

#include <fmt/format.h>
#include <glog/logging.h>

namespace flash {

namespace {

// Commands executed together on one die: a single command, or a
// multi-plane operation (one per plane).
struct Group {
  FlashCommand* cmd[kMaxPlanesPerDie];
  uint8_t n = 0;
  uint8_t out = 0;  // reads: pages already transferred out
  FlashOpKind kind = FlashOpKind::kRead;
  uint16_t suspends = 0;
  sim::SimTime array_time;

  bool empty() const { return n == 0; }
  void Clear() {
    n = 0;
    out = 0;
    suspends = 0;
  }
};

// What the die's interface (registers + channel side) is doing.
enum class Io : uint8_t {
  kNone,        // free
  kCmdWait,     // io_group_ waits for the bus for its command (+ data-in) phase
  kCmdXfer,     // ... and holds it
  kReadArray,   // main_ is a read in tR; its page registers stay reserved
  kDataWait,    // read data ready, waiting for the bus
  kDataXfer,    // moving read data out
  kSuspending,  // the suspend latency of suspended_
};

int SourceIndex(CmdSource s) { return static_cast<int>(s); }
int KindIndex(FlashOpKind k) { return static_cast<int>(k); }

// log2(v) for a power of two, else -1.
int Log2(uint32_t v) { return std::has_single_bit(v) ? std::countr_zero(v) : -1; }

}  // namespace

// ---------------------------------------------------------------------------

class NandArray::Channel {
 public:
  void Init(NandArray* array, uint32_t id) {
    array_ = array;
    id_ = id;
    cmd_first_ = array->config_.channel_arbitration == "cmd_first";
  }
  ~Channel() {
    if (step_done_.scheduled()) array_->events_->Deschedule(&step_done_);
  }
  // Queues `d` for the bus; grants at once if the bus is free and nobody
  // waits. `command_only`: the phase is command/address cycles only.
  void Request(Die* d, bool command_only);
  bool busy() const { return holder_ != nullptr; }
  sim::SimTime BusyTime() const {
    return holder_ != nullptr ? busy_ + (array_->events_->now() - step_start_) : busy_;
  }

 private:
  void Grant(Die* d);
  void OnStepDone();

  NandArray* array_ = nullptr;
  uint32_t id_ = 0;
  struct WaitList {
    Die* head = nullptr;  // FIFO through Die::bus_next_
    Die* tail = nullptr;
    void Push(Die* d);
    Die* Pop();
  };
  Die* holder_ = nullptr;
  WaitList waiting_[2];  // [0] command-only phases (cmd_first), [1] the rest
  bool cmd_first_ = true;
  sim::SimTime step_start_;
  sim::SimTime busy_;
  sim::MemberEvent<Channel, &Channel::OnStepDone> step_done_{this};
};

class NandArray::Die {
 public:
  void Init(NandArray* array, Channel* channel, uint32_t id) {
    array_ = array;
    channel_ = channel;
    id_ = id;
  }
  ~Die() {
    for (sim::Event* e : {static_cast<sim::Event*>(&array_done_), static_cast<sim::Event*>(&suspend_done_),
                          static_cast<sim::Event*>(&dispatch_)}) {
      if (e->scheduled()) array_->events_->Deschedule(e);
    }
  }

  // A command was enqueued at the scheduler for this die.
  void OnSubmit() {
    ++load_;
    if (io_ == Io::kNone && !in_transition_ && !dispatch_.scheduled()) {
      array_->events_->Schedule(&dispatch_, array_->events_->now());
    }
  }
  void Wake() {
    if (!dispatch_.scheduled()) array_->events_->Schedule(&dispatch_, array_->events_->now());
  }
  void OnFinished() { --load_; }

  // Channel protocol: the bus was granted; returns the first step's length.
  sim::SimTime OnBusGranted();
  // A step ended. Returns true with *next set to keep the bus for another step.
  bool OnBusStepDone(sim::SimTime* next);

  bool busy() const { return busy_; }
  uint32_t load() const { return load_; }
  sim::SimTime BusyTime() const {
    return busy_ ? busy_time_ + (array_->events_->now() - busy_since_) : busy_time_;
  }

  Die* bus_next_ = nullptr;

 private:
  void Dispatch() {
    DispatchInner();
    UpdateBusy();
  }
  void DispatchInner();
  void OnArrayDone();
  void OnSuspendDone();
  void FormGroup(Group* g, FlashCommand* lead);
  void StartCmdPhase(Group* g) {
    io_ = Io::kCmdWait;
    io_group_ = g;
    channel_->Request(this, g->kind != FlashOpKind::kProgram);
  }
  void StartArray(Group* g);
  bool SuspendAllowed() const;
  void BeginSuspend();
  void Resume();
  void UpdateBusy();

  NandArray* array_ = nullptr;
  Channel* channel_ = nullptr;
  uint32_t id_ = 0;
  uint32_t load_ = 0;

  Io io_ = Io::kNone;
  bool in_transition_ = false;  // inside a handler that ends with Dispatch()
  Group* io_group_ = nullptr;
  Group main_;       // the group owning the array (or a read in flight)
  Group cached_;     // cache program: loading or loaded, waiting for the array
  Group suspended_;  // a suspended program/erase

  bool array_busy_ = false;
  sim::SimTime progress_from_;  // array work advances from here (after a resume latency)
  sim::SimTime array_end_;
  sim::SimTime remaining_;      // of suspended_

  bool busy_ = false;
  sim::SimTime busy_since_;
  sim::SimTime busy_time_;

  sim::MemberEvent<Die, &Die::OnArrayDone> array_done_{this};
  sim::MemberEvent<Die, &Die::OnSuspendDone> suspend_done_{this};
  sim::MemberEvent<Die, &Die::Dispatch> dispatch_{this, sim::Priority::kIssue};
};

// ---------------------------------------------------------------------------
// Channel

void NandArray::Channel::WaitList::Push(Die* d) {
  d->bus_next_ = nullptr;
  if (tail == nullptr) {
    head = tail = d;
  } else {
    tail->bus_next_ = d;
    tail = d;
  }
}

NandArray::Die* NandArray::Channel::WaitList::Pop() {
  Die* d = head;
  if (d == nullptr) return nullptr;
  head = d->bus_next_;
  if (head == nullptr) tail = nullptr;
  d->bus_next_ = nullptr;
  return d;
}

void NandArray::Channel::Request(Die* d, bool command_only) {
  if (holder_ == nullptr && waiting_[0].head == nullptr && waiting_[1].head == nullptr) {
    Grant(d);
    return;
  }
  waiting_[cmd_first_ && command_only ? 0 : 1].Push(d);
}

void NandArray::Channel::Grant(Die* d) {
  holder_ = d;
  const sim::SimTime now = array_->events_->now();
  step_start_ = now;
  array_->events_->Schedule(&step_done_, now + d->OnBusGranted());
}

void NandArray::Channel::OnStepDone() {
  const sim::SimTime now = array_->events_->now();
  busy_ += now - step_start_;
  sim::SimTime next;
  if (holder_->OnBusStepDone(&next)) {
    step_start_ = now;
    array_->events_->Schedule(&step_done_, now + next);
    return;
  }
  holder_ = nullptr;
  Die* d = waiting_[0].Pop();
  if (d == nullptr) d = waiting_[1].Pop();
  if (d != nullptr) Grant(d);
}

// ---------------------------------------------------------------------------
// Die

void NandArray::Die::DispatchInner() {
  DieScheduler* sched = array_->scheduler_.get();
  const FlashConfig& cfg = array_->config_;
  for (;;) {
    if (io_ != Io::kNone) return;
    if (!main_.empty()) {
      // The interface is free while main_ works in the array, so main_ is a
      // program or an erase (a read keeps the interface until its data is out).
      DCHECK(array_busy_);
      if (SuspendAllowed() && sched->ShouldSuspend(id_, main_.kind)) {
        BeginSuspend();
        return;
      }
      if (cfg.cache_program && main_.kind == FlashOpKind::kProgram && cached_.empty()) {
        if (FlashCommand* c = sched->Next(id_, PickSlot::kCacheProgram)) {
          CHECK(c->kind == FlashOpKind::kProgram) << "scheduler offered a non-program for the cache register";
          FormGroup(&cached_, c);
          StartCmdPhase(&cached_);
        }
      }
      return;
    }
    if (!suspended_.empty()) {
      if (FlashCommand* c = sched->Next(id_, PickSlot::kSuspended)) {
        CHECK(c->kind == FlashOpKind::kRead) << "only reads run while a program/erase is suspended";
        FormGroup(&main_, c);
        StartCmdPhase(&main_);
        return;
      }
      Resume();
      continue;
    }
    if (!cached_.empty()) {
      // Loaded into the cache register while the previous tPROG ran.
      main_ = cached_;
      cached_.Clear();
      StartArray(&main_);
      continue;
    }
    FlashCommand* c = sched->Next(id_, PickSlot::kIdle);
    if (c == nullptr) return;
    FormGroup(&main_, c);
    StartCmdPhase(&main_);
    return;
  }
}

void NandArray::Die::FormGroup(Group* g, FlashCommand* lead) {
  const FlashConfig& cfg = array_->config_;
  const Geometry& geo = array_->geometry_;
  g->Clear();
  g->kind = lead->kind;
  g->cmd[0] = lead;
  g->n = 1;
  if (cfg.multi_plane.enabled && geo.planes_per_die > 1) {
    PartnerRule rule;
    rule.taken_planes = 1u << lead->addr.plane;
    rule.same_block = cfg.multi_plane.same_block;
    rule.scan = cfg.multi_plane.scan;
    rule.die_planes = (1u << geo.planes_per_die) - 1;
    while (g->n < geo.planes_per_die) {
      FlashCommand* c = array_->scheduler_->TakePartner(id_, *lead, rule);
      if (c == nullptr) break;
      DCHECK_EQ(c->die, id_);
      rule.taken_planes |= 1u << c->addr.plane;
      g->cmd[g->n++] = c;
    }
    if (g->n > 1) {
      array_->multi_plane_ops_.Inc();
      array_->multi_plane_cmds_.Inc(g->n);
    }
  }
  const sim::SimTime now = array_->events_->now();
  sim::SimTime t;
  for (uint32_t i = 0; i < g->n; ++i) {
    FlashCommand* c = g->cmd[i];
    c->start_time = now;
    array_->NoteStart(*c);
    array_->wait_[KindIndex(c->kind)].Record((now - c->submit_time).ns());
    switch (c->kind) {
      case FlashOpKind::kRead:
        t = std::max(t, array_->read_time_[c->addr.page]);
        break;
      case FlashOpKind::kProgram:
        t = std::max(t, array_->program_time_[c->addr.page]);
        break;
      case FlashOpKind::kErase:
        t = cfg.timing.t_erase;
        break;
    }
  }
  g->array_time = t;
}

void NandArray::Die::StartArray(Group* g) {
  const sim::SimTime now = array_->events_->now();
  array_busy_ = true;
  progress_from_ = now;
  array_end_ = now + g->array_time;
  array_->events_->Schedule(&array_done_, array_end_);
}

sim::SimTime NandArray::Die::OnBusGranted() {
  if (io_ == Io::kCmdWait) {
    io_ = Io::kCmdXfer;
    const int64_t n = io_group_->n;
    if (io_group_->kind == FlashOpKind::kProgram) return (array_->t_cmd_ + array_->t_xfer_) * n;
    return array_->t_cmd_ * n;
  }
  CHECK(io_ == Io::kDataWait);
  io_ = Io::kDataXfer;
  return array_->t_xfer_;
}

bool NandArray::Die::OnBusStepDone(sim::SimTime* next) {
  if (io_ == Io::kCmdXfer) {
    Group* g = io_group_;
    io_group_ = nullptr;
    if (g->kind == FlashOpKind::kRead) {
      io_ = Io::kReadArray;
      StartArray(g);
      return false;  // nothing else can start while the read holds the die
    }
    io_ = Io::kNone;
    // A loaded cache program waits for the array unless it is free.
    if (g != &cached_) StartArray(g);
    Dispatch();
    return false;
  }
  CHECK(io_ == Io::kDataXfer);
  FlashCommand* c = main_.cmd[main_.out++];
  const bool more = main_.out < main_.n;
  if (!more) {
    io_ = Io::kNone;
    main_.Clear();
  }
  in_transition_ = true;
  array_->Finish(c);
  in_transition_ = false;
  if (more) {
    *next = array_->t_xfer_;
    return true;
  }
  Dispatch();
  return false;
}

void NandArray::Die::OnArrayDone() {
  array_busy_ = false;
  if (main_.kind == FlashOpKind::kRead) {
    CHECK(io_ == Io::kReadArray);
    io_ = Io::kDataWait;
    channel_->Request(this, false);
    return;
  }
  FlashCommand* done[kMaxPlanesPerDie];
  const uint32_t n = main_.n;
  std::copy(main_.cmd, main_.cmd + n, done);
  main_.Clear();
  in_transition_ = true;
  for (uint32_t i = 0; i < n; ++i) array_->Finish(done[i]);
  in_transition_ = false;
  Dispatch();
}

bool NandArray::Die::SuspendAllowed() const {
  const SuspendConfig& s = array_->config_.suspend;
  const bool kind_ok = main_.kind == FlashOpKind::kProgram ? s.program : (main_.kind == FlashOpKind::kErase && s.erase);
  if (!kind_ok) return false;
  if (s.max_per_op != 0 && main_.suspends >= s.max_per_op) return false;
  // Not at the instant the operation ends.
  return array_end_ > array_->events_->now();
}

void NandArray::Die::BeginSuspend() {
  const sim::SimTime now = array_->events_->now();
  const SuspendConfig& s = array_->config_.suspend;
  remaining_ = array_end_ - std::max(now, progress_from_);
  array_->events_->Deschedule(&array_done_);
  array_busy_ = false;
  suspended_ = main_;
  ++suspended_.suspends;
  main_.Clear();
  const bool program = suspended_.kind == FlashOpKind::kProgram;
  array_->suspends_[program ? 0 : 1].Inc();
  io_ = Io::kSuspending;
  array_->events_->Schedule(&suspend_done_, now + (program ? s.program_latency : s.erase_latency));
}

void NandArray::Die::OnSuspendDone() {
  CHECK(io_ == Io::kSuspending);
  io_ = Io::kNone;
  Dispatch();
}

void NandArray::Die::Resume() {
  const sim::SimTime now = array_->events_->now();
  main_ = suspended_;
  suspended_.Clear();
  array_busy_ = true;
  progress_from_ = now + array_->config_.suspend.resume_latency;
  array_end_ = progress_from_ + remaining_;
  array_->events_->Schedule(&array_done_, array_end_);
}

void NandArray::Die::UpdateBusy() {
  const bool busy = io_ != Io::kNone || !main_.empty() || !cached_.empty() || !suspended_.empty();
  if (busy == busy_) return;
  const sim::SimTime now = array_->events_->now();
  if (busy) {
    busy_since_ = now;
  } else {
    busy_time_ += now - busy_since_;
  }
  busy_ = busy;
}

// ---------------------------------------------------------------------------
// NandArray

NandArray::NandArray(sim::EventQueue* events, const Geometry& geometry, const FlashConfig& config,
                     sim::StatGroup stats)
    : events_(events), geometry_(geometry), config_(config) {
  const sim::Status st = config_.Validate(geometry_);
  CHECK(st.ok()) << "invalid flash config: " << st.message();
  t_xfer_ = sim::TransferTime(geometry_.page_size.value, config_.timing.channel_rate.bytes_per_sec);
  t_cmd_ = config_.timing.cmd_overhead;
  const int page_bits = Log2(geometry_.pages_per_block), block_bits = Log2(geometry_.blocks_per_plane),
            plane_bits = Log2(geometry_.planes_per_die), die_bits = Log2(geometry_.dies_per_chip),
            chip_bits = Log2(geometry_.chips_per_channel);
  pow2_ = page_bits >= 0 && block_bits >= 0 && plane_bits >= 0 && die_bits >= 0 && chip_bits >= 0;
  if (pow2_) {
    shift_block_ = page_bits;
    shift_plane_ = shift_block_ + block_bits;
    shift_die_ = shift_plane_ + plane_bits;
    shift_chip_ = die_bits;
    shift_channel_ = die_bits + chip_bits;
  }
  // Per page offset: FlashTimingConfig derives the page type on every call.
  read_time_.resize(geometry_.pages_per_block);
  program_time_.resize(geometry_.pages_per_block);
  for (uint32_t i = 0; i < geometry_.pages_per_block; ++i) {
    read_time_[i] = config_.timing.ReadTime(i);
    program_time_[i] = config_.timing.ProgramTime(i);
  }
  DieSchedulerContext ctx;
  ctx.geometry = &geometry_;
  ctx.config = &config_;
  ctx.host = this;
  auto sched = MakeDieScheduler(config_.scheduler, ctx);
  CHECK(sched.ok()) << sched.status().message();
  scheduler_ = std::move(sched).value();

  channels_.reserve(geometry_.channels);
  for (uint32_t c = 0; c < geometry_.channels; ++c) {
    channels_.push_back(std::make_unique<Channel>());
    channels_.back()->Init(this, c);
  }
  dies_.reserve(geometry_.dies());
  for (uint32_t d = 0; d < geometry_.dies(); ++d) {
    dies_.push_back(std::make_unique<Die>());
    dies_.back()->Init(this, channels_[geometry_.ChannelOfDie(d)].get(), d);
  }
  block_in_use_.assign(geometry_.blocks(), 0);
  channel_blocks_in_use_.assign(geometry_.channels, 0);
  channel_erases_.assign(geometry_.channels, 0);
  blocks_per_channel_ = static_cast<double>(geometry_.blocks() / geometry_.channels);
  RegisterStats(stats);
}

NandArray::~NandArray() = default;

void NandArray::Submit(FlashCommand* cmd) {
  CHECK(cmd->ppn.v < geometry_.pages()) << "ppn " << cmd->ppn.v << " out of range";
  CHECK(cmd->client != nullptr);
  cmd->submit_time = events_->now();
  if (pow2_) {
    // Same fields as Geometry::ToAddr, by shifts: it divides by five
    // run-time sizes, and every command passes here.
    const uint64_t v = cmd->ppn.v;
    FlashAddr& a = cmd->addr;
    a.page = static_cast<uint32_t>(v & (geometry_.pages_per_block - 1));
    a.block = static_cast<uint32_t>((v >> shift_block_) & (geometry_.blocks_per_plane - 1));
    a.plane = static_cast<uint32_t>((v >> shift_plane_) & (geometry_.planes_per_die - 1));
    const uint64_t die_id = v >> shift_die_;
    a.die = static_cast<uint32_t>(die_id & (geometry_.dies_per_chip - 1));
    a.chip = static_cast<uint32_t>((die_id >> shift_chip_) & (geometry_.chips_per_channel - 1));
    a.channel = static_cast<uint32_t>(die_id >> shift_channel_);
    cmd->die = static_cast<uint32_t>(die_id);
  } else {
    cmd->addr = geometry_.ToAddr(cmd->ppn);
    cmd->die = geometry_.DieId(cmd->addr.channel, cmd->addr.chip, cmd->addr.die);
  }
  cmd->next = nullptr;
  scheduler_->Enqueue(cmd->die, cmd);
  dies_[cmd->die]->OnSubmit();
}

uint32_t NandArray::DieLoad(uint32_t die_id) const { return dies_[die_id]->load(); }
bool NandArray::DieIdle(uint32_t die) const { return !dies_[die]->busy(); }
bool NandArray::ChannelBusy(uint32_t channel) const { return channels_[channel]->busy(); }
void NandArray::Wake(uint32_t die) { dies_[die]->Wake(); }

sim::SimTime NandArray::DieBusyTime(uint32_t die_id) const { return dies_[die_id]->BusyTime(); }
sim::SimTime NandArray::ChannelBusyTime(uint32_t channel) const { return channels_[channel]->BusyTime(); }
uint64_t NandArray::suspensions() const { return suspends_[0].value() + suspends_[1].value(); }

double NandArray::ChannelBlocksInUse(uint32_t channel) const {
  return static_cast<double>(channel_blocks_in_use_[channel]) / blocks_per_channel_;
}

void NandArray::NoteStart(const FlashCommand& cmd) {
  if (cmd.kind == FlashOpKind::kErase && channel_erases_[cmd.addr.channel]++ == 0) ++channels_erasing_;
}

void NandArray::Finish(FlashCommand* cmd) {
  const sim::SimTime now = events_->now();
  const uint32_t ch = cmd->addr.channel;
  // Block id without a division when the sizes are powers of two.
  const uint64_t block = pow2_ ? cmd->ppn.v >> shift_block_ : geometry_.BlockOfPpn(cmd->ppn);
  if (cmd->kind == FlashOpKind::kProgram) {
    uint8_t& used = block_in_use_[block];
    if (!used) {
      used = 1;
      ++channel_blocks_in_use_[ch];
    }
  } else if (cmd->kind == FlashOpKind::kErase) {
    uint8_t& used = block_in_use_[block];
    if (used) {
      used = 0;
      --channel_blocks_in_use_[ch];
    }
    if (--channel_erases_[ch] == 0) --channels_erasing_;
  }
  cmd->finish_time = now;
  dies_[cmd->die]->OnFinished();
  ++completed_;
  const int k = KindIndex(cmd->kind);
  cmds_[k][SourceIndex(cmd->source)].Inc();
  latency_[k].Record((now - cmd->submit_time).ns());
  cmd->client->OnFlashComplete(cmd);
}

void NandArray::RegisterStats(sim::StatGroup& stats) {
  static constexpr const char* kKinds[] = {"read", "program", "erase"};
  static constexpr const char* kSources[] = {"host", "gc", "meta"};
  for (int k = 0; k < 3; ++k) {
    for (int s = 0; s < 3; ++s) {
      stats.Add(&cmds_[k][s], fmt::format("cmds.{}.{}", kKinds[k], kSources[s]), "commands",
                fmt::format("Completed {} commands issued on behalf of {}", kKinds[k], kSources[s]));
    }
    stats.Add(&latency_[k], fmt::format("latency.{}", kKinds[k]), "ns",
              fmt::format("Flash {} latency, submit to completion", kKinds[k]));
    stats.Add(&wait_[k], fmt::format("wait.{}", kKinds[k]), "ns",
              fmt::format("Flash {} queueing delay at its die, submit to start", kKinds[k]));
  }
  stats.Add(&multi_plane_ops_, "multi_plane.ops", "operations", "Multi-plane operations (2+ planes)");
  stats.Add(&multi_plane_cmds_, "multi_plane.cmds", "commands", "Commands executed within multi-plane operations");
  stats.Add(&suspends_[0], "suspends.program", "suspensions", "Programs suspended for reads");
  stats.Add(&suspends_[1], "suspends.erase", "suspensions", "Erases suspended for reads");
  // Utilizations over the measured phase (sim::StatsRegistry::BeginMeasured).
  stats.AddRate(
      [this] {
        double sum = 0;
        for (uint32_t d = 0; d < dies_.size(); ++d) sum += DieBusyTime(d).sec();
        return dies_.empty() ? 0.0 : sum / static_cast<double>(dies_.size());
      },
      events_, "die_utilization", "fraction",
      "Mean over dies of the time a die holds a command, over the measured phase");
  stats.AddMaxRate(
      [this](std::vector<double>* out) {
        for (uint32_t d = 0; d < dies_.size(); ++d) out->push_back(DieBusyTime(d).sec());
      },
      events_, "die_utilization_max", "fraction", "Utilization of the busiest die over the measured phase");
  stats.AddRate(
      [this] {
        double sum = 0;
        for (uint32_t c = 0; c < channels_.size(); ++c) sum += ChannelBusyTime(c).sec();
        return channels_.empty() ? 0.0 : sum / static_cast<double>(channels_.size());
      },
      events_, "channel_utilization", "fraction", "Mean over channels of bus busy time over the measured phase");
  for (uint32_t c = 0; c < channels_.size(); ++c) {
    stats.AddRate([this, c] { return ChannelBusyTime(c).sec(); }, events_, fmt::format("channel.{}.utilization", c),
                  "fraction", fmt::format("Bus busy time of channel {} over the measured phase", c));
  }
}

}  // namespace flash
