# burggen_generate(<spec> <out.cpp> [HEADER <out.hpp>] [NAMESPACE <ns>] [PREFIX <p>] [KBEST <k>]
#                  [TIES <order>])
#
# Runs burggen at build time: writes the matcher of <spec> (relative to the current source
# folder) to <out.cpp> and, with HEADER, its declarations to <out.hpp> (both relative to the
# current binary folder). Add <out.cpp> to a target's sources to build the matcher into it.
# KBEST <k> writes the k-best matcher, which keeps the k cheapest derivations (burggen --kbest).
# TIES passes burggen's --ties (iburg, lburg or first).
function(burggen_generate spec out)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "" "HEADER;NAMESPACE;PREFIX;KBEST;TIES" "")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "burggen_generate: unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(spec ${spec} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  get_filename_component(out ${out} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  set(outputs ${out})
  set(args ${spec} -o ${out})
  if(ARG_HEADER)
    get_filename_component(header ${ARG_HEADER} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
    list(APPEND outputs ${header})
    list(APPEND args --header ${header})
  endif()
  if(ARG_NAMESPACE)
    list(APPEND args --namespace ${ARG_NAMESPACE})
  endif()
  if(ARG_PREFIX)
    list(APPEND args --prefix ${ARG_PREFIX})
  endif()
  if(ARG_KBEST)
    list(APPEND args --kbest ${ARG_KBEST})
  endif()
  if(ARG_TIES)
    list(APPEND args --ties ${ARG_TIES})
  endif()
  get_filename_component(name ${spec} NAME)
  add_custom_command(OUTPUT ${outputs}
    COMMAND burggen ${args}
    DEPENDS burggen ${spec}
    COMMENT "burggen ${name}"
    VERBATIM)
endfunction()
