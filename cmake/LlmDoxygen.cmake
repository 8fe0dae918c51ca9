# Doxygen XML of the public headers (docs/Doxyfile): Breathe's API reference
# and the render step's check that every API name in a chapter exists.
# Target `api-xml`; reruns only when a public header or the Doxyfile changes.
find_program(LLM_DOXYGEN doxygen REQUIRED)

file(GLOB_RECURSE llm_public_headers CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/llm/*.hpp)
add_custom_command(
  OUTPUT ${LLM_DOXYGEN_XML}/index.xml
  COMMAND ${CMAKE_COMMAND} -E make_directory ${LLM_DOXYGEN_XML}
  COMMAND ${CMAKE_COMMAND} -E env LLM_DOXYGEN_OUTPUT=${CMAKE_BINARY_DIR}/doxygen
          LLM_SOURCE_DIR=${CMAKE_SOURCE_DIR} ${LLM_DOXYGEN} ${CMAKE_SOURCE_DIR}/docs/Doxyfile
  DEPENDS ${llm_public_headers} ${CMAKE_SOURCE_DIR}/docs/Doxyfile
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "doxygen: API reference XML"
  VERBATIM)
add_custom_target(api-xml DEPENDS ${LLM_DOXYGEN_XML}/index.xml)
