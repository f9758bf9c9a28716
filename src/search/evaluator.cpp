#include "src/search/evaluator.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <future>

#include "common/result.hpp"
#include "src/loop/printer.hpp"

namespace cudaburg {

struct Evaluator::Prepared {
  std::string recipeLine;
  common::Reason reason;  // set when the recipe or the emitter refused it
  std::optional<CudaKernel> cuda;
  std::future<std::optional<CompileResult>> compiling;  // nullopt: not started, for the budget
  std::optional<CompileResult> binary;
};

// What the compilations on the pool share with the search: a compilation that could not end
// within the budget (it would take as long as the longest so far) is not started once a variant
// has been measured, so that the search does not wait for it at its end. Shared, because the
// pool's threads may outlive the evaluator's other members.
struct Evaluator::CompileBudget {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::atomic<int64_t> longestNs{0};
  std::atomic<bool> verifiedOne{false};

  // Until a variant is verified the budget stops nothing (see Evaluator::outOfBudget).
  bool wouldOverrun() const {
    return verifiedOne && std::chrono::steady_clock::now() + std::chrono::nanoseconds(longestNs.load()) >= deadline;
  }
  void took(std::chrono::steady_clock::duration d) {
    int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(d).count();
    for (int64_t seen = longestNs.load(); ns > seen && !longestNs.compare_exchange_weak(seen, ns);) {
    }
  }
};

std::string textHash(const std::string& text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string sizesText(const Kernel& k) {
  std::string s;
  for (const auto& [name, value] : k.sizes) s += (s.empty() ? "" : ",") + name + "=" + std::to_string(value);
  return s;
}

namespace {

// "NVIDIA H200 (sm_90)" -> name "NVIDIA H200", capability "9.0".
void splitDevice(const std::string& described, std::string& name, std::string& capability) {
  name = described;
  capability.clear();
  size_t open = described.rfind(" (sm_");
  if (open == std::string::npos) return;
  name = described.substr(0, open);
  std::string digits = described.substr(open + 5, described.size() - open - 6);
  if (digits.size() >= 2) capability = digits.substr(0, digits.size() - 1) + "." + digits.substr(digits.size() - 1);
}

}  // namespace

Evaluator::Evaluator(const Kernel& kernel, EvaluatorOptions options, Runner* runner, TuningDb* db, Progress& progress)
    : kernel_(kernel),
      options_(std::move(options)),
      runner_(runner),
      db_(db),
      progress_(progress),
      pool_(std::make_unique<ThreadPool>()),
      compileBudget_(std::make_shared<CompileBudget>()),
      started_(options_.started) {
  if (options_.budget.count() > 0) deadline_ = compileBudget_->deadline = started_ + options_.budget;
  nestKey_ = textHash(printKernel(kernel));
  outcome_.kernelName = kernel.name;
  outcome_.loopFile = kernel.sourceName;
  outcome_.sizes = sizesText(kernel);
  outcome_.toolkit = "CUDA " + nvrtcVersionString();
  outcome_.precision = precisionName(options_.measure.precision);
  outcome_.gpuAvailable = runner_ && runner_->available();
  outcome_.device = runner_ ? runner_->device() : "no GPU";
  if (options_.replay) {
    auto device = db_ ? db_->mostMeasuredDevice(nestKey_, outcome_.sizes) : std::nullopt;
    outcome_.gpuAvailable = device.has_value();
    if (device) {
      gpuName_ = device->gpu;
      computeCapability_ = device->computeCapability;
      driver_ = device->driver;
      options_.compile.arch = device->arch;
      outcome_.toolkit = device->toolkit;
      outcome_.device = gpuName_ + " (replayed from the tuning database)";
    } else {
      outcome_.device = "no GPU";
      outcome_.notMeasuredReason = "the tuning database holds no measurement of this nest at these sizes";
    }
  } else if (outcome_.gpuAvailable) {
    splitDevice(outcome_.device, gpuName_, computeCapability_);
    driver_ = runner_->driver();
  } else {
    outcome_.notMeasuredReason = runner_ ? runner_->device() : "no GPU runner";
  }
}

Evaluator::~Evaluator() = default;

bool Evaluator::outOfBudget() const {
  if (options_.maxMeasured > 0 && measured_ >= options_.maxMeasured) return true;
  if (options_.budget.count() == 0) return false;
  // A measurement that could not end within the budget (it would take as long as the longest so
  // far) is not started; but until a variant is verified the search goes on, past its budget by
  // once the budget at most: a search with an answer is worth more than one on time with none
  // (the first kernels may be slow to compile).
  auto now = std::chrono::steady_clock::now();
  if (fastestMs_ == 0 && outcome_.gpuAvailable && !options_.replay) return now >= deadline_ + options_.budget;
  return now + longestMeasurement_ >= deadline_;
}

void Evaluator::reserve(std::chrono::steady_clock::duration time) {
  if (options_.budget.count() == 0) return;
  deadline_ = compileBudget_->deadline =
      started_ + options_.budget - std::min<std::chrono::steady_clock::duration>(time, options_.budget / 2);
}

MeasurementKey Evaluator::keyFor(const std::string& recipeLine) const {
  return {nestKey_, outcome_.sizes,        recipeLine,      gpuName_, computeCapability_,
          driver_,  options_.compile.arch, outcome_.toolkit};
}

const CudaKernel* Evaluator::kernelFor(const std::string& recipeLine) const {
  for (const auto& p : kept_)
    if (p->recipeLine == recipeLine && p->cuda) return &*p->cuda;
  return nullptr;
}

const CompileResult* Evaluator::binaryFor(const std::string& recipeLine) const {
  for (const auto& p : kept_)
    if (p->recipeLine == recipeLine && p->binary) return &*p->binary;
  return nullptr;
}

std::optional<double> Evaluator::evaluate(const std::vector<Candidate>& candidates) {
  // Apply and emit in order, then compile them all ahead of measurement on the pool.
  std::vector<Prepared*> batch;
  progress_.expect(candidates.size());
  for (const auto& c : candidates) {
    auto p = std::make_unique<Prepared>();
    p->recipeLine = printRecipeLine(c.recipe);
    if (!options_.replay) {  // a replay compiles and runs nothing: the database answers
      TransformResult applied = applyRecipe(kernel_, c.recipe);
      if (!applied) {
        p->reason = applied.reason;
      } else {
        EmitOptions emit;
        emit.recipe = printRecipe(c.recipe);
        EmitResult emitted = emitKernel(*applied.kernel, emit);
        if (!emitted.ok())
          p->reason = "the emitter refused it: " + emitted.reason;
        else
          p->cuda = std::move(emitted.kernel);
      }
    }
    if (p->cuda) {
      CudaKernel cuda = *p->cuda;
      CompileOptions copts = options_.compile;
      copts.allowSpills = copts.allowSpills || cuda.limitsRegisters;
      std::shared_ptr<CompileBudget> budget = compileBudget_;
      p->compiling = pool_->submit([cuda, copts, budget]() -> std::optional<CompileResult> {
        if (budget->wouldOverrun()) return std::nullopt;
        auto start = std::chrono::steady_clock::now();
        CompileResult r = compile(cuda, copts);
        budget->took(std::chrono::steady_clock::now() - start);
        return r;
      });
    }
    batch.push_back(p.get());
    kept_.push_back(std::move(p));
  }

  std::optional<double> best;
  for (size_t i = 0; i < candidates.size(); ++i) {
    Prepared& p = *batch[i];
    VariantResult v;
    v.recipe = printRecipe(candidates[i].recipe);
    v.cover = candidates[i].cover;
    v.modelCost = candidates[i].model;
    // No time is left to measure it, or its compilation (queued behind others) would not end
    // within the budget (the compilations not started are dropped rather than waited for), or
    // was not started for it.
    auto budgetSpent = [&] {
      v.result.status = RunStatus::NotMeasured;
      v.result.reason = "the budget was spent before it was reached";
      progress_.skipped();
      outcome_.variants.push_back(std::move(v));
    };
    if (p.cuda && outcome_.gpuAvailable && (outOfBudget() || !compiledWithinBudget(p))) {
      pool_->dropQueued();
      budgetSpent();
      continue;
    }
    if (p.cuda) {
      std::optional<CompileResult> compiled = p.compiling.get();
      if (!compiled) {
        budgetSpent();
        continue;
      }
      p.binary = std::move(compiled);
      ++outcome_.compiled;
      progress_.compiled();
      v.result.registers = p.binary->resources.registers;
      v.result.sharedBytes = static_cast<int>(p.cuda->sharedBytes);
      if (!p.binary->ok) p.reason = p.binary->reason.empty() ? "failed to compile" : p.binary->reason;
    }
    if (!p.reason.empty()) {
      v.result.status = RunStatus::Refused;
      v.result.reason = p.reason;
      progress_.refused();
    } else {
      measureOne(p, v);
      if (v.measured && v.result.status == RunStatus::Ok && (!best || v.result.ms < *best)) best = v.result.ms;
      if (v.measured)
        progress_.measured(v.result.status == RunStatus::Ok, best.value_or(-1));
      else
        progress_.skipped();
    }
    outcome_.variants.push_back(std::move(v));
  }
  return best;
}

bool Evaluator::answers(const std::string& recipeLine) const {
  return !options_.replay || (db_ && outcome_.gpuAvailable && db_->find(keyFor(recipeLine)).has_value());
}

bool Evaluator::compiledWithinBudget(Prepared& p) const {
  // Until one variant is verified, wait: a search that verified nothing would have no answer.
  if (options_.budget.count() == 0 || fastestMs_ == 0) return true;
  return p.compiling.wait_until(deadline_) == std::future_status::ready;
}

void Evaluator::noteFastest(const Measurement& m) {
  if (m.status == RunStatus::Ok && m.ms > 0 && (fastestMs_ == 0 || m.ms < fastestMs_)) fastestMs_ = m.ms;
  if (fastestMs_ > 0) compileBudget_->verifiedOne = true;
}

void Evaluator::measureOne(Prepared& p, VariantResult& v) {
  v.result.status = RunStatus::NotMeasured;
  if (!outcome_.gpuAvailable) return;
  MeasurementKey key = keyFor(p.recipeLine);
  if (outOfBudget()) {
    v.result.reason = "the budget was spent before it was reached";
    return;
  }
  ++measured_;
  if (db_) {
    // A row verified under another contract (or before there was one) is measured again; a replay
    // answers with what was stored.
    auto stored = db_->find(key);
    if (stored && (options_.replay || stored->precision == precisionName(options_.measure.precision))) {
      v.measured = true;
      v.fromDatabase = true;
      v.result = *stored;
      noteFastest(v.result);
      return;
    }
  }
  if (options_.replay) {
    v.result.reason = "not in the tuning database";
    return;
  }
  auto measuring = std::chrono::steady_clock::now();
  MeasureOptions racing = options_.measure;
  racing.runs.raceAgainstMs = fastestMs_;
  RunResult r = runner_->measure(kernel_, *p.cuda, *p.binary, racing);
  // The first measurement also starts the worker, makes the inputs, the exact outputs and times the
  // library: seconds that no later one takes, so it does not say how long a measurement lasts.
  if (timedOne_) longestMeasurement_ = std::max(longestMeasurement_, std::chrono::steady_clock::now() - measuring);
  timedOne_ = true;
  if (r.status == RunStatus::NotMeasured) {
    v.result.reason = r.reason;
    return;
  }
  v.measured = true;
  v.result.status = r.status;
  v.result.reason = r.reason;
  v.result.ms = r.ms;
  v.result.tflops = r.tflops;
  v.result.gbps = r.gbps;
  v.result.error = r.error;
  v.result.libraryError = r.libraryError;
  v.result.precision = precisionName(options_.measure.precision);
  noteFastest(v.result);
  if (db_) {
    std::string error;
    // One warning: a database that refuses one row (a full disk, a lock) refuses the next ones too.
    if (!db_->store(key, v.result, error) && !storeFailed_) {
      progress_.warn(error + "; later measurements may not be kept either");
      storeFailed_ = true;
    }
  }
}

}  // namespace cudaburg
