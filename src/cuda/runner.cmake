# The GPU runner (included from this folder's CMakeLists.txt):
#   cudaburg_cuda_run_common  what the runner and the worker share; needs no GPU
#   cudaburg_cuda_run         the Runner the search calls: spawns and talks to the worker
#   cudaburg-worker           the process that loads, verifies and times kernels on the GPU
add_library(cudaburg_cuda_run_common STATIC
  inputs.cpp
  reference_check.cpp
  reference_shape.cpp
  timing.cpp
  worker_protocol.cpp
)
target_link_libraries(cudaburg_cuda_run_common PUBLIC cudaburg_loop_tree nlohmann_json::nlohmann_json)

add_executable(cudaburg-worker
  device.cpp
  launch.cpp
  reference_library.cpp
  timing_events.cpp
  worker_main.cpp
  worker_session.cpp
)
target_link_libraries(cudaburg-worker PRIVATE cudaburg_cuda_run_common CUDA::cuda_driver CUDA::cublas)
# cuDNN is optional: without it convolutions are checked against the FP64 nest.
find_path(CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS})
find_library(CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR})
if(CUDNN_INCLUDE_DIR AND CUDNN_LIBRARY)
  target_compile_definitions(cudaburg-worker PRIVATE CUDABURG_HAVE_CUDNN)
  target_include_directories(cudaburg-worker PRIVATE ${CUDNN_INCLUDE_DIR})
  target_link_libraries(cudaburg-worker PRIVATE ${CUDNN_LIBRARY})
else()
  message(STATUS "cuDNN not found: convolutions are checked against the FP64 reference only")
endif()

add_library(cudaburg_cuda_run STATIC
  runner.cpp
  worker_process.cpp
)
target_link_libraries(cudaburg_cuda_run PUBLIC cudaburg_cuda_run_common cudaburg_cuda_compile)
target_compile_definitions(cudaburg_cuda_run PRIVATE CUDABURG_WORKER_BUILD_PATH="$<TARGET_FILE:cudaburg-worker>")
# Whoever links the runner gets a worker to run.
add_dependencies(cudaburg_cuda_run cudaburg-worker)
