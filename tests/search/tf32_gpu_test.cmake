# On a GPU with TF32 tensor cores: a float product searched under `--precision tf32` runs (the GPU's
# own tensor cores take TF32, whatever architecture the kernels are built for), its report says
# the mode, and the winner is verified against cuBLAS's own TF32 error and timed beside it.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CUDABURG} ${EXAMPLES}/matmul.loop -D M=512 -D N=512 -D K=512 --precision tf32 --budget 10s
                        -q --no-db -o ${WORK}/out
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "search under --precision tf32 failed (${status}):\n${out}\n${err}")
endif()
file(READ ${WORK}/out/report.json json)
string(JSON precision GET "${json}" precision)
if(NOT precision STREQUAL "tf32")
  message(FATAL_ERROR "report.json says precision '${precision}', not tf32")
endif()
string(JSON best GET "${json}" best)
string(JSON status GET "${json}" variants ${best} status)
if(NOT status STREQUAL "ok")
  message(FATAL_ERROR "the best variant's status is '${status}'")
endif()
string(JSON library GET "${json}" reference library)
message(STATUS "tf32 winner verified; reference: ${library}")
