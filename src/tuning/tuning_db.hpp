#pragma once
// The tuning database: every measurement the search makes, stored the moment it is made, so
// a second run of the same search measures nothing new and an interrupted one loses nothing.
// SQLite, embedded; one row per (loop nest, sizes, recipe, GPU, driver, architecture, toolkit).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "src/cuda/run/run_status.hpp"

struct sqlite3;

namespace cudaburg {

// What a measurement is about. Two measurements with equal keys are interchangeable.
struct MeasurementKey {
  std::string nest;               // a hash of the loop nest's text with its sizes bound
  std::string sizes;              // "M=2048,N=2048,K=2048", for people reading the database
  std::string recipe;             // the recipe's printed text
  std::string gpu;                // device name, e.g. "NVIDIA H200"
  std::string computeCapability;  // "9.0"
  std::string driver;             // driver version
  std::string arch;               // the architecture the kernel was compiled for, "sm_90"
  std::string toolkit;            // CUDA toolkit (NVRTC) version
};

struct Measurement {
  RunStatus status = RunStatus::NotMeasured;  // stored: any but NotMeasured
  common::Reason reason;                      // why, when not ok
  double ms = 0;                              // median kernel time
  double tflops = 0;
  double gbps = 0;
  double error = 0;          // relative error against the exact FP64 outputs
  double libraryError = -1;  // the reference library's own on the same inputs (-1: none was run)
  std::string precision;     // the contract it was verified under: "strict", "tf32" ("": before there was one)
  int registers = 0;
  int sharedBytes = 0;
  std::string measuredAt;  // UTC time the row was written (filled by the database)
};

// How a database is opened: to read and store (a search), or only to read (a replay, which
// neither creates the file or its folders nor changes it, and can read a read-only file).
enum class DbAccess { ReadWrite, ReadOnly };

class TuningDb {
 public:
  // Opens the database at `path` (with ReadWrite creating it, and its folders, when needed);
  // returns nullopt and says why in `error` when it cannot. Only a database cudaburg wrote is
  // used: one marked with cudaburg's application id (set when cudaburg creates it), or one of an
  // earlier version's layout (a measurements table alone). Any other SQLite file is refused
  // before anything is written to it. With ReadOnly, a damaged (say truncated) file is refused.
  static std::optional<TuningDb> open(const std::string& path, std::string& error,
                                      DbAccess access = DbAccess::ReadWrite);
  // $CUDABURG_DB, else $XDG_DATA_HOME/cudaburg/tuning.db, else ~/.local/share/cudaburg/tuning.db.
  static std::string defaultPath();

  TuningDb(TuningDb&& other) noexcept;
  TuningDb& operator=(TuningDb&& other) noexcept;
  TuningDb(const TuningDb&) = delete;
  TuningDb& operator=(const TuningDb&) = delete;
  ~TuningDb();

  // A row whose values are not what store() writes (a wrong type, an unknown status, a time
  // that is not a positive number) is never returned: it is counted in malformedRows().
  std::optional<Measurement> find(const MeasurementKey& key) const;
  // Stores (or replaces) a measurement and makes it durable before returning.
  bool store(const MeasurementKey& key, const Measurement& m, std::string& error);
  // Every stored measurement of a nest on a GPU and toolkit, best time first.
  std::vector<std::pair<MeasurementKey, Measurement>> forNest(const std::string& nest, const std::string& gpu,
                                                              const std::string& toolkit) const;
  // Every verified (ok) measurement of a nest at these sizes, on any GPU and toolkit, best time
  // first: what an export chooses from.
  std::vector<std::pair<MeasurementKey, Measurement>> verified(const std::string& nest, const std::string& sizes) const;
  size_t count() const;
  // Rows in the order they were stored: the last one's number (0: none), and the rows stored after
  // row `after` (0: every row). A row stored again counts as stored anew. What a run on another
  // host sends back of what it measured.
  int64_t lastRow() const;
  std::vector<std::pair<MeasurementKey, Measurement>> rowsAfter(int64_t after) const;
  // Stores (or replaces) rows measured elsewhere, each keeping the time it was measured at, all or
  // none, durable before returning.
  bool merge(const std::vector<std::pair<MeasurementKey, Measurement>>& rows, std::string& error);
  // The GPU, driver, architecture and toolkit with the most measurements of a nest at these sizes
  // (the key's recipe left empty), or nullopt when it has none: what a replay answers from.
  std::optional<MeasurementKey> mostMeasuredDevice(const std::string& nest, const std::string& sizes) const;
  // The index of the GPU (among the host's) the measurements stored from now on were made on,
  // kept beside the GPU's name; -1 (the default): not recorded.
  void setGpuIndex(int index) { gpuIndex_ = index; }
  // Rows find() and forNest() met and ignored since the database was opened.
  size_t malformedRows() const { return malformedRows_; }
  // The warning about them that a search or a replay prints, or "" when there were none.
  std::string malformedRowsWarning() const;
  // Why a read stopped before its end (a damaged file), or "" when none did.
  const std::string& readError() const { return readError_; }

 private:
  explicit TuningDb(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
  // Whether `rc`, the last step of a read, ended it cleanly; if not, the reason is kept.
  bool readEnded(int rc) const;
  mutable size_t malformedRows_ = 0;
  int gpuIndex_ = -1;
  mutable std::string readError_;
};

}  // namespace cudaburg
