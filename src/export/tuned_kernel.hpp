#pragma once
// A tuned kernel: the fastest verified measurement of a nest at its sizes that the tuning
// databases hold, and the CUDA kernel its recipe makes of the nest again.
#include <optional>
#include <string>
#include <vector>

#include "src/cuda/emit/emitter.hpp"
#include "src/cuda/run/precision.hpp"
#include "src/export/export_problem.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg {

// Which rows an export may take.
struct RowFilter {
  Precision precision = Precision::Strict;  // strict takes rows verified strict (or before the contract)
  std::string gpu;                          // a GPU's name as the database holds it ("": any)
};

struct TunedKernel {
  ExportProblem problem;
  Kernel nest;                       // the .loop's kernel at the problem's sizes, untransformed
  std::vector<std::string> defined;  // the sizes the problem's -D named
  MeasurementKey key;                // the row taken
  Measurement measurement;
  std::string database;     // the file it came from
  double bound = 0;         // the relative error it was verified within
  std::string boundSource;  // where that bound comes from, in words
  CudaKernel cuda;          // set by rebuildKernel
};

// The fastest row the filter takes among `databases` (path, database), or nullopt with a sentence
// in `error` that names the command which would tune the problem.
std::optional<TunedKernel> findTunedKernel(const ExportProblem& problem, const Kernel& nest,
                                           const std::vector<std::pair<std::string, const TuningDb*>>& databases,
                                           const RowFilter& filter, std::string& error);

// Applies the row's recipe to the nest and emits the kernel as `entry`; false with `error` set
// when the recipe no longer applies or emits (a database of another version).
bool rebuildKernel(TunedKernel& tuned, const std::string& entry, std::string& error);

}  // namespace cudaburg
