#include "src/export/export_manifest.hpp"

#include <nlohmann/json.hpp>

#include "src/export/launcher_source.hpp"

namespace cudaburg {

std::string exportManifest(const ExportPlan& plan) {
  nlohmann::ordered_json j;
  j["library"] = plan.library;
  j["arch"] = plan.arch;
  j["compute_capability"] = std::to_string(plan.major) + "." + std::to_string(plan.minor);
  j["functions"] = nlohmann::ordered_json::array();
  for (const ExportedFunction& f : plan.functions) {
    nlohmann::ordered_json fj;
    fj["name"] = f.name;
    fj["header"] = "include/" + f.name + ".h";
    fj["loop_file"] = f.loopFile;
    fj["size_arguments"] = f.sizeArgs;
    fj["kernels"] = nlohmann::ordered_json::array();
    for (size_t i = 0; i < f.kernels.size(); ++i) {
      const TunedKernel& k = f.kernels[i];
      nlohmann::ordered_json kj;
      kj["sizes"] = k.key.sizes;
      kj["recipe"] = k.key.recipe;
      kj["ms"] = k.measurement.ms;
      kj["gpu"] = k.key.gpu;
      kj["compute_capability"] = k.key.computeCapability;
      kj["toolkit"] = k.key.toolkit;
      kj["precision"] = k.measurement.precision;
      kj["error"] = k.measurement.error;
      kj["bound"] = k.bound;
      kj["database"] = k.database;
      kj["namespace"] = kernelNamespace(f, i);
      kj["entry"] = k.cuda.entry;
      kj["launcher"] = launcherName(f, i);
      kj["grid"] = k.cuda.grid;
      kj["block"] = k.cuda.block;
      kj["dynamic_shared_bytes"] = k.cuda.dynamicSharedBytes;
      fj["kernels"].push_back(kj);
    }
    j["functions"].push_back(fj);
  }
  return j.dump(2) + "\n";
}

}  // namespace cudaburg
