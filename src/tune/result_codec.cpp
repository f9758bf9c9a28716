#include "src/tune/result_codec.hpp"

#include <nlohmann/json.hpp>

namespace cudaburg::tune {

namespace {

using nlohmann::json;

// Text that may hold any bytes (a compiler's message) goes out as valid UTF-8.
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

std::string encodeRow(const Row& r) {
  return dump({{"name", r.name},
               {"line", r.line},
               {"repeats", r.repeats},
               {"ok", r.ok},
               {"ms", r.ms},
               {"library", r.library},
               {"libraryMs", r.libraryMs},
               {"wallSeconds", r.wallSeconds},
               {"gpu", r.gpu},
               {"detail", r.detail}});
}

std::optional<Row> decodeRow(const std::string& text) {
  try {
    json j = json::parse(text);
    Row r;
    r.name = j.at("name").get<std::string>();
    r.line = j.at("line").get<size_t>();
    r.repeats = j.at("repeats").get<std::vector<size_t>>();
    r.ok = j.at("ok").get<bool>();
    r.ms = j.at("ms").get<double>();
    r.library = j.at("library").get<std::string>();
    r.libraryMs = j.at("libraryMs").get<double>();
    r.wallSeconds = j.at("wallSeconds").get<double>();
    r.gpu = j.at("gpu").get<std::string>();
    r.detail = j.at("detail").get<std::string>();
    return r;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

std::string encodeDbRows(const DbRows& rows) {
  json all = json::array();
  for (const auto& [k, m] : rows)
    all.push_back({k.nest, k.sizes, k.recipe, k.gpu, k.computeCapability, k.driver, k.arch, k.toolkit,
                   runStatusName(m.status), m.reason, m.ms, m.tflops, m.gbps, m.error, m.libraryError, m.precision,
                   m.registers, m.sharedBytes, m.measuredAt});
  return dump(all);
}

std::optional<DbRows> decodeDbRows(const std::string& text) {
  try {
    DbRows rows;
    for (const json& r : json::parse(text)) {
      MeasurementKey k{r.at(0), r.at(1), r.at(2), r.at(3), r.at(4), r.at(5), r.at(6), r.at(7)};
      auto status = runStatusFromName(r.at(8).get<std::string>());
      if (!status) return std::nullopt;
      Measurement m;
      m.status = *status;
      m.reason = r.at(9);
      m.ms = r.at(10);
      m.tflops = r.at(11);
      m.gbps = r.at(12);
      m.error = r.at(13);
      m.libraryError = r.at(14);
      m.precision = r.at(15);
      m.registers = r.at(16);
      m.sharedBytes = r.at(17);
      m.measuredAt = r.at(18);
      rows.emplace_back(std::move(k), std::move(m));
    }
    return rows;
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace cudaburg::tune
