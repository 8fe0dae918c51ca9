# llm_embed_file(NAMESPACE ns NAME function INPUT file OUTPUT variable):
# generates a C++ source under build/generated/ that defines
#     std::string_view ns::function();
# returning the exact bytes of `file` (no newline conversion, no decoding),
# and stores the generated path in `variable`. The source is regenerated
# whenever `file` changes, so everything compiled from it rebuilds: this is
# how the book's corpus reaches the demos and the tests (C++20 has no #embed).
set(LLM_EMBED_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/embed_file.cmake)

function(llm_embed_file)
  cmake_parse_arguments(ARG "" "NAMESPACE;NAME;INPUT;OUTPUT" "" ${ARGN})
  set(generated ${CMAKE_BINARY_DIR}/generated/${ARG_NAMESPACE}_${ARG_NAME}.cpp)
  add_custom_command(
    OUTPUT ${generated}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${ARG_INPUT} -DOUTPUT=${generated}
            -DNAMESPACE=${ARG_NAMESPACE} -DNAME=${ARG_NAME} -P ${LLM_EMBED_SCRIPT}
    DEPENDS ${ARG_INPUT} ${LLM_EMBED_SCRIPT}
    COMMENT "embed: ${ARG_INPUT} as ${ARG_NAMESPACE}::${ARG_NAME}()"
    VERBATIM)
  set(${ARG_OUTPUT} ${generated} PARENT_SCOPE)
endfunction()
