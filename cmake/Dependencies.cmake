# Finds every dependency and stops with one clear message naming what is missing
# and the Debian package that provides it.

set(_cudaburg_missing "")

macro(cudaburg_require found what debian_package)
  if(NOT ${found})
    list(APPEND _cudaburg_missing "${what} (Debian package: ${debian_package})")
  endif()
endmacro()

find_program(RE2C_EXECUTABLE re2c)
# A machine without re2c may build from lexers generated elsewhere (see scripts/pregenerate).
set(CUDABURG_PREGENERATED_DIR "" CACHE PATH "Folder of re2c outputs generated on another machine")
if(NOT RE2C_EXECUTABLE AND CUDABURG_PREGENERATED_DIR STREQUAL "")
  list(APPEND _cudaburg_missing "re2c (Debian package: re2c)")
endif()

find_package(Boost 1.74 QUIET)
if(Boost_FOUND AND NOT EXISTS "${Boost_INCLUDE_DIRS}/boost/graph/adjacency_list.hpp")
  set(Boost_FOUND FALSE)
endif()
cudaburg_require(Boost_FOUND "Boost.Graph" libboost-graph-dev)

find_package(spdlog QUIET)
cudaburg_require(spdlog_FOUND "spdlog" libspdlog-dev)

find_package(CLI11 QUIET)
cudaburg_require(CLI11_FOUND "CLI11" libcli11-dev)

find_package(nlohmann_json QUIET)
cudaburg_require(nlohmann_json_FOUND "nlohmann-json" nlohmann-json3-dev)

find_package(SQLite3 QUIET)
cudaburg_require(SQLite3_FOUND "SQLite3" libsqlite3-dev)

find_package(GTest QUIET)
cudaburg_require(GTest_FOUND "GoogleTest" libgtest-dev)

find_package(benchmark QUIET)
cudaburg_require(benchmark_FOUND "Google Benchmark" libbenchmark-dev)

find_package(CUDAToolkit QUIET)
if(CUDAToolkit_FOUND AND NOT TARGET CUDA::nvrtc)
  set(CUDAToolkit_FOUND FALSE)
endif()
cudaburg_require(CUDAToolkit_FOUND "the CUDA toolkit with NVRTC (set CUDAToolkit_ROOT, default /usr/local/cuda)" "NVIDIA's cuda-toolkit")

# MPI, for `mpirun -np R cudaburg tune` across hosts: optional. AUTO builds it when Open MPI's
# development files are there, ON requires them, OFF leaves it out.
set(CUDABURG_MPI AUTO CACHE STRING "Build tuning across MPI ranks: AUTO, ON or OFF")
set_property(CACHE CUDABURG_MPI PROPERTY STRINGS AUTO ON OFF)
set(CUDABURG_WITH_MPI FALSE)
if(NOT CUDABURG_MPI STREQUAL "OFF")
  find_package(MPI QUIET COMPONENTS CXX)
  if(MPI_CXX_FOUND)
    set(CUDABURG_WITH_MPI TRUE)
    find_program(MPIRUN_EXECUTABLE NAMES mpirun mpiexec HINTS ${MPI_HOME}/bin)
  elseif(CUDABURG_MPI STREQUAL "ON")
    list(APPEND _cudaburg_missing "MPI for CUDABURG_MPI=ON (Debian packages: libopenmpi-dev openmpi-bin)")
  endif()
endif()

if(_cudaburg_missing)
  list(JOIN _cudaburg_missing "\n  " _list)
  message(FATAL_ERROR "cudaburg cannot be built; missing:\n  ${_list}\nRun scripts/setup to install the Debian packages.")
endif()

# re2c_lexer(<target> <input.re> <output.cpp>): generate a lexer at build time.
function(re2c_lexer input output)
  if(RE2C_EXECUTABLE)
    add_custom_command(OUTPUT ${output}
      COMMAND ${RE2C_EXECUTABLE} -W --no-generation-date -o ${output} ${input}
      DEPENDS ${input}
      COMMENT "re2c ${input}")
  else()
    # scripts/pregenerate names each output after its lexer's path in the source tree.
    file(RELATIVE_PATH lexer ${PROJECT_SOURCE_DIR} ${input})
    string(REGEX REPLACE "\\.re$" ".cpp" pregenerated ${lexer})
    configure_file(${CUDABURG_PREGENERATED_DIR}/${pregenerated} ${output} COPYONLY)
  endif()
endfunction()
