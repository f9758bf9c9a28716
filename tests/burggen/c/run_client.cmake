# Builds and runs one client of a C matcher: burggen writes the matcher (the client is the spec's
# epilogue), the C compiler builds it with warnings as errors, and what the program prints must
# equal the expected file.
#   cmake -D BURGGEN=... -D CC=... -D SPEC=... -D MODE="--iburg --ties first" -D CFLAGS=...
#         -D EXPECTED=... -D WORK=<path prefix for the files made> -P run_client.cmake
separate_arguments(mode UNIX_COMMAND "${MODE}")
separate_arguments(cflags UNIX_COMMAND "${CFLAGS}")
execute_process(COMMAND ${BURGGEN} ${mode} ${SPEC} --output ${WORK}.c
                RESULT_VARIABLE status ERROR_VARIABLE messages)
if(status)
  message(FATAL_ERROR "burggen ${MODE} ${SPEC} failed:\n${messages}")
endif()
execute_process(COMMAND ${CC} -std=c99 -Wall -Wextra -Werror -pedantic ${cflags} ${WORK}.c -o ${WORK}
                RESULT_VARIABLE status ERROR_VARIABLE messages)
if(status)
  message(FATAL_ERROR "${CC} could not build the matcher of ${SPEC}:\n${messages}")
endif()
execute_process(COMMAND ${WORK} RESULT_VARIABLE status OUTPUT_VARIABLE printed ERROR_VARIABLE messages)
if(status)
  message(FATAL_ERROR "the client of ${SPEC} failed (${status}):\n${printed}${messages}")
endif()
file(READ ${EXPECTED} expected)
if(NOT printed STREQUAL expected)
  message(FATAL_ERROR "the client of ${SPEC} (${MODE}) printed\n${printed}\ninstead of\n${expected}")
endif()
