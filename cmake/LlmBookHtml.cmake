# The HTML book's frame (docs/html.md): Furo made to work offline, and the
# data behind the API reference's "Used in" links. (The real-browser check,
# make check-html, runs tools/check_html.py on the built book directly.)
# Included after LlmBook.cmake: it adds inputs to the Sphinx step's stamp
# (add_custom_command APPEND) instead of editing that step.

# --- The theme: Debian's Furo ships ES modules and a stylesheet that imports
# /javascript/normalize.css; tools/theme.py bundles the scripts with Debian's
# esbuild and inlines the import, into the staged Sphinx source (_theme/),
# which book/conf.py adds to html_static_path.
find_program(LLM_ESBUILD esbuild)
if(NOT LLM_ESBUILD)
  message(FATAL_ERROR "esbuild not found: the HTML book bundles its theme's scripts with it; "
                      "run: apt-get install esbuild (or make deps)")
endif()
execute_process(
  COMMAND ${LLM_PYTHON} -m tools.theme --print-sources
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE llm_theme_sources OUTPUT_STRIP_TRAILING_WHITESPACE
  RESULT_VARIABLE llm_theme_status ERROR_VARIABLE llm_theme_error)
if(NOT llm_theme_status EQUAL 0)
  message(FATAL_ERROR "tools.theme: ${llm_theme_error}")
endif()
set(llm_theme_outputs ${LLM_BOOK_SOURCE}/_theme/scripts/furo.js
                      ${LLM_BOOK_SOURCE}/_theme/styles/furo.css
                      ${LLM_BOOK_SOURCE}/_theme/styles/furo-extensions.css)
add_custom_command(
  OUTPUT ${llm_theme_outputs}
  COMMAND ${LLM_PYTHON} -m tools.theme --esbuild ${LLM_ESBUILD} --output ${LLM_BOOK_SOURCE}/_theme
  DEPENDS ${llm_theme_sources} ${CMAKE_SOURCE_DIR}/tools/theme.py
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "theme: bundle Furo's scripts with esbuild, inline normalize.css"
  VERBATIM)

# --- Where each API entity is defined (headers and sources), for the API
# reference's "Used in" links (book/_ext/llm_links.py); docs/Doxyfile.definitions.
file(GLOB_RECURSE llm_library_sources CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/src/llm/*.hpp ${CMAKE_SOURCE_DIR}/src/llm/*.cpp)
set(llm_definitions_xml ${CMAKE_BINARY_DIR}/doxygen/definitions-xml)
add_custom_command(
  OUTPUT ${llm_definitions_xml}/index.xml
  COMMAND ${CMAKE_COMMAND} -E make_directory ${llm_definitions_xml}
  COMMAND ${CMAKE_COMMAND} -E env LLM_DOXYGEN_OUTPUT=${CMAKE_BINARY_DIR}/doxygen
          LLM_SOURCE_DIR=${CMAKE_SOURCE_DIR} ${LLM_DOXYGEN} docs/Doxyfile.definitions
  DEPENDS ${llm_library_sources} ${CMAKE_SOURCE_DIR}/docs/Doxyfile
          ${CMAKE_SOURCE_DIR}/docs/Doxyfile.definitions
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "doxygen: where the API entities are defined"
  VERBATIM)

add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/html.stamp APPEND
                   DEPENDS ${llm_theme_outputs} ${llm_definitions_xml}/index.xml)
