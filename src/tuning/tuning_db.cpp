#include "src/tuning/tuning_db.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <utility>
#include <vector>

namespace cudaburg {

namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS measurements (
  nest TEXT NOT NULL, sizes TEXT NOT NULL, recipe TEXT NOT NULL,
  gpu TEXT NOT NULL, compute_capability TEXT NOT NULL, driver TEXT NOT NULL, arch TEXT NOT NULL,
  toolkit TEXT NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL, ms REAL, tflops REAL, gbps REAL, error REAL,
  registers INTEGER, shared_bytes INTEGER,
  measured_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  library_error REAL NOT NULL DEFAULT -1, precision TEXT NOT NULL DEFAULT '',
  gpu_index INTEGER NOT NULL DEFAULT -1,
  PRIMARY KEY (nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit)
);
)sql";

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  void bind(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.c_str(), -1, SQLITE_TRANSIENT); }
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  void bind(int i, int v) { sqlite3_bind_int(stmt_, i, v); }
  int step() { return sqlite3_step(stmt_); }
  std::string text(int col) const {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  int type(int col) const { return sqlite3_column_type(stmt_, col); }
  int integer(int col) const { return sqlite3_column_int(stmt_, col); }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

void bindKey(Statement& s, const MeasurementKey& k) {
  s.bind(1, k.nest);
  s.bind(2, k.sizes);
  s.bind(3, k.recipe);
  s.bind(4, k.gpu);
  s.bind(5, k.computeCapability);
  s.bind(6, k.driver);
  s.bind(7, k.arch);
  s.bind(8, k.toolkit);
}

// SQLite's application id of a database cudaburg created ("CDBG"): how it knows its own files.
constexpr int kApplicationId = 0x43444247;

// No kernel time the worker reports is above an hour (it stops a kernel long before): a larger
// stored time was not written by store().
constexpr double kMaxStoredMs = 3600e3;

// How long a connection waits for another's write to end before it gives up.
constexpr int kBusyWaitMs = 60000;

// The statuses a stored measurement may have: all but "not measured".
bool storedStatus(const std::string& name) {
  auto status = runStatusFromName(name);
  return status && *status != RunStatus::NotMeasured;
}

// Whether columns status..measured_at from `col` hold what store() writes: known text, numbers
// where numbers go (SQLite keeps whatever a hand or another program put there), and for a
// verified measurement a finite positive time. A row that fails is never trusted.
bool wellFormed(const Statement& s, int col) {
  if (s.type(col) != SQLITE_TEXT || s.type(col + 1) != SQLITE_TEXT || !storedStatus(s.text(col))) return false;
  for (int c = col + 2; c <= col + 5; ++c)
    if (s.type(c) != SQLITE_FLOAT && s.type(c) != SQLITE_INTEGER) return false;
  for (int c = col + 6; c <= col + 7; ++c)
    if (s.type(c) != SQLITE_INTEGER) return false;
  for (int c = col + 2; c <= col + 5; ++c)
    if (!std::isfinite(s.real(c)) || s.real(c) < 0) return false;
  if ((s.type(col + 9) != SQLITE_FLOAT && s.type(col + 9) != SQLITE_INTEGER) || s.type(col + 10) != SQLITE_TEXT)
    return false;
  if (s.real(col + 2) > kMaxStoredMs) return false;
  return s.text(col) != runStatusName(RunStatus::Ok) || s.real(col + 2) > 0;
}

// Reads columns status..measured_at starting at `col`.
Measurement readMeasurement(const Statement& s, int col) {
  Measurement m;
  m.status = *runStatusFromName(s.text(col));  // wellFormed() checked it
  m.reason = s.text(col + 1);
  m.ms = s.real(col + 2);
  m.tflops = s.real(col + 3);
  m.gbps = s.real(col + 4);
  m.error = s.real(col + 5);
  m.registers = s.integer(col + 6);
  m.sharedBytes = s.integer(col + 7);
  m.measuredAt = s.text(col + 8);
  m.libraryError = s.real(col + 9);
  m.precision = s.text(col + 10);
  return m;
}

constexpr const char* kMeasurementColumns =
    "status, reason, ms, tflops, gbps, error, registers, shared_bytes, measured_at, library_error, precision";

// The columns of the table and their declared types, as kSchema makes them.
constexpr std::pair<const char*, const char*> kColumns[] = {{"nest", "TEXT"},
                                                            {"sizes", "TEXT"},
                                                            {"recipe", "TEXT"},
                                                            {"gpu", "TEXT"},
                                                            {"compute_capability", "TEXT"},
                                                            {"driver", "TEXT"},
                                                            {"arch", "TEXT"},
                                                            {"toolkit", "TEXT"},
                                                            {"status", "TEXT"},
                                                            {"reason", "TEXT"},
                                                            {"ms", "REAL"},
                                                            {"tflops", "REAL"},
                                                            {"gbps", "REAL"},
                                                            {"error", "REAL"},
                                                            {"registers", "INTEGER"},
                                                            {"shared_bytes", "INTEGER"},
                                                            {"measured_at", "TEXT"},
                                                            {"library_error", "REAL"},
                                                            {"precision", "TEXT"},
                                                            {"gpu_index", "INTEGER"}};

// The columns a database written before the GPU's index was recorded lacks: the last one. Such a
// table is read as it is (the index is never read back); a search adds the column.
constexpr size_t kColumnsBeforeGpuIndex = std::size(kColumns) - 1;
// The columns a database written before the precision contract lacks: two more.
constexpr size_t kColumnsBeforeContract = kColumnsBeforeGpuIndex - 2;

// How many of kColumns the table has when it has the first of them in their order and no other
// (a layout of this version or an earlier one); 0 for any other table.
size_t layoutColumns(sqlite3* db) {
  Statement s(db, "PRAGMA table_info(measurements)");
  size_t i = 0;
  for (; s.ok() && s.step() == SQLITE_ROW; ++i)
    if (i == std::size(kColumns) || s.text(1) != kColumns[i].first || s.text(2) != kColumns[i].second) return 0;
  return i;
}

// Adds the columns a table of an earlier layout lacks (its rows keep "" as their precision:
// verified under no contract; and -1 as their GPU's index: not recorded); a table that has them,
// or another layout, is left alone. Several searches may open one database at once: the columns
// are added in one transaction that first looks again at what the table has.
bool addLaterColumns(sqlite3* db, std::string& error) {
  size_t columns = layoutColumns(db);
  if (columns != kColumnsBeforeContract && columns != kColumnsBeforeGpuIndex) return true;
  char* msg = nullptr;
  auto run = [&](const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, &msg) == SQLITE_OK) return true;
    error = msg ? msg : "unknown error";
    sqlite3_free(msg);
    msg = nullptr;
    return false;
  };
  if (!run("BEGIN IMMEDIATE")) return false;
  columns = layoutColumns(db);
  bool ok = true;
  if (columns == kColumnsBeforeContract)
    ok =
        run("ALTER TABLE measurements ADD COLUMN library_error REAL NOT NULL DEFAULT -1;"
            "ALTER TABLE measurements ADD COLUMN precision TEXT NOT NULL DEFAULT '';");
  if (ok && (columns == kColumnsBeforeContract || columns == kColumnsBeforeGpuIndex))
    ok = run("ALTER TABLE measurements ADD COLUMN gpu_index INTEGER NOT NULL DEFAULT -1;");
  if (!ok) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  }
  return run("COMMIT");
}

