#pragma once
// A disk cache of compiled kernels, keyed by a hash of the source, the compile options and the
// toolkit's version. Writers put a whole entry in a temporary file and rename it into place, so
// concurrent writers and readers never see half an entry; an entry that does not read back
// intact (truncated, overwritten, another format) counts as a miss.
#include <optional>
#include <string>
#include <vector>

namespace cudaburg {

struct CachedCompilation {
  std::vector<char> cubin;
  std::string ptx;
  std::string log;  // the program log, with ptxas's report
};

class CompileCache {
 public:
  explicit CompileCache(std::string directory) : directory_(std::move(directory)) {}

  // $CUDABURG_CACHE, else $XDG_CACHE_HOME/cudaburg, else $HOME/.cache/cudaburg, else a folder under the
  // temporary folder.
  static std::string defaultDirectory();
  // 32 hex digits (FNV-1a, 128 bits) over the three strings, each with its length.
  static std::string key(const std::string& source, const std::string& options, const std::string& toolkit);

  std::optional<CachedCompilation> load(const std::string& key) const;
  // Returns false (and leaves no file behind) when the entry cannot be written.
  bool store(const std::string& key, const CachedCompilation& entry) const;

  std::string pathOf(const std::string& key) const { return directory_ + "/" + key + ".kernel"; }
  const std::string& directory() const { return directory_; }

 private:
  std::string directory_;
};

}  // namespace cudaburg
