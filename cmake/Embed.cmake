# opsweep_embed(OUT NAMESPACE FILES...): generate a C++ source that defines, in NAMESPACE,
#   const std::vector<opsweep::EmbeddedFile>& files();
# with each file's base name and bytes, so data (rules, page assets) ships inside the binary.
# The declaration lives in util/embedded.h.
function(opsweep_embed out ns)
  set(files ${ARGN})
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/EmbedRun.cmake)
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} "-DFILES=${files}" -P ${script}
    DEPENDS ${files} ${script}
    COMMENT "Embedding ${ns}"
    VERBATIM)
endfunction()
