#include "src/tune/launcher.hpp"

#include <cstdlib>
#include <string>

namespace cudaburg::tune {

int launchedRanks() {
  // Open MPI's mpirun, MPICH's and Intel's PMI launchers, and srun (a job step's task count: a
  // batch script's own shell has SLURM_NTASKS but is no step).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"}) {
    const char* value = std::getenv(name);
    if (!value || !*value) continue;
    char* end = nullptr;
    long n = std::strtol(value, &end, 10);
    if (*end == '\0' && n > 0) return static_cast<int>(n);
  }
  return 0;
}

}  // namespace cudaburg::tune
