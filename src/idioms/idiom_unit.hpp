#pragma once
// One idiom as a unit: everything a kind of tile (tile_idiom.hpp) needs from the layers it cuts
// across, behind one interface, so that adding an idiom is one folder under src/idioms/ and its
// registration (registry.cpp). The recipe's parser, printer and applier, the model's estimate
// and the search's decisions dispatch through it (docs/adding-an-idiom.md).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/source.hpp"
#include "src/idioms/tile_idiom.hpp"
#include "src/loop/loop_tree.hpp"
#include "src/transform/transform_result.hpp"

namespace cudaburg {

struct CandidateShape;
struct Estimate;
struct GpuModel;

// What the recipe parser lends an idiom's step to read its own words; every method that fails
// has reported the error (line:col, caret) already.
class StepReader {
 public:
  virtual ~StepReader() = default;
  virtual bool names(std::vector<std::string>& out) = 0;  // LOOP,LOOP...
  // FACTOR,FACTOR... : exactly `count` of them; `what` names the values in the error.
  virtual bool numbers(std::vector<int64_t>& out, size_t count, const std::string& what = "") = 0;
  virtual bool number(int64_t& out, const char* what) = 0;  // a positive integer
  // Whether `text` (a word or a number) comes next; accept() takes it when it does.
  virtual bool at(const char* text) const = 0;
  virtual bool accept(const char* text) = 0;
  virtual SourceLoc here() const = 0;
  virtual bool fail(const std::string& message) = 0;  // an error at the next token
  virtual bool failAt(SourceLoc at, const std::string& message) = 0;
};

class IdiomUnit {
 public:
  virtual ~IdiomUnit() = default;
  virtual const char* name() const = 0;  // "simt", "mma", "wgmma", "winograd"
  // The recipe step that applies it ("" for an idiom that is the default and has none) and how
  // the step reads, for errors.
  virtual const char* keyword() const = 0;
  virtual const char* usage() const = 0;
  virtual bool holds(const TileIdiom& t) const = 0;

  // The recipe: reads the step after its keyword (the loops into `loops`), prints it back (the
  // keyword first) and applies it to a kernel.
  virtual bool parse(StepReader& in, std::vector<std::string>& loops, TileIdiom& out) const = 0;
  virtual std::string print(const std::vector<std::string>& loops, const TileIdiom& t) const = 0;
  virtual TransformResult apply(const Kernel& kernel, const std::vector<std::string>& loops,
                                const TileIdiom& t) const = 0;

  // The search: what of the idiom a neighbouring candidate may change, one entry a decision, as
  // many for any idiom `t` (zeros where `t` is of another kind).
  virtual std::vector<int64_t> decisions(const TileIdiom& t) const = 0;
  // The model: the estimate of a candidate of this idiom, or nullopt where the tile model of
  // src/search/cost_model.cpp estimates it.
  virtual std::optional<Estimate> estimate(const CandidateShape& shape, const GpuModel& gpu) const;
};

}  // namespace cudaburg