// Why the measurements table of `db` is not the one kSchema makes (an older or foreign file), or "".
std::string schemaMismatch(sqlite3* db) {
  Statement s(db, "PRAGMA table_info(measurements)");
  if (!s.ok()) return sqlite3_errmsg(db);
  std::vector<std::pair<std::string, std::string>> table;
  while (s.step() == SQLITE_ROW) table.emplace_back(s.text(1), s.text(2));
  // Our own columns in our order with some left out: name the first one left out.
  size_t known = 0;
  std::string lacked;
  for (const auto& [name, type] : kColumns) {
    if (known < table.size() && table[known].first == name && table[known].second == type)
      ++known;
    else if (lacked.empty())
      lacked = name;
  }
  if (known == table.size() && !lacked.empty() && !(known == kColumnsBeforeGpuIndex && lacked == "gpu_index"))
    return "it lacks the column '" + lacked + "'";
  for (size_t i = 0; i < table.size(); ++i) {
    if (i == std::size(kColumns)) return "it has a column '" + table[i].first + "' this version does not know";
    if (table[i].first != kColumns[i].first || table[i].second != kColumns[i].second)
      return "its column " + std::to_string(i + 1) + " is '" + table[i].first + " " + table[i].second + "', not '" +
             kColumns[i].first + " " + kColumns[i].second + "'";
  }
  return "";
}

