#pragma once
// What a search found: every variant it considered, in the order they were measured, and the
// reference library's time beside them. The report writers and the plot read this.
#include <optional>
#include <string>
#include <vector>

#include "src/tuning/tuning_db.hpp"

namespace cudaburg {

struct VariantResult {
  std::string recipe;         // printed recipe
  std::string cover;          // the grammar rules that produced it, e.g. "kernel <- tile2(staged)"
  double modelCost = 0;       // the model's estimate that ranked it
  double refittedMs = 0;      // measured: the model refitted to the search's measurements (0: none)
  bool measured = false;      // false: ranked by the model only (no GPU, or not reached)
  bool fromDatabase = false;  // the measurement was reused from the tuning database
  Measurement result;         // its status says whether it was measured, and how it went
};

struct ReferenceResult {
  std::string library;  // "cuBLAS", "cuDNN", "FP64 reference"
  double ms = 0;
  double tflops = 0;
  bool measured = false;
};

// Where a search's wall time went, in seconds.
struct SearchPhases {
  double labeling = 0;       // the first labeling: every candidate built and priced by the model
  double measuring = 0;      // compiling and timing what the strategy asked for
  double finalLabeling = 0;  // the labeling again, with measured times
};

struct SearchOutcome {
  std::string loopFile;
  std::string kernelName;
  std::string sizes;
  std::string device;  // "NVIDIA H200 (sm_90)", or "no GPU"
  std::string toolkit;
  std::string precision;  // the contract the variants were verified under: "strict", "tf32"
  bool gpuAvailable = false;
  std::string notMeasuredReason;  // why nothing was timed, when nothing was
  // Why no rule of the grammar tiles the nest, when none does: the nest as written was the one
  // candidate (src/search/untiled_reason.hpp).
  std::string notTiledReason;
  double wallSeconds = 0;
  SearchPhases phases;
  size_t compiled = 0;
  size_t candidates = 0;  // distinct candidate kernels the labeler offered
  std::string strategy;   // the strategy that chose what to measure
  // How well the model ranks what was measured (Spearman's rho against measured times): the model
  // that ranked the candidates, and that model refitted to this search's measurements (rho
  // cross-validated: each measurement predicted by a fit that did not see it).
  size_t modelSamples = 0;
  double priorRho = 0, calibratedRho = 0;
  bool refitOnCompiledCode = false;  // the refit saw each kernel's registers and instructions too
  std::vector<VariantResult> variants;
  ReferenceResult reference;
  // What the search's options left out, a sentence each ("tensor cores: not considered: ...").
  std::vector<std::string> notes;

  // The fastest verified variant (or the model's best when nothing was measured).
  std::optional<size_t> best() const;
};

}  // namespace cudaburg
