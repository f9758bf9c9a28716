# The manual pages of burggen and cudaburg, written at build time by each tool's --man from the
# same definition as its --help, into build/man/, and installed with the tools.
set(man_dir ${PROJECT_BINARY_DIR}/man)
set(man_pages)
foreach(tool burggen cudaburg)
  add_custom_command(OUTPUT ${man_dir}/${tool}.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${man_dir}
    COMMAND $<TARGET_FILE:${tool}> --man > ${man_dir}/${tool}.1
    DEPENDS ${tool}
    COMMENT "man page of ${tool}"
    VERBATIM)
  list(APPEND man_pages ${man_dir}/${tool}.1)
endforeach()
add_custom_target(man_pages ALL DEPENDS ${man_pages})
install(TARGETS burggen cudaburg RUNTIME DESTINATION bin)
install(FILES ${man_pages} DESTINATION share/man/man1)
