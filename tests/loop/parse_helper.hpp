#pragma once
// Parses .loop text held in a test, keeping the source and its diagnostics alive together.
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/diagnostics.hpp"
#include "src/loop/parser.hpp"
#include "src/loop/tree_walk.hpp"

namespace cudaburg::test {

struct Parsed {
  std::unique_ptr<common::SourceFile> file;
  std::unique_ptr<common::Diagnostics> diags;
  std::optional<Kernel> kernel;

  std::string errors() const { return diags->str(); }
};

inline Parsed parseText(const std::string& text, const std::map<std::string, int64_t>& overrides = {},
                        const std::string& name = "test.loop") {
  Parsed p;
  p.file = std::make_unique<common::SourceFile>(name, text);
  p.diags = std::make_unique<common::Diagnostics>(*p.file);
  p.kernel = parseLoopFile(*p.file, *p.diags, overrides);
  return p;
}

inline Parsed parseExample(const std::string& name, const std::map<std::string, int64_t>& overrides = {}) {
  std::string path = std::string(CUDABURG_EXAMPLES_DIR) + "/" + name;
  auto file = common::SourceFile::read(path);
  if (!file) return parseText("", overrides, path + ": " + file.reason());
  return parseText(file->text(), overrides, path);
}

// The For node whose index is `index` (depth-first), or null.
inline const Node* findLoop(const NodePtr& node, const std::string& index) {
  return findNode(*node, [&](const Node& n) { return n.kind == NodeKind::For && n.index == index; });
}

}  // namespace cudaburg::test
