#pragma once
// What the ranks of a tuning run say to each other: a kind and a list of byte strings, framed
// into one buffer (each part's length, then its bytes) so that any bytes travel as they are.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudaburg::tune::mpi {

enum class Kind : int {
  Hello = 1,  // rank -> 0: its build and its GPU
  Welcome,    // 0 -> rank: the list's name and text, and the database's rows to start from
  Refuse,     // 0 -> rank: why it takes no part
  Task,       // 0 -> rank: the index of a problem of the list to tune
  Result,     // rank -> 0: a problem's index, its outcome, its measurements and its files
  Alive,      // either way, every second: still there
  Stop,       // 0 -> rank: nothing is left to do
};

struct Message {
  Kind kind;
  std::vector<std::string> parts;
};

std::string frame(const std::vector<std::string>& parts);
// The parts back, or nullopt when `bytes` is not a frame (cut short, or a length past its end).
std::optional<std::vector<std::string>> unframe(const std::string& bytes);

// The build this program is: its version and commit, the same on every rank of a run.
const char* buildId();

}  // namespace cudaburg::tune::mpi