// The names of the tables in `db`; nullopt (with SQLite's reason in `error`) when they cannot be
// read, as in a file that is not a database.
std::optional<std::vector<std::string>> tableNames(sqlite3* db, std::string& error) {
  Statement s(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  std::vector<std::string> names;
  int rc = s.ok() ? s.step() : SQLITE_ERROR;
  for (; rc == SQLITE_ROW; rc = s.step()) names.push_back(s.text(0));
  if (rc != SQLITE_DONE) {
    error = sqlite3_errmsg(db);
    return std::nullopt;
  }
  return names;
}

// Whether the measurements table has the columns of this version's layout or of the one before
// the precision contract: a file an earlier cudaburg wrote, before it set its application id.
bool earlierLayout(sqlite3* db) {
  size_t columns = layoutColumns(db);
  return columns == std::size(kColumns) || columns == kColumnsBeforeGpuIndex || columns == kColumnsBeforeContract;
}

// Why `db` is not cudaburg's to use ("" when it is): a file of another program is never written.
std::string notOurs(sqlite3* db, const std::string& path, DbAccess access) {
  std::string error;
  auto tables = tableNames(db, error);
  if (!tables) return "cannot read the tuning database '" + path + "': " + error;
  Statement id(db, "PRAGMA application_id");
  int applicationId = id.ok() && id.step() == SQLITE_ROW ? id.integer(0) : 0;
  if (applicationId == kApplicationId) return "";
  if (applicationId == 0 && tables->empty() && access == DbAccess::ReadWrite) return "";  // new: cudaburg makes it
  if (applicationId == 0 && *tables == std::vector<std::string>{"measurements"}) {
    if (earlierLayout(db)) return "";
    return "the tuning database '" + path + "' has another layout than this version writes: " + schemaMismatch(db);
  }
  std::string names;
  for (const std::string& t : *tables) names += (names.empty() ? "'" : ", '") + t + "'";
  return "'" + path + "' is not a tuning database cudaburg wrote (" +
         (applicationId != 0 ? "another program's application id"
          : names.empty()    ? "it holds no table"
                             : "its tables: " + names) +
         "); it is left as it is";
}

// A damaged file (truncated, overwritten) found before a replay trusts what it reads.
std::string damage(sqlite3* db) {
  Statement s(db, "PRAGMA quick_check");
  if (!s.ok()) return sqlite3_errmsg(db);
  int rc = s.step();
  if (rc != SQLITE_ROW) return sqlite3_errmsg(db);
  return s.text(0) == "ok" ? "" : s.text(0);
}

}  // namespace

std::string TuningDb::malformedRowsWarning() const {
  if (malformedRows_ == 0) return "";
  return std::to_string(malformedRows_) + " row" + (malformedRows_ == 1 ? "" : "s") +
         " of the tuning database held values this version does not write (a wrong type, an unknown status or a "
         "time that is not a positive number of at most an hour) and " +
         (malformedRows_ == 1 ? "was" : "were") + " ignored";
}

