// `mpirun -np R cudaburg tune LIST -o DIR ...` (or srun): the problems of the list spread over R
// ranks, one problem at a time each, handed out as ranks free up. Rank 0 reads the list, owns the
// tuning database and DIR, and tunes problems too; every rank tunes into a folder and a database
// of its own (seeded with rank 0's rows) and sends back what came of each problem: its row of the
// table, the measurements it stored and its output files, which rank 0 writes as they arrive.
// A rank of another build or GPU is refused at its first message; a rank that stays silent longer
// than --rank-timeout is given up and its problem goes to another. Nothing waits without end.
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <future>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>

#include "src/cli/commands.hpp"
#include "src/cli/loop_input.hpp"
#include "src/cli/tune_command.hpp"
#include "src/cuda/run/runner.hpp"
#include "src/tune/mpi/rank_link.hpp"
#include "src/tune/result_codec.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg::cli {

namespace {

using Clock = std::chrono::steady_clock;
using tune::mpi::Kind;
using tune::mpi::RankLink;
namespace fs = std::filesystem;

constexpr auto kAliveEvery = std::chrono::seconds(1);
// A problem on which this many ranks died is not handed out again: it is what kills them.
constexpr int kMostAttempts = 2;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// What this rank measures on, which must be rank 0's: the GPU's model, or that there is none.
std::string measuringDevice(const TuneFlags& f) {
  if (!f.replay.empty()) return "replay (no GPU)";
  Runner runner;
  return runner.available() ? runner.device() : "no GPU";
}

// Where a host runs several ranks, each measures on its own GPU: the one its place among them
// names (its local rank), unless the launcher already chose (CUDA_VISIBLE_DEVICES is set).
void chooseLocalGpu() {
  if (std::getenv("CUDA_VISIBLE_DEVICES")) return;
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"})
    if (const char* local = std::getenv(name); local && *local) {
      setenv("CUDA_VISIBLE_DEVICES", local, 1);
      return;
    }
}

// A folder of this rank's own under $TMPDIR (else /tmp), removed with it.
class ScratchFolder {
 public:
  explicit ScratchFolder(int rank) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cudaburg-rank" + std::to_string(rank) + "-XXXXXX";
    if (mkdtemp(pattern.data())) path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string readWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One problem at a time tuned on a thread of this rank, into its scratch folder and database, so
// that the main thread stays free to talk to the other ranks meanwhile.
class Lane {
 public:
  // `plan` is the list as this rank read it, its outputs and database pointed into `scratch`.
  Lane(const TuneFlags& f, const TunePlan& plan, fs::path db) : flags_(f), plan_(plan), db_(std::move(db)) {}
  ~Lane() {
    if (running_.valid()) running_.wait();
  }

  // Starts the database off with `rows`: false, with the reason, when it cannot be written.
  bool seed(const tune::DbRows& rows, std::string& error) {
    if (!stores()) return true;
    auto db = TuningDb::open(db_.string(), error);
    if (!db || !db->merge(rows, error)) return false;
    mark_ = db->lastRow();
    return true;
  }

  bool busy() const { return running_.valid(); }
  std::optional<size_t> problem() const { return busy() ? std::optional<size_t>(index_) : std::nullopt; }

  void start(size_t index) {
    index_ = index;
    running_ = std::async(std::launch::async, [this, index] { return tuneProblem(plan_.runs[index], flags_); });
  }

