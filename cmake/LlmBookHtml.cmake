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

# --- The repository the book links to ("Repository", "view source of this page",
# "This file in the repository"): make book REPOSITORY_URL=https://... sets
# LLM_REPOSITORY_URL; by default it is the checkout's git remote "origin" when
# that is a forge's address (https://, ssh://, git@host:path), else the
# checkout itself as a file:// URL, which works for a book read from disk.
set(LLM_REPOSITORY_URL "" CACHE STRING "Address of the book's repository (default: git remote origin, else the checkout)")
set(LLM_REPOSITORY_BRANCH "main" CACHE STRING "Branch of the repository the source links name")
set(llm_repository "${LLM_REPOSITORY_URL}")
if(NOT llm_repository)
  execute_process(COMMAND git -C ${CMAKE_SOURCE_DIR} remote get-url origin
                  OUTPUT_VARIABLE llm_origin OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE llm_git_status)
  if(llm_git_status EQUAL 0 AND llm_origin MATCHES "^(https?://|ssh://|git@)")
    string(REGEX REPLACE "^git@([^:]+):" "https://\\1/" llm_repository "${llm_origin}")
    string(REGEX REPLACE "^ssh://git@" "https://" llm_repository "${llm_repository}")
    string(REGEX REPLACE "\\.git$" "" llm_repository "${llm_repository}")
  else()
    set(llm_repository "file://${CMAKE_SOURCE_DIR}")
  endif()
endif()
file(CONFIGURE OUTPUT ${LLM_BOOK_SOURCE}/_repository.json
     CONTENT "{\"url\": \"@llm_repository@\", \"branch\": \"@LLM_REPOSITORY_BRANCH@\"}\n" @ONLY)
add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/html.stamp APPEND
                   DEPENDS ${LLM_BOOK_SOURCE}/_repository.json)

# --- make pdf / make epub (tools/print_book.py; not part of make book): the
# print view printed by headless Chromium, and Sphinx's epub builder with its
# math converted to MathML. Each reruns when the HTML book changed.
set(LLM_PDF ${CMAKE_BINARY_DIR}/llm-from-scratch-cpp.pdf)
set(LLM_EPUB ${CMAKE_BINARY_DIR}/llm-from-scratch-cpp.epub)
add_custom_command(
  OUTPUT ${LLM_PDF}
  COMMAND ${LLM_PYTHON} -m tools.print_book pdf --html ${LLM_HTML} --output ${LLM_PDF}
  DEPENDS ${CMAKE_BINARY_DIR}/html.stamp ${CMAKE_SOURCE_DIR}/tools/print_book.py
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "pdf: print ${LLM_HTML}/print.html with headless Chromium"
  VERBATIM)
add_custom_target(pdf DEPENDS ${LLM_PDF})
add_custom_command(
  OUTPUT ${LLM_EPUB}
  COMMAND ${CMAKE_COMMAND} -E env LLM_DOXYGEN_XML=${LLM_DOXYGEN_XML} LLM_SOURCE_DIR=${CMAKE_SOURCE_DIR}
          ${LLM_PYTHON} -m tools.print_book epub --source ${LLM_BOOK_SOURCE} --html ${LLM_HTML}
          --work ${CMAKE_BINARY_DIR}/epub --doctrees ${CMAKE_BINARY_DIR}/epub-doctrees --output ${LLM_EPUB}
          --python ${LLM_PYTHON}
  DEPENDS ${CMAKE_BINARY_DIR}/html.stamp ${CMAKE_SOURCE_DIR}/tools/print_book.py
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "epub: sphinx -b epub, math as MathML"
  VERBATIM)
add_custom_target(epub DEPENDS ${LLM_EPUB})
