#pragma once
// What cudaburg-worker does with each request: verify a variant against its reference on fresh
// random inputs, then time it; time a reference library. Every failure becomes a reply; a kernel
// fault that loses the CUDA context is marked fatal so that the worker exits and a fresh one
// takes over.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "src/cuda/run/worker_protocol.hpp"

namespace cudaburg {

class DeviceChecks;
class DeviceContext;
class ReferenceLibraries;
class L2Flusher;

class WorkerSession {
 public:
  // Opens the first GPU; without one the session answers every request "not measured".
  WorkerSession();
  ~WorkerSession();

  nlohmann::json hello() const;
  MeasureReply measure(const MeasureRequest& request);
  MeasureReply timeReference(const MeasureRequest& request);

 private:
  MeasureReply notMeasured() const;
  // The checking kernels of this path, loaded once and kept while requests name the same file.
  const DeviceChecks& checksFrom(const std::string& cubinPath);

  std::unique_ptr<DeviceContext> device_;
  std::unique_ptr<ReferenceLibraries> libraries_;
  std::unique_ptr<L2Flusher> flusher_;
  std::unique_ptr<DeviceChecks> checks_;
  std::string unavailable_;  // why there is no device
};

}  // namespace cudaburg
