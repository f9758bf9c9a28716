#include "src/cuda/run/run_status.hpp"

namespace cudaburg {

const char* runStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "ok";
    case RunStatus::Wrong:
      return "wrong";
    case RunStatus::Failed:
      return "failed";
    case RunStatus::Timeout:
      return "timeout";
    case RunStatus::Refused:
      return "refused";
    case RunStatus::NotMeasured:
      return "not measured";
  }
  return "failed";
}

std::optional<RunStatus> runStatusFromName(std::string_view name) {
  for (RunStatus s : {RunStatus::Ok, RunStatus::Wrong, RunStatus::Failed, RunStatus::Timeout, RunStatus::Refused,
                      RunStatus::NotMeasured})
    if (name == runStatusName(s)) return s;
  return std::nullopt;
}

}  // namespace cudaburg
