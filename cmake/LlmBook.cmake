# The book target: the Sphinx sources of book/ staged beside the rendered
# chapter pages in build/book, then sphinx-build -W into build/html (the
# Doxygen XML comes from cmake/LlmDoxygen.cmake). Every step reruns only when
# its inputs change.
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
    COMMENT "book: stage book/${relative}"
    VERBATIM)
  list(APPEND llm_staged_book_files ${LLM_BOOK_SOURCE}/${relative})
endforeach()

# Every region marker in the C++ sources is checked, not only the listed ones,
# so a crossed or unclosed marker fails the book wherever it is.
file(GLOB_RECURSE llm_region_sources CONFIGURE_DEPENDS
     ${CMAKE_SOURCE_DIR}/src/*.cpp ${CMAKE_SOURCE_DIR}/src/*.hpp
     ${CMAKE_SOURCE_DIR}/chapters/*.cpp ${CMAKE_SOURCE_DIR}/chapters/*.hpp)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/regions.stamp
  COMMAND ${LLM_PYTHON} -m tools.regions check --stamp ${CMAKE_BINARY_DIR}/regions.stamp
  DEPENDS ${llm_region_sources} ${CMAKE_SOURCE_DIR}/tools/regions.py ${CMAKE_SOURCE_DIR}/tools/markers.py
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "regions: check every region marker in src/ and chapters/"
  VERBATIM)

# The Sphinx step (tools/book.py): sphinx-build -W under the build directory's
# lock, writing every page (-a) so the search index is always complete, and
# rebuilding from scratch after an interrupted or failed run. It touches
# html.stamp itself, last, only when Sphinx succeeded.
get_property(llm_chapter_pages GLOBAL PROPERTY LLM_CHAPTER_PAGES)
add_custom_command(
  OUTPUT ${CMAKE_BINARY_DIR}/html.stamp
  COMMAND ${CMAKE_COMMAND} -E env LLM_DOXYGEN_XML=${LLM_DOXYGEN_XML}
          LLM_SOURCE_DIR=${CMAKE_SOURCE_DIR}
          ${LLM_PYTHON} -m tools.book html --source ${LLM_BOOK_SOURCE} --output ${LLM_HTML}
          --doctrees ${CMAKE_BINARY_DIR}/sphinx-doctrees --stamp ${CMAKE_BINARY_DIR}/html.stamp
          --lock ${CMAKE_BINARY_DIR}/build.lock
  DEPENDS ${llm_staged_book_files} ${llm_chapter_pages} ${LLM_DOXYGEN_XML}/index.xml
          ${CMAKE_BINARY_DIR}/regions.stamp ${CMAKE_SOURCE_DIR}/tools/book.py
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  COMMENT "sphinx: HTML book -> ${LLM_HTML}/index.html"
  VERBATIM)
add_custom_target(book DEPENDS ${CMAKE_BINARY_DIR}/html.stamp)
