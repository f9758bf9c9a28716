// Tuning databases that another program (or a hand, or a disk error) has changed: rows whose
// values are not what the database writes are never trusted and are counted; a table of another
// layout is refused when opened, with one sentence saying how it differs; an SQLite file of another
// program is never written; a replay reads a database without changing it, and says so plainly
// when it is missing, damaged or holds rows it ignores.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "src/tuning/tuning_db.hpp"
#include "tests/scratch_dir.hpp"

using cudaburg::Measurement;
using cudaburg::MeasurementKey;
using cudaburg::RunStatus;
using cudaburg::TuningDb;

namespace {

std::string freshPath(const std::string& name) { return cudaburg::freshTestPath("cudaburg-bad-db-test", name); }

MeasurementKey key(const std::string& recipe) {
  return {"nest", "M=64", recipe, "NVIDIA H200", "9.0", "580.1", "sm_90", "13.0"};
}

// Runs SQL on the database file as another program would.
void execute(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK) << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(db);
}

// Stores one good measurement for each recipe, then lets `sql` change the rows.
std::string databaseWith(const std::string& name, const std::string& sql) {
  std::string path = freshPath(name);
  {
    std::string error;
    auto db = TuningDb::open(path, error);
    EXPECT_TRUE(db) << error;
    Measurement m;
    m.status = RunStatus::Ok;
    m.ms = 1.5;
    m.tflops = 2;
    m.registers = 40;
    for (const char* recipe : {"a", "b", "c"}) EXPECT_TRUE(db->store(key(recipe), m, error)) << error;
  }
  execute(path, sql);
  return path;
}

TEST(TuningRows, AWrongTypeIsNeitherTrustedNorHidden) {
  std::string path = databaseWith("type.db", "UPDATE measurements SET ms = 'fast' WHERE recipe = 'a';");
  std::string error;
  auto db = TuningDb::open(path, error);
  ASSERT_TRUE(db) << error;
  EXPECT_FALSE(db->find(key("a")));  // measured again, not read as 0 ms (an infinite ratio)
  EXPECT_EQ(db->malformedRows(), 1u);
  ASSERT_TRUE(db->find(key("b")));
  EXPECT_DOUBLE_EQ(db->find(key("b"))->ms, 1.5);
  EXPECT_EQ(db->malformedRows(), 1u);
  EXPECT_EQ(db->forNest("nest", "NVIDIA H200", "13.0").size(), 2u);
  EXPECT_EQ(db->malformedRows(), 2u);
}

TEST(TuningRows, ImpossibleValuesAreIgnored) {
  std::string path = databaseWith("values.db",
                                  "UPDATE measurements SET ms = 0 WHERE recipe = 'a';"
                                  "UPDATE measurements SET status = 'great' WHERE recipe = 'b';"
                                  "UPDATE measurements SET registers = 'many' WHERE recipe = 'c';");
  std::string error;
  auto db = TuningDb::open(path, error);
  ASSERT_TRUE(db) << error;
  EXPECT_TRUE(db->forNest("nest", "NVIDIA H200", "13.0").empty());
  EXPECT_EQ(db->malformedRows(), 3u);
  EXPECT_FALSE(db->find(key("a")));
  EXPECT_FALSE(db->find(key("b")));
  EXPECT_FALSE(db->find(key("c")));
  EXPECT_EQ(db->malformedRows(), 6u);
}

// "not measured" is a status of the search, never of a stored row.
TEST(TuningRows, ANotMeasuredRowIsNoMeasurement) {
  std::string path =
      databaseWith("not-measured.db", "UPDATE measurements SET status = 'not measured' WHERE recipe = 'a';");
  std::string error;
  auto db = TuningDb::open(path, error);
  ASSERT_TRUE(db) << error;
  EXPECT_FALSE(db->find(key("a")));
  EXPECT_EQ(db->malformedRows(), 1u);
  EXPECT_EQ(db->forNest("nest", "NVIDIA H200", "13.0").size(), 2u);
}

TEST(TuningRows, AnotherLayoutIsRefusedInOneSentence) {
  std::string path = freshPath("layout.db");
  execute(path, "CREATE TABLE measurements (nest TEXT, recipe TEXT, ms TEXT);");
  std::string error;
  EXPECT_FALSE(TuningDb::open(path, error));
  EXPECT_EQ(error,
            "the tuning database '" + path +
                "' has another layout than this version writes: its column 2 is 'recipe TEXT', not 'sizes TEXT'");

  std::string missing = databaseWith("missing.db", "ALTER TABLE measurements DROP COLUMN measured_at;");
  EXPECT_FALSE(TuningDb::open(missing, error));
  EXPECT_EQ(error, "the tuning database '" + missing +
                       "' has another layout than this version writes: it lacks the column 'measured_at'");
}

// The search with such a database: one warning, even with -q (which hides progress only).
TEST(TuningRows, TheSearchWarnsOnceEvenWhenQuiet) {
  std::string path = freshPath("quiet.db");
  execute(path, "CREATE TABLE measurements (nest TEXT, recipe TEXT, ms TEXT);");
  std::string out = freshPath("quiet-out");
  std::string command = std::string(CUDABURG_PATH) + " " + CUDABURG_EXAMPLES_DIR +
                        "/matmul.loop -D M=64 -D N=64 -D K=64 --tile 32 --unroll 2 --stage 8 --split 2 -q --db " +
                        path + " -o " + out + " 2>&1 >/dev/null";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_TRUE(pipe);
  std::string errors;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) errors.append(buffer, n);
  EXPECT_EQ(pclose(pipe), 0);
  EXPECT_EQ(errors, "cudaburg: warning: the tuning database '" + path +
                        "' has another layout than this version writes: its column 2 is 'recipe TEXT', not "
                        "'sizes TEXT'; measurements will not be kept\n");
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// What a cudaburg command printed and its exit status.
struct CommandRun {
  int status = -1;
  std::string out, err;
};

