#include "src/transform/recipe.hpp"

#include <cctype>
#include <limits>
#include <map>

#include "src/idioms/registry.hpp"
#include "src/idioms/step_text.hpp"
#include "src/transform/loop_names.hpp"
#include "src/transform/transforms.hpp"

namespace cudaburg {

namespace {

struct StepSyntax {
  StepKind kind;
  const char* keyword;
  const char* usage;
};

constexpr StepSyntax kSteps[] = {
    {StepKind::StripMine, "strip", "strip LOOP FACTOR [into NAME]"},
    {StepKind::Tile, "tile", "tile LOOP,LOOP... FACTOR,FACTOR... [into NAME,NAME...]"},
    {StepKind::Unroll, "unroll", "unroll LOOP FACTOR [into NAME]"},
    {StepKind::Interchange, "interchange", "interchange OUTER INNER"},
    {StepKind::Distribute, "distribute", "distribute LOOP"},
    {StepKind::Map, "map", "map LOOP MAPPING (map LOOP async [BUFFERS])"},
    {StepKind::Stage, "stage", "stage ARRAY at LOOP [transposed] [interleaved N | pad N | swizzle [slabs N]] [table]"},
    {StepKind::RegisterTile, "regtile", "regtile LOOP,LOOP... FACTOR,FACTOR... [spread N] [into NAME,NAME...]"},
    {StepKind::Vectorize, "vectorize", "vectorize LOOP WIDTH [into NAME]"},
    {StepKind::Split, "split", "split LOOP PARTS [workspace] [into NAME]"},
    {StepKind::Lanes, "lanes", "lanes ROWS,COLS"},
    {StepKind::Collapse, "collapse", "collapse LOOP,LOOP... [into NAME]"},
    {StepKind::Mma, "mma", nullptr},  // nullptr: the idiom unit's usage
    {StepKind::Wgmma, "wgmma", nullptr},
    {StepKind::Peel, "peel", "peel LOOP,LOOP..."},
    {StepKind::RoundUp, "roundup", "roundup"},
    {StepKind::Raster, "raster", "raster ROWS"},
    {StepKind::Prefetch, "prefetch", "prefetch LOOP"},
    {StepKind::Resident, "resident", "resident BLOCKS"},
    {StepKind::Persistent, "persistent", "persistent BLOCKS [pingpong]"},
    {StepKind::Cluster, "cluster", "cluster BLOCKS grid.x|grid.y"},
    {StepKind::Winograd, "winograd", nullptr},
    {StepKind::BackToBack, "b2b", nullptr},
};

constexpr Mapping kMappings[] = {Mapping::None,     Mapping::GridX,  Mapping::GridY,     Mapping::GridZ,
                                 Mapping::BlockX,   Mapping::BlockY, Mapping::BlockZ,    Mapping::ThreadSerial,
                                 Mapping::Unrolled, Mapping::Vector, Mapping::Pipelined, Mapping::AsyncPipelined};

struct Token {
  enum Kind { Word, Number, Comma, End } kind = End;  // End: a line end, ';' or the end of the text
  std::string text;
  size_t offset = 0;
};

// Splits recipe text into tokens; a word may hold dots (mappings such as grid.x).
class Lexer {
 public:
  Lexer(const common::SourceFile& file, common::Diagnostics& diags) : file_(file), diags_(diags) {}

