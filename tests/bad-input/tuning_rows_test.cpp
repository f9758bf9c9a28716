// Tuning databases that another program (or a hand, or a disk error) has changed: rows whose
// values are not what the database writes are never trusted and are counted; a table of another
// layout is refused when opened, with one sentence saying how it differs.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
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
  std::string path = databaseWith("not-measured.db", "UPDATE measurements SET status = 'not measured' WHERE recipe = 'a';");
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
  EXPECT_EQ(error, "the tuning database '" + path +
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

}  // namespace