CommandRun cudaburgRun(const std::string& args, const std::string& scratch) {
  std::string errFile = scratch + "/stderr";
  std::string command = std::string(CUDABURG_PATH) + " " + args + " 2>" + errFile;
  CommandRun r;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) r.out.append(buffer, n);
  int status = pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = contents(errFile);
  std::filesystem::remove(errFile);
  return r;
}

// A replay of the shipped conv2d database (measured on a GPU), with the model's strategy.
std::string replayArgs(const std::string& db) {
  return std::string("replay ") + CUDABURG_EXAMPLES_DIR +
         "/conv2d.loop --tile 16..64 --unroll 2..4 --stage 4,8 --split 4 --strategy model --db " + db;
}

std::string copyOfShipped(const std::string& name) {
  std::string path = freshPath(name);
  std::filesystem::copy_file(std::string(CUDABURG_DATA_DIR) + "/conv2d.db", path);
  return path;
}

TEST(TuningRows, AReplayWarnsOfTheRowsItIgnoresAndPrintsNoHugeTime) {
  std::string path = copyOfShipped("ignored.db");
  execute(path,
          "UPDATE measurements SET ms = 1e308 WHERE rowid = (SELECT rowid FROM measurements WHERE status = 'ok' "
          "ORDER BY ms LIMIT 1);"
          "UPDATE measurements SET ms = 'fast' WHERE rowid = (SELECT rowid FROM measurements WHERE status = 'ok' "
          "ORDER BY ms LIMIT 1);");
  CommandRun r = cudaburgRun(replayArgs(path), std::filesystem::path(path).parent_path().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("cudaburg: warning: 2 rows of the tuning database held values this version does not write"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::regex_search(r.out, std::regex("[0-9]{20}"))) << r.out;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("winner / best ([0-9.]+)"))) << r.out;
  EXPECT_GE(std::stod(m[1]), 1.0) << "winner / best is the winner's time over the best stored, at least 1";
}

TEST(TuningRows, AReplayOfADamagedDatabaseFails) {
  std::string path = copyOfShipped("truncated.db");
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  CommandRun r = cudaburgRun(replayArgs(path), std::filesystem::path(path).parent_path().string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.err.rfind("cudaburg: error: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("best stored"), std::string::npos) << r.out;
}

TEST(TuningRows, AReplayOfAMissingDatabaseMakesNothing) {
  std::string folder = freshPath("no-such-folder");
  CommandRun r = cudaburgRun(replayArgs(folder + "/tuning.db"), std::filesystem::path(folder).parent_path().string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "cudaburg: error: the tuning database '" + folder + "/tuning.db' does not exist\n");
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(TuningRows, AReplayReadsAReadOnlyDatabaseAndChangesNothing) {
  std::string path = copyOfShipped("read-only.db");
  std::string before = contents(path);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read |
                                         std::filesystem::perms::others_read);
  CommandRun r = cudaburgRun(replayArgs(path), std::filesystem::path(path).parent_path().string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("winner / best"), std::string::npos) << r.out;
  EXPECT_EQ(contents(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-journal"));
}

// Another program's SQLite file given as the database: refused before anything is written to it
// (no table added, its journal left as it was), by the search and by a replay.
TEST(TuningRows, AnotherProgramsDatabaseIsLeftAsItIs) {
  std::string path = freshPath("foreign.db");
  execute(path, "PRAGMA journal_mode=DELETE; CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('ada');");
  std::string before = contents(path);
  std::string error;
  EXPECT_FALSE(TuningDb::open(path, error));
  EXPECT_EQ(error, "'" + path + "' is not a tuning database cudaburg wrote (its tables: 'users'); it is left as it is");
  std::string scratch = std::filesystem::path(path).parent_path().string();
  CommandRun search =
      cudaburgRun(std::string(CUDABURG_EXAMPLES_DIR) +
                      "/matmul.loop -D M=64 -D N=64 -D K=64 --tile 32 --unroll 2 --stage 8 --split 2 -q --db " + path +
                      " -o " + scratch + "/out",
                  scratch);
  EXPECT_EQ(search.status, 0) << search.err;
  EXPECT_EQ(search.err, "cudaburg: warning: " + error + "; measurements will not be kept\n");
  CommandRun replay = cudaburgRun(replayArgs(path), scratch);
  EXPECT_EQ(replay.status, 1);
  EXPECT_EQ(replay.err, "cudaburg: error: " + error + "\n");
  EXPECT_EQ(contents(path), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

// A database cudaburg creates carries its application id, by which it is known later.
TEST(TuningRows, ADatabaseCudaburgCreatesIsMarkedAsItsOwn) {
  std::string path = freshPath("new.db");
  std::string error;
  ASSERT_TRUE(TuningDb::open(path, error)) << error;
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &s, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(s, 0), 0x43444247);
  sqlite3_finalize(s);
  sqlite3_close(db);
  EXPECT_TRUE(TuningDb::open(path, error)) << error;
}

}  // namespace