bool TuningDb::readEnded(int rc) const {
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return true;
  if (readError_.empty()) readError_ = sqlite3_errmsg(db_);
  return false;
}

std::string TuningDb::defaultPath() {
  if (const char* p = std::getenv("CUDABURG_DB"); p && *p) return p;
  std::filesystem::path base;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x)
    base = x;
  else if (const char* h = std::getenv("HOME"); h && *h)
    base = std::filesystem::path(h) / ".local" / "share";
  else
    base = ".";
  return (base / "cudaburg" / "tuning.db").string();
}

std::optional<TuningDb> TuningDb::open(const std::string& path, std::string& error, DbAccess access) {
  std::error_code ec;
  bool readOnly = access == DbAccess::ReadOnly;
  bool exists = std::filesystem::exists(path, ec);
  if (readOnly && !exists) {
    error = "the tuning database '" + path + "' does not exist";
    return std::nullopt;
  }
  // A FIFO would block the open forever, a device would be written over.
  if (exists && !std::filesystem::is_regular_file(path, ec)) {
    error = "the tuning database '" + path + "' is not a regular file";
    return std::nullopt;
  }
  auto parent = std::filesystem::path(path).parent_path();
  if (!readOnly && !parent.empty()) std::filesystem::create_directories(parent, ec);
  sqlite3* db = nullptr;
  // Reading alone: a file that may be written is still opened so (never created, and the
  // connection made query-only below), for SQLite then removes the -wal and -shm files it makes
  // when it closes; a read-only file is opened read-only.
  int flags = !readOnly                           ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
              : ::access(path.c_str(), W_OK) == 0 ? SQLITE_OPEN_READWRITE
                                                  : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    error = "cannot open the tuning database '" + path + "': " + (db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return std::nullopt;
  }
  // Searches running side by side (tune --gpus) share one database: a writer waits for another.
  sqlite3_busy_timeout(db, kBusyWaitMs);
  auto refuse = [&](std::string why) {
    error = std::move(why);
    sqlite3_close(db);
    return std::nullopt;
  };
  if (std::string why = notOurs(db, path, access); !why.empty()) return refuse(why);
  if (readOnly) {
    sqlite3_exec(db, "PRAGMA query_only=1", nullptr, nullptr, nullptr);
    if (std::string why = damage(db); !why.empty())
      return refuse("the tuning database '" + path + "' is damaged (truncated or overwritten?): " + why);
  } else {
    // WAL with synchronous=FULL: each committed measurement survives a crash or kill -9.
    // The application id marks a database cudaburg creates; one of an earlier version is left
    // unmarked (known by its table), its file not rewritten for it.
    std::string error;
    auto tables = tableNames(db, error);
    bool creating = tables && tables->empty();
    char* msg = nullptr;
    std::string setup = (creating ? "PRAGMA application_id=" + std::to_string(kApplicationId) + ";" : std::string()) +
                        "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;" + kSchema;
    if (sqlite3_exec(db, setup.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string why = msg ? msg : "unknown error";
      sqlite3_free(msg);
      return refuse("cannot use the tuning database '" + path + "': " + why);
    }
    if (std::string why; !addLaterColumns(db, why))
      return refuse("cannot add this version's columns to the tuning database '" + path + "': " + why);
  }
  if (std::string why = schemaMismatch(db); !why.empty())
    return refuse("the tuning database '" + path + "' has another layout than this version " +
                  (readOnly ? "reads (run a search with it once to bring it up to date)" : "writes") + ": " + why);
  return TuningDb(db);
}

TuningDb::TuningDb(TuningDb&& other) noexcept
    : db_(other.db_), malformedRows_(other.malformedRows_), gpuIndex_(other.gpuIndex_) {
  other.db_ = nullptr;
}

TuningDb& TuningDb::operator=(TuningDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close(db_);
    db_ = other.db_;
    malformedRows_ = other.malformedRows_;
    gpuIndex_ = other.gpuIndex_;
    other.db_ = nullptr;
  }
  return *this;
}

