#pragma once
// What became of a variant that was to be measured. The tuning database, the worker's messages
// and report.json keep it as text ("ok", "wrong", ...), written and read by this one pair.
#include <optional>
#include <string_view>

namespace cudaburg {

enum class RunStatus {
  Ok,           // verified against the reference, then timed
  Wrong,        // ran, but its output is not the reference's
  Failed,       // did not run to its end (a launch error, a fault, a lost worker)
  Timeout,      // ran past its deadline: the worker was stopped
  Refused,      // never run: illegal, over a launch limit, or failed to compile
  NotMeasured,  // not run: no GPU, the budget spent, or not in the database replayed
};

// "ok", "wrong", "failed", "timeout", "refused", "not measured".
const char* runStatusName(RunStatus s);
// The status whose name is `name`; nullopt for any other text.
std::optional<RunStatus> runStatusFromName(std::string_view name);

}  // namespace cudaburg
