#pragma once
// Whether this process was started as one of several by an MPI launcher (mpirun, mpiexec or
// Slurm's srun), read from the environment they set, so that it can be known without MPI.
namespace cudaburg::tune {

// The number of processes the launcher started together, or 0 when none started this one.
int launchedRanks();

}  // namespace cudaburg::tune