TuningDb::~TuningDb() { sqlite3_close(db_); }

std::optional<Measurement> TuningDb::find(const MeasurementKey& key) const {
  std::string sql = std::string("SELECT ") + kMeasurementColumns +
                    " FROM measurements WHERE nest=?1 AND sizes=?2 AND recipe=?3 AND gpu=?4"
                    " AND compute_capability=?5 AND driver=?6 AND arch=?7 AND toolkit=?8";
  Statement s(db_, sql.c_str());
  if (!s.ok()) return std::nullopt;
  bindKey(s, key);
  if (int rc = s.step(); rc != SQLITE_ROW) {
    readEnded(rc);
    return std::nullopt;
  }
  if (!wellFormed(s, 0)) {
    ++malformedRows_;
    return std::nullopt;
  }
  return readMeasurement(s, 0);
}

bool TuningDb::store(const MeasurementKey& key, const Measurement& m, std::string& error) {
  Statement s(
      db_,
      "INSERT OR REPLACE INTO measurements (nest, sizes, recipe, gpu, compute_capability, driver, arch,"
      " toolkit, status, reason, ms, tflops, gbps, error, registers, shared_bytes, library_error, precision,"
      " gpu_index) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)");
  if (!s.ok()) {
    error = sqlite3_errmsg(db_);
    return false;
  }
  bindKey(s, key);
  s.bind(9, std::string(runStatusName(m.status)));
  s.bind(10, m.reason);
  s.bind(11, m.ms);
  s.bind(12, m.tflops);
  s.bind(13, m.gbps);
  s.bind(14, m.error);
  s.bind(15, m.registers);
  s.bind(16, m.sharedBytes);
  s.bind(17, m.libraryError);
  s.bind(18, m.precision);
  s.bind(19, gpuIndex_);
  if (s.step() != SQLITE_DONE) {
    error = std::string("cannot store a measurement: ") + sqlite3_errmsg(db_);
    return false;
  }
  return true;
}

std::vector<std::pair<MeasurementKey, Measurement>> TuningDb::forNest(const std::string& nest, const std::string& gpu,
                                                                      const std::string& toolkit) const {
  std::string sql = std::string("SELECT nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit, ") +
                    kMeasurementColumns +
                    " FROM measurements WHERE nest=?1 AND gpu=?2 AND toolkit=?3"
                    " ORDER BY (status <> 'ok'), ms";
  Statement s(db_, sql.c_str());
  std::vector<std::pair<MeasurementKey, Measurement>> rows;
  if (!s.ok()) return rows;
  s.bind(1, nest);
  s.bind(2, gpu);
  s.bind(3, toolkit);
  int rc = s.step();
  for (; rc == SQLITE_ROW; rc = s.step()) {
    if (!wellFormed(s, 8)) {
      ++malformedRows_;
      continue;
    }
    MeasurementKey k{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7)};
    rows.emplace_back(k, readMeasurement(s, 8));
  }
  readEnded(rc);
  return rows;
}

std::vector<std::pair<MeasurementKey, Measurement>> TuningDb::verified(const std::string& nest,
                                                                       const std::string& sizes) const {
  std::string sql = std::string("SELECT nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit, ") +
                    kMeasurementColumns + " FROM measurements WHERE nest=?1 AND sizes=?2 AND status='ok' ORDER BY ms";
  Statement s(db_, sql.c_str());
  std::vector<std::pair<MeasurementKey, Measurement>> rows;
  if (!s.ok()) return rows;
  s.bind(1, nest);
  s.bind(2, sizes);
  while (s.step() == SQLITE_ROW) {
    if (!wellFormed(s, 8)) {
      ++malformedRows_;
      continue;
    }
    MeasurementKey k{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7)};
    rows.emplace_back(k, readMeasurement(s, 8));
  }
  return rows;
}

