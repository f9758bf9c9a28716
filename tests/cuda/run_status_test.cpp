// The statuses of a variant and their names, which the tuning database, the worker's messages and
// report.json keep: the names are stored text and must not change.
#include <gtest/gtest.h>

#include "src/cuda/run/run_status.hpp"

namespace cudaburg {
namespace {

constexpr RunStatus kAll[] = {RunStatus::Ok,      RunStatus::Wrong,   RunStatus::Failed,
                              RunStatus::Timeout, RunStatus::Refused, RunStatus::NotMeasured};

TEST(RunStatusNames, AreTheStoredText) {
  EXPECT_STREQ(runStatusName(RunStatus::Ok), "ok");
  EXPECT_STREQ(runStatusName(RunStatus::Wrong), "wrong");
  EXPECT_STREQ(runStatusName(RunStatus::Failed), "failed");
  EXPECT_STREQ(runStatusName(RunStatus::Timeout), "timeout");
  EXPECT_STREQ(runStatusName(RunStatus::Refused), "refused");
  EXPECT_STREQ(runStatusName(RunStatus::NotMeasured), "not measured");
}

TEST(RunStatusNames, ReadBackAsTheirStatus) {
  for (RunStatus s : kAll) {
    auto back = runStatusFromName(runStatusName(s));
    ASSERT_TRUE(back) << runStatusName(s);
    EXPECT_EQ(*back, s);
  }
}

TEST(RunStatusNames, OtherTextIsNoStatus) {
  for (const char* text : {"", "OK", "ok ", "not_measured", "great"}) EXPECT_FALSE(runStatusFromName(text)) << text;
}

}  // namespace
}  // namespace cudaburg
