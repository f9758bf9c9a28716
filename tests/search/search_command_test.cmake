# cudaburg end to end on a small matmul: the outputs exist and say what was (or was not) timed;
# command-line mistakes get one sentence naming the flag and exit status 2.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

function(expect_failure status_expected needle)
  execute_process(COMMAND ${CUDABURG} ${ARGN} RESULT_VARIABLE status ERROR_VARIABLE err OUTPUT_VARIABLE out)
  if(NOT status EQUAL ${status_expected})
    message(FATAL_ERROR "cudaburg ${ARGN}: exit ${status}, expected ${status_expected}\n${err}")
  endif()
  string(FIND "${err}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "cudaburg ${ARGN}: expected '${needle}' in:\n${err}")
  endif()
endfunction()

expect_failure(2 "--tile: the lower bound is above the upper bound" ${EXAMPLES}/matmul.loop --tile 256..64)
expect_failure(2 "--unroll" ${EXAMPLES}/matmul.loop --unroll 3..3)
expect_failure(2 "--budget" ${EXAMPLES}/matmul.loop --budget 10x)
expect_failure(2 "--arch" ${EXAMPLES}/matmul.loop --arch turing)
# An architecture this CUDA's compiler no longer builds for (Pascal): one sentence, before the search.
expect_failure(2 "--arch sm_60: NVRTC" ${EXAMPLES}/matmul.loop --arch sm_60)
# A type the architecture cannot read (tf32 before sm_80): one sentence, before the search.
expect_failure(2 "--arch sm_75: `A` is tf32" ${EXAMPLES}/tf32gemm.loop --arch sm_75)
expect_failure(1 "cannot open" ${WORK}/missing.loop)
# An output folder where a file stands: said before the search, whose results would be lost.
file(WRITE ${WORK}/a-file "")
expect_failure(2 "'${WORK}/a-file' is a file, not a folder" ${EXAMPLES}/matmul.loop -o ${WORK}/a-file/out)

execute_process(COMMAND ${CUDABURG} ${EXAMPLES}/matmul.loop -D M=96 -D N=80 -D K=64 --tile 32 --unroll 2
                        --stage 8 --split 2 -q --db ${WORK}/tuning.db -o ${WORK}/out
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "search failed (${status}):\n${out}\n${err}")
endif()
foreach(f best.cu report.md report.json search.svg labeled.dot cover.txt)
  if(NOT EXISTS ${WORK}/out/${f})
    message(FATAL_ERROR "missing output ${f}")
  endif()
endforeach()
file(READ ${WORK}/out/report.json json)
string(JSON gpu GET "${json}" gpu_available)
string(JSON variants LENGTH "${json}" variants)
if(variants LESS 2)
  message(FATAL_ERROR "report.json lists ${variants} variants")
endif()
# Where the wall time went: both labelings took some, and the phases fit in the whole.
string(JSON wall GET "${json}" wall_seconds)
string(JSON labeling GET "${json}" phase_seconds labeling)
string(JSON measuring GET "${json}" phase_seconds measuring)
string(JSON relabeling GET "${json}" phase_seconds final_labeling)
if(NOT labeling GREATER 0 OR NOT relabeling GREATER 0 OR measuring LESS 0)
  message(FATAL_ERROR "report.json's phases are ${labeling}, ${measuring}, ${relabeling} s")
endif()
if(labeling GREATER wall OR relabeling GREATER wall OR measuring GREATER wall)
  message(FATAL_ERROR "a phase (${labeling}, ${measuring}, ${relabeling} s) is longer than the wall time ${wall} s")
endif()
file(READ ${WORK}/out/report.md md)
if(gpu)
  string(FIND "${out}" "TFLOPS" at)
else()
  string(FIND "${md}" "**Not measured**" at)
endif()
if(at EQUAL -1)
  message(FATAL_ERROR "the report does not say what was timed (gpu: ${gpu}):\n${md}\n${out}")
endif()
message(STATUS "search ok (gpu: ${gpu}): ${out}")

# A linear layer with bias and ReLU gets a tiled kernel whose write-back applies the epilogue.
execute_process(COMMAND ${CUDABURG} ${EXAMPLES}/linear_relu.loop -D M=64 -D N=32 -D K=16 -q --db ${WORK}/tuning.db
                        -o ${WORK}/fused
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "search of a nest with an epilogue failed (${status}):\n${out}\n${err}")
endif()
string(FIND "${out}" "best recipe for linear_relu: (the nest as written)" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "the epilogue was not fused into a tiled kernel:\n${out}")
endif()
file(READ ${WORK}/fused/best.cu cu)
string(FIND "${cu}" "fmaxf(" at)
if(at EQUAL -1)
  message(FATAL_ERROR "best.cu does not apply the ReLU:\n${cu}")
endif()

# Sums kept in a local scalar become the register tile's accumulator, in the local's type (fp32
# for a half output, converted on the one store), with the statements after the reduction applied
# at the write-back.
foreach(layer linear_gelu linear_half)
  execute_process(COMMAND ${CUDABURG} ${EXAMPLES}/${layer}.loop -D M=64 -D N=32 -D K=16 -q --db ${WORK}/tuning.db
                          -o ${WORK}/${layer}
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "search of ${layer} failed (${status}):\n${out}\n${err}")
  endif()
  string(FIND "${out}" "best recipe for ${layer}: tile " at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${layer}'s local accumulator did not become a tiled kernel's:\n${out}")
  endif()
  file(READ ${WORK}/${layer}/best.cu cu)
  string(REGEX MATCH "float Y_r[[][0-9]+[]][[][0-9]+[]];" accumulators "${cu}")
  if(NOT accumulators)
    message(FATAL_ERROR "${layer}'s best.cu keeps no fp32 register tile:\n${cu}")
  endif()
endforeach()
file(READ ${WORK}/linear_gelu/best.cu cu)
string(FIND "${cu}" "tanhf(0.7978846f * ((Y_r[" at)
if(at EQUAL -1)
  message(FATAL_ERROR "linear_gelu's best.cu does not apply GELU to its register tile:\n${cu}")
endif()
file(READ ${WORK}/linear_half/best.cu cu)
string(FIND "${cu}" "= __float2half(Y_r[" at)
if(at EQUAL -1)
  message(FATAL_ERROR "linear_half's best.cu does not round its fp32 sums to half on the store:\n${cu}")
endif()

# A nest no rule tiles (a reduction after its epilogue) still gets a kernel: the nest as written,
# and report.md says which statement prevented tiling.
file(WRITE ${WORK}/twice.loop
"size M = 64, N = 32, K = 16;
kernel twice(float Y[M][N], const float X[M][K], const float W[K][N]) {
  parallel for (i = 0; i < M; i++)
    parallel for (j = 0; j < N; j++) {
      Y[i][j] = 0;
      reduce for (k = 0; k < K; k++)
        Y[i][j] += X[i][k] * W[k][j];
      Y[i][j] = max(Y[i][j], 0);
      reduce for (k = 0; k < K; k++)
        Y[i][j] += X[i][k];
    }
}
")
execute_process(COMMAND ${CUDABURG} ${WORK}/twice.loop -q --db ${WORK}/tuning.db -o ${WORK}/untiled
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "search of an untiled nest failed (${status}):\n${out}\n${err}")
endif()
string(FIND "${out}" "best recipe for twice: (the nest as written)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the nest as written was not the fallback:\n${out}")
endif()
file(READ ${WORK}/untiled/report.md md)
string(FIND "${md}" "reduces again (a reduction after the epilogue)" at)
if(at EQUAL -1)
  message(FATAL_ERROR "report.md does not say which statement prevented tiling:\n${md}")
endif()