size_t TuningDb::count() const {
  Statement s(db_, "SELECT COUNT(*) FROM measurements");
  return s.ok() && s.step() == SQLITE_ROW ? static_cast<size_t>(s.integer(0)) : 0;
}

int64_t TuningDb::lastRow() const {
  Statement s(db_, "SELECT COALESCE(MAX(rowid), 0) FROM measurements");
  return s.ok() && s.step() == SQLITE_ROW ? sqlite3_column_int64(s.get(), 0) : 0;
}

std::vector<std::pair<MeasurementKey, Measurement>> TuningDb::rowsAfter(int64_t after) const {
  std::string sql = std::string("SELECT nest, sizes, recipe, gpu, compute_capability, driver, arch, toolkit, ") +
                    kMeasurementColumns + " FROM measurements WHERE rowid > ?1 ORDER BY rowid";
  Statement s(db_, sql.c_str());
  std::vector<std::pair<MeasurementKey, Measurement>> rows;
  if (!s.ok()) return rows;
  sqlite3_bind_int64(s.get(), 1, after);
  int rc = s.step();
  for (; rc == SQLITE_ROW; rc = s.step()) {
    if (!wellFormed(s, 8)) {
      ++malformedRows_;
      continue;
    }
    MeasurementKey k{s.text(0), s.text(1), s.text(2), s.text(3), s.text(4), s.text(5), s.text(6), s.text(7)};
    rows.emplace_back(k, readMeasurement(s, 8));
  }
  readEnded(rc);
  return rows;
}

bool TuningDb::merge(const std::vector<std::pair<MeasurementKey, Measurement>>& rows, std::string& error) {
  auto fail = [&](const char* what) {
    error = std::string(what) + sqlite3_errmsg(db_);
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return false;
  };
  if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK)
    return fail("cannot store measurements: ");
  for (const auto& [key, m] : rows) {
    Statement s(db_,
                "INSERT OR REPLACE INTO measurements (nest, sizes, recipe, gpu, compute_capability, driver, arch,"
                " toolkit, status, reason, ms, tflops, gbps, error, registers, shared_bytes, library_error, precision,"
                " measured_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
                " COALESCE(NULLIF(?19, ''), strftime('%Y-%m-%dT%H:%M:%SZ', 'now')))");
    if (!s.ok()) return fail("cannot store measurements: ");
    bindKey(s, key);
    s.bind(9, std::string(runStatusName(m.status)));
    s.bind(10, m.reason);
    s.bind(11, m.ms);
    s.bind(12, m.tflops);
    s.bind(13, m.gbps);
    s.bind(14, m.error);
    s.bind(15, m.registers);
    s.bind(16, m.sharedBytes);
    s.bind(17, m.libraryError);
    s.bind(18, m.precision);
    s.bind(19, m.measuredAt);
    if (s.step() != SQLITE_DONE) return fail("cannot store a measurement: ");
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return fail("cannot store measurements: ");
  return true;
}

std::optional<MeasurementKey> TuningDb::mostMeasuredDevice(const std::string& nest, const std::string& sizes) const {
  Statement s(db_,
              "SELECT gpu, compute_capability, driver, arch, toolkit FROM measurements WHERE nest=?1 AND sizes=?2"
              " GROUP BY gpu, compute_capability, driver, arch, toolkit ORDER BY COUNT(*) DESC LIMIT 1");
  if (!s.ok()) return std::nullopt;
  s.bind(1, nest);
  s.bind(2, sizes);
  if (int rc = s.step(); rc != SQLITE_ROW) {
    readEnded(rc);
    return std::nullopt;
  }
  return MeasurementKey{nest, sizes, "", s.text(0), s.text(1), s.text(2), s.text(3), s.text(4)};
}

}  // namespace cudaburg
