# The GPU runner's tests (included from this folder's CMakeLists.txt). run_* need no GPU; gpu_*
# carry the label "gpu".
add_executable(cuda_run_tests
  run_column_major_gemm_test.cpp
  run_epilogue_shape_test.cpp
  run_fused_reference_test.cpp
  run_gemm_epilogue_test.cpp
  run_inputs_test.cpp
  run_no_gpu_test.cpp
  run_protocol_test.cpp
  run_reference_check_test.cpp
  run_reference_shape_test.cpp
  run_status_test.cpp
  run_timing_test.cpp
  run_worker_process_test.cpp
)
target_link_libraries(cuda_run_tests PRIVATE cudaburg_cuda_run cudaburg_loop GTest::gtest_main)
target_compile_definitions(cuda_run_tests PRIVATE CUDABURG_EXAMPLES_DIR="${PROJECT_SOURCE_DIR}/examples")
gtest_discover_tests(cuda_run_tests DISCOVERY_TIMEOUT 60)

add_executable(cuda_gpu_tests gpu_runner_test.cpp)
target_link_libraries(cuda_gpu_tests PRIVATE cudaburg_cuda_run cudaburg_transform cudaburg_loop GTest::gtest_main)
target_compile_definitions(cuda_gpu_tests PRIVATE CUDABURG_EXAMPLES_DIR="${PROJECT_SOURCE_DIR}/examples")
gtest_discover_tests(cuda_gpu_tests DISCOVERY_TIMEOUT 60 PROPERTIES LABELS gpu TIMEOUT 300)

# The table bench/gpu-check prints: examples under recipes, against the reference library.
add_executable(cudaburg-gpu-examples gpu_examples.cpp)
target_link_libraries(cudaburg-gpu-examples PRIVATE cudaburg_cuda_run cudaburg_transform cudaburg_loop)
