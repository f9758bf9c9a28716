#pragma once
// A problem's row of the table and the tuning database's rows as text, for a rank that tuned a
// problem to send them to the rank that keeps the table and the database.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/tune/summary_table.hpp"
#include "src/tuning/tuning_db.hpp"

namespace cudaburg::tune {

using DbRows = std::vector<std::pair<MeasurementKey, Measurement>>;

std::string encodeRow(const Row& row);
std::optional<Row> decodeRow(const std::string& text);

std::string encodeDbRows(const DbRows& rows);
// nullopt when `text` is not what encodeDbRows writes (a row without its fields, an unknown status).
std::optional<DbRows> decodeDbRows(const std::string& text);

}  // namespace cudaburg::tune
