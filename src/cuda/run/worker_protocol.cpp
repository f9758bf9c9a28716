#include "src/cuda/run/worker_protocol.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

namespace cudaburg {

using nlohmann::json;

bool parseScalarType(const std::string& name, ScalarType& out) {
  for (ScalarType t : {ScalarType::Float, ScalarType::Double, ScalarType::Half, ScalarType::Int, ScalarType::BFloat16,
                       ScalarType::TF32}) {
    if (name == scalarTypeName(t)) {
      out = t;
      return true;
    }
  }
  return false;
}

namespace {

ScalarType typeFromJson(const json& j) {
  ScalarType t;
  if (!parseScalarType(j.get<std::string>(), t)) throw std::invalid_argument("unknown scalar type " + j.dump());
  return t;
}

const char* referenceKindName(ReferencePlan::Kind k) {
  switch (k) {
    case ReferencePlan::Kind::Gemm:
      return "gemm";
    case ReferencePlan::Kind::Conv:
      return "conv";
    case ReferencePlan::Kind::Exact:
      return "exact";
  }
  return "exact";
}

// The protocol's names of the activations; activationName's are for people.
const std::map<EpilogueShape::Activation, std::string> kActivationKeys = {
    {EpilogueShape::Activation::None, "none"},
    {EpilogueShape::Activation::Relu, "relu"},
    {EpilogueShape::Activation::GeluTanh, "gelu_tanh"},
    {EpilogueShape::Activation::GeluErf, "gelu_erf"}};

json epilogueToJson(const EpilogueShape& e) {
  return {{"output", e.output},
          {"output_type", scalarTypeName(e.outputType)},
          {"accumulator", scalarTypeName(e.accumulator)},
          {"scale", e.scale},
          {"shift", e.shift},
          {"channel", e.channel},
          {"shortcut", e.shortcut},
          {"activation", kActivationKeys.at(e.activation)}};
}

EpilogueShape epilogueFromJson(const json& j) {
  EpilogueShape e;
  e.output = j.at("output"), e.scale = j.at("scale"), e.shift = j.at("shift");
  e.channel = j.at("channel"), e.shortcut = j.at("shortcut");
  e.outputType = typeFromJson(j.at("output_type"));
  e.accumulator = typeFromJson(j.at("accumulator"));
  std::string activation = j.at("activation");
  bool known = false;
  for (const auto& [a, key] : kActivationKeys)
    if (key == activation) e.activation = a, known = true;
  if (!known) throw std::invalid_argument("unknown activation " + activation);
  return e;
}

}  // namespace

int64_t ArraySpec::elements() const {
  int64_t n = 1;
  for (int64_t e : extents) n *= e;
  return n;
}

json toJson(const TensorMapParam& m) {
  return {{"name", m.name},
          {"array", m.array},
          {"array_param", m.arrayParam},
          {"type", scalarTypeName(m.type)},
          {"dims", m.dims},
          {"strides", m.strides},
          {"box", m.box},
          {"swizzle", m.swizzleBytes}};
}

json toJson(const LaunchSpec& s) {
  json maps = json::array();
  for (const auto& m : s.tensorMaps) maps.push_back(toJson(m));
  return {{"cubin", s.cubinPath},
          {"entry", s.entry},
          {"grid", s.grid},
          {"block", s.block},
          {"dynamic_shared", s.dynamicSharedBytes},
          {"raise_shared_limit", s.raiseSharedLimit},
          {"tensor_maps", maps}};
}

json toJson(const ArraySpec& s) {
  return {{"name", s.name},
          {"type", scalarTypeName(s.type)},
          {"extents", s.extents},
          {"init", arrayInitName(s.init)},
          {"output", s.output}};
}

json toJson(const ReferenceSpec& s) {
  json j = {{"kind", referenceKindName(s.kind)}};
  if (s.kind == ReferencePlan::Kind::Gemm) {
    const GemmShape& g = s.gemm;
    j["gemm"] = {{"a", g.a},
                 {"b", g.b},
                 {"c", g.c},
                 {"m", g.m},
                 {"n", g.n},
                 {"k", g.k},
                 {"batch", g.batch},
                 {"a_transposed", g.aTransposed},
                 {"b_transposed", g.bTransposed},
                 {"lda", g.lda},
                 {"ldb", g.ldb},
                 {"ldc", g.ldc},
                 {"stride_a", g.strideA},
                 {"stride_b", g.strideB},
                 {"stride_c", g.strideC},
                 {"operands", scalarTypeName(g.operands)}};
    if (!g.epilogue.empty()) {
      j["gemm"]["epilogue"] = epilogueToJson(g.epilogue);
      j["gemm"]["epilogue_along_columns"] = g.epilogueAlongColumns;
    }
  } else if (s.kind == ReferencePlan::Kind::Conv) {
    const ConvShape& c = s.conv;
    j["conv"] = {{"input", c.input},
                 {"weight", c.weight},
                 {"output", c.output},
                 {"channels_last", c.layout == ConvShape::Layout::ChannelsLast},
                 {"n", c.n},
                 {"c", c.c},
                 {"k", c.k},
                 {"groups", c.groups},
                 {"in", c.in},
                 {"filter", c.filter},
                 {"out", c.out},
                 {"pad", c.pad},
                 {"stride", c.stride},
                 {"dilation", c.dilation},
                 {"operands", scalarTypeName(c.operands)}};
    if (!c.epilogue.empty()) j["conv"]["epilogue"] = epilogueToJson(c.epilogue);
  }
  if (!s.exact.entry.empty()) {
    j["kernel"] = toJson(s.exact);
    json types = json::array();
    for (ScalarType t : s.exactTypes) types.push_back(scalarTypeName(t));
    j["types"] = types;
  }
  return j;
}

json toJson(const MeasureRequest& r) {
  json arrays = json::array();
  for (const auto& a : r.arrays) arrays.push_back(toJson(a));
  return {{"op", "measure"},
          {"variant", toJson(r.variant)},
          {"arrays", arrays},
          {"reference", toJson(r.reference)},
          {"checks", r.checksCubin},
          {"seed", r.seed},
          {"tolerance", r.tolerance},
          {"winograd", r.winograd},
          {"verify", r.verify},
          {"time", r.time},
          {"warmup_runs", r.warmupRuns},
          {"min_runs", r.runs.minRuns},
          {"max_runs", r.runs.maxRuns},
          {"min_total_ms", r.runs.minTotalMs},
          {"max_total_ms", r.runs.maxTotalMs},
          {"race_against_ms", r.runs.raceAgainstMs},
          {"race_factor", r.runs.raceFactor}};
}

json toJson(const MeasureReply& r) {
  // JSON has no infinity: an unbounded error (non-finite output) travels as null.
  auto finite = [](double e) { return std::isfinite(e) ? json(e) : json(nullptr); };
  return {{"status", runStatusName(r.status)},
          {"reason", r.reason},
          {"error", finite(r.error)},
          {"library_error", finite(r.libraryError)},
          {"ms", r.ms},
          {"runs", r.runs},
          {"fatal", r.fatal},
          {"algorithm", r.algorithm}};
}

LaunchSpec launchSpecFromJson(const json& j) {
  LaunchSpec s;
  s.cubinPath = j.at("cubin").get<std::string>();
  s.entry = j.at("entry").get<std::string>();
  s.grid = j.at("grid").get<std::array<unsigned, 3>>();
  s.block = j.at("block").get<std::array<unsigned, 3>>();
  s.dynamicSharedBytes = j.at("dynamic_shared").get<size_t>();
  s.raiseSharedLimit = j.at("raise_shared_limit").get<bool>();
  if (j.contains("tensor_maps"))
    for (const json& m : j.at("tensor_maps")) s.tensorMaps.push_back(tensorMapFromJson(m));
  return s;
}

TensorMapParam tensorMapFromJson(const json& j) {
  TensorMapParam m;
  m.name = j.at("name").get<std::string>();
  m.array = j.at("array").get<std::string>();
  m.arrayParam = j.at("array_param").get<size_t>();
  m.type = typeFromJson(j.at("type"));
  m.dims = j.at("dims").get<std::vector<int64_t>>();
  m.strides = j.at("strides").get<std::vector<int64_t>>();
  m.box = j.at("box").get<std::vector<int64_t>>();
  m.swizzleBytes = j.at("swizzle").get<int>();
  if (m.dims.empty() || m.box.size() != m.dims.size() || m.strides.size() + 1 != m.dims.size())
    throw std::invalid_argument("tensor map " + m.name + ": its dims, strides and box disagree");
  return m;
}

ArraySpec arraySpecFromJson(const json& j) {
  ArraySpec s;
  s.name = j.at("name").get<std::string>();
  s.type = typeFromJson(j.at("type"));
  s.extents = j.at("extents").get<std::vector<int64_t>>();
  if (!parseArrayInit(j.at("init").get<std::string>(), s.init))
    throw std::invalid_argument("unknown array init " + j.at("init").dump());
  s.output = j.at("output").get<bool>();
  return s;
}

ReferenceSpec referenceSpecFromJson(const json& j) {
  ReferenceSpec s;
  std::string kind = j.at("kind").get<std::string>();
  if (kind == "gemm") {
    s.kind = ReferencePlan::Kind::Gemm;
    const json& g = j.at("gemm");
    GemmShape& o = s.gemm;
    o.a = g.at("a"), o.b = g.at("b"), o.c = g.at("c");
    o.m = g.at("m"), o.n = g.at("n"), o.k = g.at("k"), o.batch = g.at("batch");
    o.aTransposed = g.at("a_transposed"), o.bTransposed = g.at("b_transposed");
    o.lda = g.at("lda"), o.ldb = g.at("ldb"), o.ldc = g.at("ldc");
    o.strideA = g.at("stride_a"), o.strideB = g.at("stride_b"), o.strideC = g.at("stride_c");
    if (g.contains("operands")) o.operands = typeFromJson(g.at("operands"));
    if (g.contains("epilogue")) {
      o.epilogue = epilogueFromJson(g.at("epilogue"));
      o.epilogueAlongColumns = g.at("epilogue_along_columns");
    }
  } else if (kind == "conv") {
    s.kind = ReferencePlan::Kind::Conv;
    const json& c = j.at("conv");
    ConvShape& o = s.conv;
    o.input = c.at("input"), o.weight = c.at("weight"), o.output = c.at("output");
    o.layout = c.at("channels_last").get<bool>() ? ConvShape::Layout::ChannelsLast : ConvShape::Layout::ChannelsFirst;
    o.n = c.at("n"), o.c = c.at("c"), o.k = c.at("k"), o.groups = c.at("groups");
    using Extents = std::vector<int64_t>;
    o.in = c.at("in").get<Extents>(), o.filter = c.at("filter").get<Extents>(), o.out = c.at("out").get<Extents>();
    o.pad = c.at("pad").get<Extents>(), o.stride = c.at("stride").get<Extents>();
    o.dilation = c.at("dilation").get<Extents>();
    if (c.contains("operands")) o.operands = typeFromJson(c.at("operands"));
    if (c.contains("epilogue")) o.epilogue = epilogueFromJson(c.at("epilogue"));
  } else if (kind == "exact") {
    s.kind = ReferencePlan::Kind::Exact;
  } else {
    throw std::invalid_argument("unknown reference kind " + kind);
  }
  if (j.contains("kernel")) {
    s.exact = launchSpecFromJson(j.at("kernel"));
    for (const auto& t : j.at("types")) s.exactTypes.push_back(typeFromJson(t));
  }
  return s;
}

MeasureRequest measureRequestFromJson(const json& j) {
  MeasureRequest r;
  if (j.contains("variant")) r.variant = launchSpecFromJson(j.at("variant"));
  for (const auto& a : j.at("arrays")) r.arrays.push_back(arraySpecFromJson(a));
  r.reference = referenceSpecFromJson(j.at("reference"));
  r.checksCubin = j.value("checks", std::string());
  r.seed = j.value("seed", uint64_t(1));
  r.tolerance = j.value("tolerance", 1e-4);
  r.winograd = j.value("winograd", false);
  r.verify = j.value("verify", true);
  r.time = j.value("time", true);
  r.warmupRuns = j.value("warmup_runs", 3);
  r.runs.minRuns = j.value("min_runs", r.runs.minRuns);
  r.runs.maxRuns = j.value("max_runs", r.runs.maxRuns);
  r.runs.minTotalMs = j.value("min_total_ms", r.runs.minTotalMs);
  r.runs.maxTotalMs = j.value("max_total_ms", r.runs.maxTotalMs);
  r.runs.raceAgainstMs = j.value("race_against_ms", r.runs.raceAgainstMs);
  r.runs.raceFactor = j.value("race_factor", r.runs.raceFactor);
  return r;
}

MeasureReply measureReplyFromJson(const json& j) {
  MeasureReply r;
  std::string status = j.at("status").get<std::string>();
  auto known = runStatusFromName(status);
  if (!known) throw std::invalid_argument("unknown status '" + status + "'");
  r.status = *known;
  r.reason = j.value("reason", "");
  auto error = [&](const char* key) {
    return !j.contains(key) ? -1.0 : j.at(key).is_null() ? INFINITY : j.at(key).get<double>();
  };
  r.error = error("error");
  r.libraryError = error("library_error");
  r.ms = j.value("ms", -1.0);
  r.runs = j.value("runs", 0);
  r.algorithm = j.value("algorithm", "");
  r.fatal = j.value("fatal", false);
  return r;
}

}  // namespace cudaburg