  // When the problem is done: what a Result message carries (its index, its row, the rows it
  // stored, then each output file's path within DIR/NAME and its bytes).
  std::optional<std::vector<std::string>> finished() {
    if (!busy() || running_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
    tune::Row row = running_.get();
    std::vector<std::string> parts{std::to_string(index_), tune::encodeRow(row), tune::encodeDbRows(storedSinceMark())};
    fs::path out = plan_.runs[index_].flags.outDir;
    std::error_code ec;
    for (auto e = fs::recursive_directory_iterator(out, ec); !ec && e != fs::recursive_directory_iterator();
         e.increment(ec)) {
      if (!e->is_regular_file()) continue;
      parts.push_back(e->path().lexically_relative(out).string());
      parts.push_back(readWhole(e->path()));
    }
    fs::remove_all(out, ec);
    return parts;
  }

 private:
  bool stores() const { return storesMeasurements(flags_); }

  tune::DbRows storedSinceMark() {
    if (!stores()) return {};
    std::string error;
    auto db = TuningDb::open(db_.string(), error);
    if (!db) return {};
    tune::DbRows rows = db->rowsAfter(mark_);
    mark_ = db->lastRow();
    return rows;
  }

  const TuneFlags& flags_;
  const TunePlan& plan_;
  fs::path db_;
  int64_t mark_ = 0;
  size_t index_ = 0;
  std::future<tune::Row> running_;
};

// The flags a rank tunes with: its outputs and its database in its scratch folder.
TuneFlags laneFlags(const TuneFlags& f, const fs::path& scratch) {
  TuneFlags local = f;
  local.outDir = (scratch / "out").string();
  local.db = (scratch / "tuning.db").string();
  local.noDb = !storesMeasurements(f);
  return local;
}

// Whether a file's path sent by a rank stays inside the problem's folder.
bool insideFolder(const fs::path& relative) {
  if (relative.empty() || relative.is_absolute()) return false;
  for (const fs::path& part : relative)
    if (part == "..") return false;
  return true;
}

// ---- rank 0 ----

// Tells every other rank to stop, when rank 0 cannot start the run, and returns `status`.
int stopEveryRank(RankLink& link, int status) {
  for (int r = 1; r < link.size(); ++r) link.send(r, Kind::Stop);
  link.flush(std::chrono::seconds(5));
  return status;
}

class Coordinator {
 public:
  Coordinator(RankLink& link, const TuneFlags& f, TunePlan& plan, std::string listText)
      : link_(link),
        f_(f),
        plan_(plan),
        listText_(std::move(listText)),
        ranks_(link.size()),
        rows_(plan.runs.size()),
        attempts_(plan.runs.size(), 0) {}

