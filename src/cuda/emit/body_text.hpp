#pragma once
// The body of a kernel as the emitter writes it, a line at a time, with the names each line uses
// recorded as it is written. A declaration stays only when a line after it uses its name (an
// index whose loop body reads only its unrolled counter is not declared), and the prologue
// declares only the coordinates the lines that stay use.
#include <map>
#include <string>
#include <vector>

namespace cudaburg::emit_internal {

class BodyText {
 public:
  // The number of lines written: the place of the next one, which marks a declaration.
  size_t size() const { return lines_.size(); }
  // One line, without its newline.
  void add(const std::string& text);
  // Lines (each ending in a newline) placed before line `at`.
  void insert(size_t at, const std::string& text);
  // Leaves out the declaration at line `mark` when no line after it that stays uses `name`.
  void dropIfUnused(size_t mark, const std::string& name);
  // Whether a line that stays uses `name`.
  bool uses(const std::string& name) const;
  // The lines that stay, each with its newline.
  std::string str() const;

 private:
  struct Line {
    std::string text;
    std::vector<std::string> names;  // the identifiers and numbers it holds, each once
    bool dropped = false;
  };
  Line record(std::string text);

  std::vector<Line> lines_;
  std::map<std::string, int> users_;  // by name: the lines that stay and use it
};

}  // namespace cudaburg::emit_internal
