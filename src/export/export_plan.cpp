#include "src/export/export_plan.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <set>

namespace cudaburg {

namespace {

bool sameArrays(const std::vector<Array>& a, const std::vector<Array>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].input != b[i].input ||
        a[i].extents.size() != b[i].extents.size())
      return false;
  return true;
}

// The sizes any of the function's problems named with -D, in the .loop's order.
std::vector<std::string> definedSizes(const ExportedFunction& f) {
  std::set<std::string> named;
  for (const TunedKernel& k : f.kernels) named.insert(k.defined.begin(), k.defined.end());
  std::vector<std::string> args;
  for (const auto& [name, value] : f.kernels.front().nest.sizes)
    if (named.count(name)) args.push_back(name);
  return args;
}

bool identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

int64_t sizeValue(const Kernel& k, const std::string& name) {
  for (const auto& [n, v] : k.sizes)
    if (n == name) return v;
  return 0;
}

std::string sizeSetText(const ExportedFunction& f, const TunedKernel& k) {
  if (f.sizeArgs.empty()) return k.key.sizes;
  std::string s;
  for (const std::string& n : f.sizeArgs) s += (s.empty() ? "" : ",") + n + "=" + std::to_string(sizeValue(k.nest, n));
  return s;
}

std::optional<ExportPlan> planExport(std::vector<TunedKernel> kernels, const std::string& library, std::string& error) {
  ExportPlan plan;
  for (TunedKernel& k : kernels) {
    auto f = std::find_if(plan.functions.begin(), plan.functions.end(),
                          [&](const ExportedFunction& g) { return g.name == k.nest.name; });
    if (f == plan.functions.end()) {
      plan.functions.push_back({k.nest.name, k.nest.params, {}, {}, k.nest.sourceName});
      f = plan.functions.end() - 1;
    } else if (f->loopFile != k.nest.sourceName || !sameArrays(f->arrays, k.nest.params)) {
      // One function runs one nest at several sizes: not two nests that share a name.
      error = "two problems define a kernel '" + k.nest.name + "' differently (" + f->loopFile + " and " +
              k.nest.sourceName + "); export them separately";
      return std::nullopt;
    }
    for (const TunedKernel& other : f->kernels)
      if (other.key.sizes == k.key.sizes && other.key.nest == k.key.nest) {
        error = "the problem '" + problemText(k.problem) + "' is given twice";
        return std::nullopt;
      }
    f->kernels.push_back(std::move(k));
  }
  for (ExportedFunction& f : plan.functions) {
    if (f.kernels.size() > 1) f.sizeArgs = definedSizes(f);
    std::set<std::string> sets;
    for (const TunedKernel& k : f.kernels)
      if (!sets.insert(sizeSetText(f, k)).second) {
        // Same -D values, another nest: the .loop files differ in more than their sizes.
        error = "two problems of kernel '" + f.name + "' have the same sizes " + sizeSetText(f, k) +
                " but different nests; export them separately";
        return std::nullopt;
      }
    for (size_t i = 0; i < f.kernels.size(); ++i) {
      TunedKernel& k = f.kernels[i];
      if (!rebuildKernel(k, f.name + "_kernel_" + std::to_string(i), error)) return std::nullopt;
      plan.usesTensorMaps = plan.usesTensorMaps || !k.cuda.tensorMaps.empty();
      std::string arch = k.cuda.requiredArch.empty() ? k.key.arch : k.cuda.requiredArch;
      std::string base = arch.back() == 'a' ? arch.substr(0, arch.size() - 1) : arch;
      std::string planBase =
          plan.arch.empty() || plan.arch.back() != 'a' ? plan.arch : plan.arch.substr(0, plan.arch.size() - 1);
      if (!plan.arch.empty() && planBase != base) {
        error = "the kernels were tuned for different GPUs (" + plan.arch + " and " + arch +
                "); export each GPU's with --gpu into a library of its own";
        return std::nullopt;
      }
      if (plan.arch.empty() || arch.back() == 'a') plan.arch = arch;
      if (std::sscanf(k.key.computeCapability.c_str(), "%d.%d", &plan.major, &plan.minor) != 2) {
        error = "the row of " + f.name + " at " + k.key.sizes + " names no compute capability ('" +
                k.key.computeCapability + "')";
        return std::nullopt;
      }
    }
  }
  plan.library = library;
  if (plan.library.empty())
    plan.library = plan.functions.size() == 1 ? plan.functions.front().name : "cudaburg_kernels";
  if (!identifier(plan.library)) {
    error = "--library: '" + plan.library + "' is not a C identifier";
    return std::nullopt;
  }
  return plan;
}

}  // namespace cudaburg