  Token next() {
    const std::string& t = file_.text();
    while (pos_ < t.size()) {
      char c = t[pos_];
      if (c == '#') {
        while (pos_ < t.size() && t[pos_] != '\n') ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
    Token tok;
    tok.offset = pos_;
    if (pos_ >= t.size()) return tok;
    char c = t[pos_];
    if (c == '\n' || c == ';') {
      ++pos_;
      tok.text = std::string(1, c);
      return tok;
    }
    if (c == ',') {
      ++pos_;
      tok.kind = Token::Comma;
      tok.text = ",";
      return tok;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      while (pos_ < t.size() && std::isalnum(static_cast<unsigned char>(t[pos_]))) ++pos_;
      tok.kind = Token::Number;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      while (pos_ < t.size() && (std::isalnum(static_cast<unsigned char>(t[pos_])) || t[pos_] == '_' || t[pos_] == '.'))
        ++pos_;
      tok.kind = Token::Word;
    } else {
      diags_.error(file_.locate(pos_), std::string("unexpected character '") + c + "' in a recipe");
      ++pos_;
      return next();
    }
    tok.text = t.substr(tok.offset, pos_ - tok.offset);
    return tok;
  }

 private:
  const common::SourceFile& file_;
  common::Diagnostics& diags_;
  size_t pos_ = 0;
};

class Parser : public StepReader {
 public:
  Parser(const common::SourceFile& file, common::Diagnostics& diags) : file_(file), diags_(diags), lexer_(file, diags) {
    advance();
  }

  Recipe parse() {
    Recipe recipe;
    while (true) {
      while (tok_.kind == Token::End && !tok_.text.empty()) advance();  // blank lines and ';'
      if (tok_.kind == Token::End) break;
      RecipeStep step;
      if (parseStep(step)) recipe.steps.push_back(step);
      while (tok_.kind != Token::End) advance();  // recover at the end of the step
    }
    return recipe;
  }

 private:
  void advance() { tok_ = lexer_.next(); }
  SourceLoc here() const override { return file_.locate(tok_.offset); }

  bool fail(const std::string& message) override {
    diags_.error(here(), message);
    return false;
  }

  std::string describe() const {
    if (tok_.kind == Token::End)
      return tok_.text.empty() ? "the end of the recipe" : tok_.text == ";" ? "';'" : "the end of the line";
    return "'" + tok_.text + "'";
  }

  bool name(std::string& out, const char* what) {
    if (tok_.kind != Token::Word || tok_.text.find('.') != std::string::npos)
      return fail(std::string("expected ") + what + ", found " + describe());
    out = tok_.text;
    advance();
    return true;
  }

  bool number(int64_t& out, const char* what) override {
    if (tok_.kind != Token::Number)
      return fail(std::string("expected ") + what + " (a positive integer), found " + describe());
    out = 0;
    for (char c : tok_.text) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return fail("'" + tok_.text + "' is not an integer");
      if (out > (std::numeric_limits<int32_t>::max() - (c - '0')) / 10) return fail("'" + tok_.text + "' is too large");
      out = out * 10 + (c - '0');
    }
    if (out < 1) return fail(std::string(what) + " must be positive");
    advance();
    return true;
  }

  // NAME,NAME...; `locs`, when given, gets where each name stands.
  bool names(std::vector<std::string>& out) override { return nameList(out); }

  bool at(const char* text) const override {
    return (tok_.kind == Token::Word || tok_.kind == Token::Number) && tok_.text == text;
  }

  bool accept(const char* text) override {
    if (!at(text)) return false;
    advance();
    return true;
  }

  bool failAt(SourceLoc at, const std::string& message) override {
    diags_.error(at, message);
    return false;
  }

  bool nameList(std::vector<std::string>& out, const char* what = "a loop index",
                std::vector<SourceLoc>* locs = nullptr) {
    do {
      if (!out.empty()) advance();
      if (locs) locs->push_back(here());
      std::string n;
      if (!name(n, what)) return false;
      out.push_back(n);
    } while (tok_.kind == Token::Comma);
    return true;
  }

  // `into NAME,...`, when the step has it: the names of the `count` loops the step makes, each
  // given once in the recipe.
  bool into(std::vector<std::string>& out, size_t count) {
    if (tok_.kind != Token::Word || tok_.text != "into") return true;
    advance();
    SourceLoc start = here();
    std::vector<SourceLoc> locs;
    if (!nameList(out, "a name for a new loop", &locs)) return false;
    if (out.size() != count) {
      diags_.error(start,
                   std::to_string(count) +
                       (count == 1 ? " new loop needs 1 name" : " new loops need " + std::to_string(count) + " names") +
                       ", not " + std::to_string(out.size()));
      return false;
    }
    for (size_t i = 0; i < out.size(); ++i) {
      auto [first, fresh] = given_.emplace(out[i], locs[i]);
      if (!fresh) {
        diags_.error(locs[i], "a new loop is named " + out[i] + " already: each new loop needs a name of its own");
        diags_.note(first->second, "the loop named " + out[i] + " first");
        return false;
      }
    }
    return true;
  }

  // `what`, when given, names the values in the error (else they are factors of `count` loops).
  bool numbers(std::vector<int64_t>& out, size_t count, const std::string& what = "") override {
    SourceLoc start = here();
    do {
      if (!out.empty()) advance();
      int64_t n;
      if (!number(n, "a factor")) return false;
      out.push_back(n);
    } while (tok_.kind == Token::Comma);
    if (out.size() != count) {
      diags_.error(start, what.empty() ? std::to_string(count) + " loops need " + std::to_string(count) +
                                             " factors, not " + std::to_string(out.size())
                                       : what + ", not " + std::to_string(out.size()) + " values");
      return false;
    }
    return true;
  }

  bool parseStep(RecipeStep& step) {
    step.loc = here();
    const StepSyntax* syntax = nullptr;
    for (const auto& s : kSteps)
      if (tok_.kind == Token::Word && tok_.text == s.keyword) syntax = &s;
    if (!syntax) {
      std::string known;
      for (const auto& s : kSteps) known += std::string(known.empty() ? "" : ", ") + s.keyword;
      return fail("expected a step (" + known + "), found " + describe());
    }
    step.kind = syntax->kind;
    advance();
    bool ok = true;
    std::string loop;
    int64_t n = 0;
    switch (step.kind) {
      case StepKind::StripMine:
      case StepKind::Unroll:
      case StepKind::Vectorize:
      case StepKind::Split:
        ok = name(loop, "a loop index") && number(n, step.kind == StepKind::Vectorize ? "a width"
                                                     : step.kind == StepKind::Split   ? "a number of parts"
                                                                                      : "a factor");
        step.loops = {loop};
        step.factors = {n};
        if (ok && step.kind == StepKind::Split && tok_.kind == Token::Word && tok_.text == "workspace")
          advance(), step.factors.push_back(1);
        ok = ok && into(step.into, 1);
        break;
      case StepKind::Tile:
      case StepKind::RegisterTile:
        ok = names(step.loops) && numbers(step.factors, step.loops.size());
        if (ok && step.kind == StepKind::RegisterTile && tok_.kind == Token::Word && tok_.text == "spread") {
          advance();
          ok = number(n, "the length of a thread's runs");
          step.factors.push_back(n);
        }
        ok = ok && into(step.into, loopsNamedFrom(step).size());
        break;
      case StepKind::Collapse:
        ok = names(step.loops) && into(step.into, 1);
        break;
      case StepKind::Mma:
      case StepKind::Wgmma:
      case StepKind::Winograd:
      case StepKind::BackToBack:
        ok = idiomUnitOfStep(syntax->keyword)->parse(*this, step.loops, step.idiom);
        break;
      case StepKind::Lanes: {
        int64_t rows = 0, cols = 0;
        ok = number(rows, "the rows of block.y a warp covers");
        if (ok && tok_.kind != Token::Comma) ok = fail("expected ',' and the columns of block.x, found " + describe());
        if (ok) advance();
        ok = ok && number(cols, "the columns of block.x a warp covers");
        step.factors = {rows, cols};
        break;
      }
      case StepKind::Interchange: {
        std::string inner;
        ok = name(loop, "the outer loop's index") && name(inner, "the inner loop's index");
        step.loops = {loop, inner};
        break;
      }
      case StepKind::Distribute:
        ok = name(loop, "a loop index");
        step.loops = {loop};
        break;
      case StepKind::Peel:
        ok = names(step.loops);
        break;
      case StepKind::RoundUp:
        break;
      case StepKind::Prefetch:
        ok = name(loop, "an unrolled loop's index");
        step.loops = {loop};
        break;
      case StepKind::Raster: {
        int64_t rows = 0;
        ok = number(rows, "the block rows that sweep the columns together");
        step.factors = {rows};
        break;
      }
      case StepKind::Resident: {
        int64_t blocks = 0;
        ok = number(blocks, "the blocks a multiprocessor must hold at once");
        step.factors = {blocks};
        break;
      }
      case StepKind::Persistent: {
        int64_t blocks = 0;
        ok = number(blocks, "the blocks that take the tiles in turn");
        step.factors = {blocks};
        if (ok && accept("pingpong")) step.factors.push_back(1);
        break;
      }
      case StepKind::Cluster: {
        int64_t blocks = 0;
        ok = number(blocks, "the blocks of a cluster");
        step.factors = {blocks};
        if (!ok) break;
        if (accept("grid.x"))
          step.factors.push_back(0);
        else if (accept("grid.y"))
          step.factors.push_back(1);
        else
          ok = fail("expected the grid axis the cluster's blocks lie along (grid.x or grid.y), found " + describe());
        break;
      }
      case StepKind::Map: {
        ok = name(loop, "a loop index");
        step.loops = {loop};
        if (!ok) break;
        bool known = false;
        for (Mapping m : kMappings)
          if (tok_.kind == Token::Word && tok_.text == mappingName(m)) step.mapping = m, known = true;
        if (!known)
          ok = fail(
              "expected a mapping (grid.x, grid.y, grid.z, block.x, block.y, block.z, serial, unroll, vector, "
              "pipelined, async, none), found " +
              describe());
        else
          advance();
        if (ok && step.mapping == Mapping::AsyncPipelined && tok_.kind == Token::Number) {  // buffers a stage
          int64_t buffers = 0;
          SourceLoc at = here();
          ok = number(buffers, "the buffers of each stage");
          if (ok && (buffers < 2 || buffers > kMaxAsyncStages)) {
            diags_.error(at, "an asynchronous pipeline keeps 2 to " + std::to_string(kMaxAsyncStages) +
                                 " buffers of each stage, not " + std::to_string(buffers));
            ok = false;
          }
          step.factors = {buffers};
        }
        break;
      }
      case StepKind::Stage:
        ok = name(step.array, "an array");
        if (ok && (tok_.kind != Token::Word || tok_.text != "at")) ok = fail("expected 'at', found " + describe());
        if (ok) advance();
        ok = ok && name(loop, "a loop index");
        step.loops = {loop};
        if (ok && tok_.kind == Token::Word && tok_.text == "transposed") {
          step.transposed = true;
          advance();
        } else if (ok && tok_.kind == Token::Word && tok_.text == "interleaved") {
          advance();
          ok = number(step.interleave, "the run each thread reads");
        }
        if (ok && tok_.kind == Token::Word && tok_.text == "pad") {
          advance();
          ok = number(step.padding, "the elements after each row");
        } else if (ok && tok_.kind == Token::Word && tok_.text == "swizzle") {
          step.swizzled = true;
          advance();
          if (tok_.kind == Token::Word && tok_.text == "slabs") {
            advance();
            ok = number(step.slab, "the columns of a slab");
          }
        }
        if (ok && tok_.kind == Token::Word && tok_.text == "table") {
          step.table = true;
          advance();
        }
        break;
    }
    if (ok && tok_.kind != Token::End)
      ok = fail("unexpected " + describe() + " after the step (a step reads `" +
                (syntax->usage ? syntax->usage : idiomUnitOfStep(syntax->keyword)->usage()) + "`)");
    return ok;
  }

  const common::SourceFile& file_;
  common::Diagnostics& diags_;
  Lexer lexer_;
  Token tok_;
  std::map<std::string, SourceLoc> given_;  // the names given to new loops so far, and where
};

}  // namespace

bool isIdiomStep(StepKind k) { return idiomUnitOfStep(stepKeyword(k)) != nullptr; }

const char* stepKeyword(StepKind k) {
  for (const auto& s : kSteps)
    if (s.kind == k) return s.keyword;
  return "?";
}

std::string RecipeStep::str() const {
  std::string s = stepKeyword(kind);
  switch (kind) {
    case StepKind::Map:
      return s + " " + loops.at(0) + " " + mappingName(mapping) + (factors.empty() ? "" : " " + joinList(factors));
    case StepKind::Stage:
      return s + " " + array + " at " + loops.at(0) + (transposed ? " transposed" : "") +
             (interleave ? " interleaved " + std::to_string(interleave) : "") +
             (padding ? " pad " + std::to_string(padding) : "") + (swizzled ? " swizzle" : "") +
             (slab ? " slabs " + std::to_string(slab) : "") + (table ? " table" : "");
    case StepKind::Mma:
    case StepKind::Wgmma:
    case StepKind::Winograd:
    case StepKind::BackToBack:
      return idiomUnitOfStep(s)->print(loops, idiom);
    case StepKind::Interchange:
      return s + " " + loops.at(0) + " " + loops.at(1);
    case StepKind::Distribute:
      return s + " " + loops.at(0);
    case StepKind::Persistent:
      return s + " " + std::to_string(factors.at(0)) + (factors.size() > 1 && factors[1] ? " pingpong" : "");
    case StepKind::Cluster:
      return s + " " + std::to_string(factors.at(0)) + (factors.at(1) == 0 ? " grid.x" : " grid.y");
    case StepKind::Lanes:
    case StepKind::Raster:
    case StepKind::Resident:
      return s + " " + joinList(factors);
    case StepKind::Collapse:
      return s + " " + joinList(loops) + (into.empty() ? "" : " into " + joinList(into));
    case StepKind::RegisterTile: {
      std::vector<int64_t> tile(factors.begin(), factors.begin() + std::min(factors.size(), loops.size()));
      return s + " " + joinList(loops) + " " + joinList(tile) +
             (factors.size() > loops.size() ? " spread " + std::to_string(factors.back()) : "") +
             (into.empty() ? "" : " into " + joinList(into));
    }
    case StepKind::Split:
      return s + " " + loops.at(0) + " " + std::to_string(factors.at(0)) + (factors.size() == 2 ? " workspace" : "") +
             (into.empty() ? "" : " into " + joinList(into));
    case StepKind::Peel:
    case StepKind::Prefetch:
      return s + " " + joinList(loops);
    case StepKind::RoundUp:
      return s;
    default:
      return s + " " + joinList(loops) + " " + joinList(factors) + (into.empty() ? "" : " into " + joinList(into));
  }
}

std::string printRecipe(const Recipe& recipe) {
  std::string s;
  for (const auto& step : recipe.steps) s += step.str() + "\n";
  return s;
}

std::string printRecipeLine(const Recipe& recipe) {
  std::string s;
  for (const auto& step : recipe.steps) s += (s.empty() ? "" : "; ") + step.str();
  return s;
}

std::optional<Recipe> parseRecipe(const common::SourceFile& file, common::Diagnostics& diags) {
  int before = diags.errorCount();
  Recipe recipe = Parser(file, diags).parse();
  if (diags.errorCount() > before) return std::nullopt;
  return recipe;
}

TransformResult applyStep(const Kernel& kernel, const RecipeStep& step) {
  if (kernel.winograd() && step.kind != StepKind::Winograd)
    return TransformResult::refuse("the winograd step computes the whole kernel: no step may follow it");
  if (kernel.backToBack())
    return TransformResult::refuse("the b2b step computes the whole kernel: no step may follow it");
  auto arity = [&](size_t loops, size_t factors) {
    return step.loops.size() == loops && step.factors.size() == factors;
  };
  switch (step.kind) {
    case StepKind::StripMine:
      if (arity(1, 1)) return stripMine(kernel, step.loops[0], step.factors[0], step.into);
      break;
    case StepKind::Tile:
      return tile(kernel, step.loops, step.factors, step.into);
    case StepKind::Unroll:
      if (arity(1, 1)) return unroll(kernel, step.loops[0], step.factors[0], step.into);
      break;
    case StepKind::Interchange:
      if (arity(2, 0)) return interchange(kernel, step.loops[0], step.loops[1]);
      break;
    case StepKind::Distribute:
      if (arity(1, 0)) return distribute(kernel, step.loops[0]);
      break;
    case StepKind::Map:
      if (arity(1, 0)) return mapLoop(kernel, step.loops[0], step.mapping);
      if (arity(1, 1) && step.mapping == Mapping::AsyncPipelined)
        return mapLoop(kernel, step.loops[0], step.mapping, static_cast<int>(step.factors[0]));
      break;
    case StepKind::Stage:
      if (arity(1, 0))
        return stage(kernel, step.array, step.loops[0], step.transposed, step.interleave, step.padding, step.swizzled,
                     step.slab, step.table);
      break;
    case StepKind::RegisterTile: {
      if (step.factors.size() == step.loops.size()) return registerTile(kernel, step.loops, step.factors, step.into);
      if (step.factors.size() != step.loops.size() + 1) break;
      std::vector<int64_t> tile(step.factors.begin(), step.factors.end() - 1);
      return registerTile(kernel, step.loops, tile, step.into, step.factors.back());
    }
    case StepKind::Vectorize:
      if (arity(1, 1)) return vectorize(kernel, step.loops[0], static_cast<int>(step.factors[0]), step.into);
      break;
    case StepKind::Split:
      if (arity(1, 1) || arity(1, 2))
        return splitReduction(kernel, step.loops[0], step.factors[0], step.into, step.factors.size() == 2);
      break;
    case StepKind::Collapse:
      if (step.factors.empty()) return collapse(kernel, step.loops, step.into);
      break;
    case StepKind::Lanes:
      if (arity(0, 2)) return arrangeLanes(kernel, step.factors[0], step.factors[1]);
      break;
    case StepKind::Mma:
    case StepKind::Wgmma:
    case StepKind::Winograd:
    case StepKind::BackToBack:
      return idiomUnitOfStep(stepKeyword(step.kind))->apply(kernel, step.loops, step.idiom);
    case StepKind::Peel:
      if (!step.loops.empty() && step.factors.empty()) return peel(kernel, step.loops);
      break;
    case StepKind::RoundUp:
      if (arity(0, 0)) return roundUp(kernel);
      break;
    case StepKind::Raster:
      if (arity(0, 1)) return rasterBlocks(kernel, step.factors[0]);
      break;
    case StepKind::Prefetch:
      if (arity(1, 0)) return prefetch(kernel, step.loops[0]);
      break;
    case StepKind::Resident:
      if (arity(0, 1)) return keepResident(kernel, step.factors[0]);
      break;
    case StepKind::Persistent:
      if (arity(0, 1) || arity(0, 2))
        return runPersistent(kernel, step.factors[0], step.factors.size() > 1 && step.factors[1] != 0);
      break;
    case StepKind::Cluster:
      if (arity(0, 2)) return clusterBlocks(kernel, step.factors[0], static_cast<int>(step.factors[1]));
      break;
  }
  return TransformResult::refuse("the step has the wrong number of loops or factors");
}

TransformResult applyRecipe(const Kernel& kernel, const Recipe& recipe) {
  Kernel current = kernel;
  for (size_t i = 0; i < recipe.steps.size(); ++i) {
    TransformResult r = applyStep(current, recipe.steps[i]);
    if (!r.ok())
      return TransformResult::refuse("step " + std::to_string(i + 1) + " `" + recipe.steps[i].str() + "`: " + r.reason);
    current = std::move(*r.kernel);
  }
  return TransformResult::success(std::move(current));
}

}  // namespace cudaburg
