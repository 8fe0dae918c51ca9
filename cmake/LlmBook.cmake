# The book target: Doxygen XML of the public headers, the Sphinx sources of
# book/ staged beside the rendered chapter pages in build/book, then
# sphinx-build -W into build/html. Every step reruns only when its inputs change.
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

# Copy book/ into the Sphinx source directory; a copy reruns only when its
# source file is newer, so Sphinx sees unchanged files as unchanged.
file(GLOB_RECURSE llm_book_files CONFIGURE_DEPENDS RELATIVE ${CMAKE_SOURCE_DIR}/book
     ${CMAKE_SOURCE_DIR}/book/*)
set(llm_staged_book_files)
foreach(relative IN LISTS llm_book_files)
  if(relative MATCHES "__pycache__")
    continue()
  endif()
  add_custom_command(
    OUTPUT ${LLM_BOOK_SOURCE}/${relative}
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/book/${relative}
            ${LLM_BOOK_SOURCE}/${relative}
    DEPENDS ${CMAKE_SOURCE_DIR}/book/${relative}
    VERBATIM)
  list(APPEND llm_staged_book_files ${LLM_BOOK_SOURCE}/${relative})
endforeach()

get_property(llm_chapter_pages GLOBAL PROPERTY LLM_CHAPTER_PAGES)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/html.stamp
  COMMAND ${CMAKE_COMMAND} -E env LLM_DOXYGEN_XML=${LLM_DOXYGEN_XML}
          LLM_SOURCE_DIR=${CMAKE_SOURCE_DIR}
          ${LLM_PYTHON} -m sphinx -W --keep-going -q -b html
          -d ${CMAKE_BINARY_DIR}/sphinx-doctrees ${LLM_BOOK_SOURCE} ${LLM_HTML}
  COMMAND ${CMAKE_COMMAND} -E touch ${CMAKE_BINARY_DIR}/html.stamp
  DEPENDS ${llm_staged_book_files} ${llm_chapter_pages} ${LLM_DOXYGEN_XML}/index.xml
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "sphinx: HTML book -> ${LLM_HTML}/index.html"
  VERBATIM)
add_custom_target(book DEPENDS ${CMAKE_BINARY_DIR}/html.stamp)