  int run() {
    ScratchFolder scratch(0);
    if (scratch.path().empty()) {
      std::cerr << "cudaburg: error: cannot make a scratch folder for rank 0\n";
      return stopEveryRank(link_, kInputError);
    }
    tune::DbRows seedRows;
    if (storesMeasurements(f_)) {
      std::string error;
      db_ = TuningDb::open(f_.db.empty() ? TuningDb::defaultPath() : f_.db, error);
      if (!db_) {
        std::cerr << "cudaburg: error: " << error << "\n";
        return stopEveryRank(link_, kInputError);
      }
      seedRows = db_->rowsAfter(0);
    }
    seed_ = tune::encodeDbRows(seedRows);
    device_ = measuringDevice(f_);
    TuneFlags local = laneFlags(f_, scratch.path());
    TunePlan localPlan = planTune(common::SourceFile(plan_.source->name(), listText_), local);
    Lane lane(local, localPlan, local.db);
    std::string error;
    if (!lane.seed(seedRows, error)) {
      std::cerr << "cudaburg: error: " << error << "\n";
      return stopEveryRank(link_, kInputError);
    }
    lane_ = &lane;
    ranks_[0].state = State::Idle;
    for (size_t i = 0; i < plan_.runs.size(); ++i) queue_.push_back(i);
    std::fprintf(stderr, "tune: %zu problems over %d ranks (rank 0 on %s: %s, build %s)\n", plan_.runs.size(),
                 link_.size(), link_.host().c_str(), device_.c_str(), tune::mpi::buildId());
    started_ = Clock::now();
    for (RankState& r : ranks_) r.heard = started_;

    Clock::time_point lastAlive = started_;
    while (done_ < plan_.runs.size()) {
      bool busy = false;
      while (auto r = link_.poll(toMilliseconds(f_.rankTimeout))) {
        receive(*r);
        busy = true;
      }
      if (auto parts = lane.finished()) {
        accept(0, *parts);
        busy = true;
      }
      handOut();
      if (Clock::now() - lastAlive >= kAliveEvery) {
        lastAlive = Clock::now();
        for (int r = 1; r < link_.size(); ++r)
          if (ranks_[r].state != State::Gone) link_.send(r, Kind::Alive);
        giveUpSilentRanks();
      }
      if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    for (int r = 1; r < link_.size(); ++r)
      if (ranks_[r].state != State::Gone) link_.send(r, Kind::Stop);
    link_.flush(std::chrono::seconds(5));
    return finishTune(f_, plan_, rows(), seconds(Clock::now() - started_));
  }

 private:
  enum class State { Greeting, Idle, Busy, Gone };
  struct RankState {
    State state = State::Greeting;
    size_t problem = 0;  // when busy
    Clock::time_point heard;
    std::string host;
  };

  static std::chrono::milliseconds toMilliseconds(double s) {
    return std::chrono::milliseconds(static_cast<long>(s * 1000));
  }

  std::string nameOf(int rank) const {
    return "rank " + std::to_string(rank) + (ranks_[rank].host.empty() ? "" : " on " + ranks_[rank].host);
  }

  void receive(const tune::mpi::Received& r) {
    RankState& from = ranks_[r.from];
    if (from.state == State::Gone) return;  // given up: what it says now is not awaited
    from.heard = Clock::now();
    if (!r.message) return;
    const auto& parts = r.message->parts;
    switch (r.message->kind) {
      case Kind::Hello:
        if (from.state == State::Greeting && parts.size() == 3) greet(r.from, parts[0], parts[1], parts[2]);
        break;
      case Kind::Result:
        if (from.state == State::Busy) accept(r.from, parts);
        break;
      default:
        break;
    }
  }

  void greet(int rank, const std::string& build, const std::string& device, const std::string& host) {
    ranks_[rank].host = host;
    std::string why;
    if (build != tune::mpi::buildId())
      why = "its build (" + build + ") is not rank 0's (" + tune::mpi::buildId() + ")";
    else if (device != device_)
      why = "it measures on " + device + ", rank 0 on " + device_ + " (every rank must have the same GPU model)";
    if (!why.empty()) {
      std::fprintf(stderr, "cudaburg: warning: %s is refused: %s; the run goes on without it\n", nameOf(rank).c_str(),
                   why.c_str());
      link_.send(rank, Kind::Refuse, {why});
      ranks_[rank].state = State::Gone;
      return;
    }
    link_.send(rank, Kind::Welcome, {plan_.source->name(), listText_, seed_});
    ranks_[rank].state = State::Idle;
  }

  void handOut() {
    for (int r = 0; r < link_.size() && !queue_.empty(); ++r) {
      if (ranks_[r].state != State::Idle) continue;
      size_t index = queue_.front();
      queue_.pop_front();
      ranks_[r].state = State::Busy;
      ranks_[r].problem = index;
      if (r == 0)
        lane_->start(index);
      else
        link_.send(r, Kind::Task, {std::to_string(index)});
    }
  }

  void giveUpSilentRanks() {
    for (int r = 1; r < link_.size(); ++r) {
      RankState& rank = ranks_[r];
      if (rank.state == State::Gone || seconds(Clock::now() - rank.heard) <= f_.rankTimeout) continue;
      std::string what = rank.state == State::Greeting ? "never said hello" : "went silent";
      std::fprintf(stderr, "cudaburg: warning: %s %s within %g s; the run goes on without it\n", nameOf(r).c_str(),
                   what.c_str(), f_.rankTimeout);
      if (rank.state == State::Busy) requeue(rank.problem, nameOf(r));
      rank.state = State::Gone;
      link_.forget(r);
    }
  }

  // The problem of a rank that is gone goes first to the next rank free, unless ranks keep dying on it.
  void requeue(size_t index, const std::string& rank) {
    const std::string& name = plan_.runs[index].problem->name;
    if (++attempts_[index] < kMostAttempts) {
      std::fprintf(stderr, "tune: %s goes to another rank\n", name.c_str());
      queue_.push_front(index);
      return;
    }
    tune::Row failed = rowOf(index);
    failed.detail = "the ranks that tuned it died (" + std::to_string(attempts_[index]) + ", the last " + rank + ")";
    rows_[index] = failed;
    ++done_;
    std::fprintf(stderr, "cudaburg: error: %s: %s\n", name.c_str(), failed.detail.c_str());
  }

  // The row of problem `index` as the list gives it, for its outcome to be filled in.
  tune::Row rowOf(size_t index) const {
    const tune::Problem& p = *plan_.runs[index].problem;
    tune::Row row;
    row.name = p.name;
    row.line = p.loc.line;
    row.repeats = p.repeats;
    return row;
  }

  // A problem done on `rank`: its measurements into the database, its files into DIR/NAME/, its
  // row into the table, each at once.
  void accept(int rank, const std::vector<std::string>& parts) {
    ranks_[rank].state = State::Idle;
    size_t index = ranks_[rank].problem;
    std::optional<tune::Row> sent =
        parts.size() >= 3 && parts[0] == std::to_string(index) ? tune::decodeRow(parts[1]) : std::nullopt;
    std::optional<tune::DbRows> measured = sent ? tune::decodeDbRows(parts[2]) : std::nullopt;
    if (!sent || !measured || parts.size() % 2 == 0) {
      std::fprintf(stderr, "cudaburg: warning: %s sent a result that cannot be read\n", nameOf(rank).c_str());
      requeue(index, nameOf(rank));
      return;
    }
    std::string error;
    if (db_ && !db_->merge(*measured, error)) std::fprintf(stderr, "cudaburg: error: %s\n", error.c_str());
    const std::string& name = plan_.runs[index].problem->name;
    fs::path folder = fs::path(f_.outDir) / name;
    for (size_t i = 3; i + 1 < parts.size(); i += 2) {
      fs::path relative = fs::path(parts[i]).lexically_normal();
      std::error_code ec;
      if (!insideFolder(relative) || (fs::create_directories((folder / relative).parent_path(), ec), ec) ||
          !writeFileAtomically((folder / relative).string(), parts[i + 1], error))
        std::fprintf(stderr, "cudaburg: error: %s: cannot write %s: %s\n", name.c_str(), parts[i].c_str(),
                     ec ? ec.message().c_str() : error.c_str());
    }
    tune::Row row = rowOf(index);
    row.ok = sent->ok;
    row.ms = sent->ms;
    row.library = sent->library;
    row.libraryMs = sent->libraryMs;
    row.wallSeconds = sent->wallSeconds;
    row.detail = sent->detail;
    row.gpu = "rank " + std::to_string(rank);  // the table's column of where it ran
    rows_[index] = row;
    ++done_;
    writeTableSoFar();
    std::string now;
    for (int r = 0; r < link_.size(); ++r)
      if (ranks_[r].state == State::Busy)
        now += (now.empty() ? "" : ", ") + plan_.runs[ranks_[r].problem].problem->name;
    showProgress(done_, plan_.runs.size(), seconds(Clock::now() - started_), now);
  }

  std::vector<tune::Row> rows() const {
    std::vector<tune::Row> table;
    for (const auto& r : rows_)
      if (r) table.push_back(*r);
    return table;
  }

  // DIR/summary.md with the problems done so far, so that a run cut short leaves its table.
  void writeTableSoFar() {
    std::string error;
    std::vector<tune::Row> table = rows();
    size_t failed = 0;
    for (const tune::Row& r : table) failed += r.ok ? 0 : 1;
    writeFileAtomically((fs::path(f_.outDir) / "summary.md").string(),
                        tune::summaryMarkdown(plan_.source->name(), table, failed, seconds(Clock::now() - started_)),
                        error);
  }

  RankLink& link_;
  const TuneFlags& f_;
  TunePlan& plan_;
  std::string listText_;
  std::string device_;
  std::string seed_;  // rank 0's database as every rank starts from it, encoded
  std::optional<TuningDb> db_;
  Lane* lane_ = nullptr;
  std::vector<RankState> ranks_;
  std::vector<std::optional<tune::Row>> rows_;
  std::vector<int> attempts_;
  std::deque<size_t> queue_;
  size_t done_ = 0;
  Clock::time_point started_;
};

int coordinate(RankLink& link, const TuneFlags& f) {
  int status = kOk;
  std::optional<TunePlan> plan = loadTune(f, status);
  if (!plan) return stopEveryRank(link, status);
  if (std::getenv("OMPI_COMM_WORLD_SIZE") && !std::getenv("OMPI_MCA_orte_enable_recovery"))
    std::cerr << "cudaburg: note: mpirun was started without --enable-recovery: a rank that dies ends the whole run\n";
  return Coordinator(link, f, *plan, plan->source->text()).run();
}

// ---- every other rank ----

// Test-only: CUDABURG_TEST_DIE_RANK=R kills rank R (as kill -9 would) when it has tuned its first
// problem, before the result goes out, so that the tests see a rank die with a problem in hand.
bool dieNowForTest(int rank) {
  const char* who = std::getenv("CUDABURG_TEST_DIE_RANK");
  return who && std::atoi(who) == rank;
}

int work(RankLink& link, const TuneFlags& f) {
  std::string me = "rank " + std::to_string(link.rank()) + " on " + link.host();
  auto patience = std::chrono::milliseconds(static_cast<long>(f.rankTimeout * 1000));
  link.send(0, Kind::Hello, {tune::mpi::buildId(), measuringDevice(f), link.host()});

  // The welcome: the list and the rows to start from.
  Clock::time_point heard = Clock::now();
  std::optional<tune::mpi::Message> welcome;
  while (!welcome) {
    if (Clock::now() - heard > patience) {
      std::fprintf(stderr, "cudaburg: error: %s: no answer from rank 0 within %g s\n", me.c_str(), f.rankTimeout);
      return kInputError;
    }
    auto r = link.poll(patience);
    if (!r) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    if (r->from != 0 || !r->message) continue;
    if (r->message->kind == Kind::Stop) return kOk;  // all was done before this rank was greeted
    if (r->message->kind == Kind::Refuse) {
      std::fprintf(stderr, "cudaburg: %s takes no part: %s\n", me.c_str(),
                   r->message->parts.empty() ? "refused" : r->message->parts[0].c_str());
      return kOk;
    }
    if (r->message->kind == Kind::Welcome && r->message->parts.size() == 3) welcome = r->message;
  }
  ScratchFolder scratch(link.rank());
  auto seed = tune::decodeDbRows(welcome->parts[2]);
  if (scratch.path().empty() || !seed) {
    std::fprintf(stderr, "cudaburg: error: %s: %s\n", me.c_str(),
                 seed ? "cannot make a scratch folder" : "rank 0's rows cannot be read");
    return kInputError;
  }
  TuneFlags local = laneFlags(f, scratch.path());
  TunePlan plan = planTune(common::SourceFile(welcome->parts[0], welcome->parts[1]), local);
  Lane lane(local, plan, local.db);
  std::string error;
  if (!lane.seed(*seed, error)) {
    std::fprintf(stderr, "cudaburg: error: %s: %s\n", me.c_str(), error.c_str());
    return kInputError;
  }

  Clock::time_point lastAlive = Clock::now();
  heard = Clock::now();
  for (;;) {
    bool busy = false;
    while (auto r = link.poll(patience)) {
      busy = true;
      if (r->from != 0 || !r->message) continue;
      heard = Clock::now();
      if (r->message->kind == Kind::Stop) return kOk;
      if (r->message->kind != Kind::Task || r->message->parts.size() != 1 || lane.busy()) continue;
      size_t index = std::strtoul(r->message->parts[0].c_str(), nullptr, 10);
      if (index >= plan.runs.size()) continue;
      lane.start(index);
    }
    if (auto parts = lane.finished()) {
      if (dieNowForTest(link.rank())) std::raise(SIGKILL);
      link.send(0, Kind::Result, *parts);
      busy = true;
    }
    if (Clock::now() - lastAlive >= kAliveEvery) {
      lastAlive = Clock::now();
      link.send(0, Kind::Alive);
    }
    if (Clock::now() - heard > patience) {
      std::fprintf(stderr, "cudaburg: error: %s: rank 0 went silent for %g s; stopping\n", me.c_str(), f.rankTimeout);
      return kInputError;
    }
    if (!busy) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

// A rank compiles on every core it may use: mpirun's default binding to one core starves it.
void warnIfBound(RankLink& link) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return;
  int usable = CPU_COUNT(&set);
  long host = sysconf(_SC_NPROCESSORS_ONLN);
  if (host > 0 && usable < host)
    std::fprintf(stderr,
                 "cudaburg: warning: rank %d on %s may use %d of the host's %ld cores, and compiles its candidates on "
                 "them alone (mpirun binds a rank to a core by default: pass --bind-to none)\n",
                 link.rank(), link.host().c_str(), usable, host);
}

int runTuneMpi(const TuneFlags& f) {
  RankLink link;
  if (!link.started()) {
    std::cerr << "cudaburg: error: " << link.error() << "\n";
    return kInputError;
  }
  chooseLocalGpu();
  warnIfBound(link);
  int status = link.rank() == 0 ? coordinate(link, f) : work(link, f);
  link.setExitStatus(status);
  return status;
}

}  // namespace cudaburg::cli
