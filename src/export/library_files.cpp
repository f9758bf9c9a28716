#include "src/export/library_files.hpp"

#include "src/export/cmake_package.hpp"
#include "src/export/export_manifest.hpp"
#include "src/export/launcher_source.hpp"
#include "src/export/library_header.hpp"
#include "src/export/torch_extension.hpp"

namespace cudaburg {

std::vector<std::pair<std::string, std::string>> libraryFiles(const ExportPlan& plan, bool torch) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const ExportedFunction& f : plan.functions) {
    files.push_back({"include/" + f.name + ".h", libraryHeader(plan, f)});
    files.push_back({"src/" + f.name + ".cu", launcherSource(plan, f)});
  }
  files.push_back({"CMakeLists.txt", cmakeLists(plan)});
  files.push_back({"cmake/" + plan.library + "Config.cmake", packageConfig(plan)});
  if (torch) {
    files.push_back({"torch/" + plan.library + "_torch.cpp", torchOperators(plan)});
    files.push_back({"torch/" + plan.library + ".py", torchLoader(plan)});
  }
  files.push_back({kExportManifest, exportManifest(plan)});
  return files;
}

}  // namespace cudaburg
