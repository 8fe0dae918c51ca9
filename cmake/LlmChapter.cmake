# llm_chapter(LIBRARIES lib...): declares the chapter in the current folder
# chapters/NN-slug/ with these targets and steps:
#   chapter-NN-demo     the demo executable built from the folder's *.cpp
#   chapter-NN-output   run the demo (time limit, exit status) -> output.txt, trace.json
#   chapter-NN          ... then verify output.txt against expected.txt and render the page
#   chapter-NN-sync     run the demo twice; if both runs print the same UTF-8 text,
#                       write it into expected.txt (make chapter-NN SYNC=1)
#   ctest chapter-NN-output-check   the same verification as a test
# Each step prints one progress line; see tools/demo.py and tools/render.py.
# expected.txt and chapter.md reach Ninja through the steps' depfiles, not as
# declared inputs, so a missing file is reported by the tool that needs it
# (with the command that creates it), never as Ninja's "missing and no known rule".
#
# llm_chapter(NO_DEMO): a chapter without a demo program (the orientation
# chapter 00). It has no *.cpp, no expected.txt and no output check; its one
# target, chapter-NN, renders chapter.md with `tools.render --no-demo`, which
# fails naming the line if the page calls output() or reads the trace.
set(LLM_TOOL_SOURCES_GLOB ${CMAKE_SOURCE_DIR}/tools/*.py)

function(llm_chapter)
  cmake_parse_arguments(ARG "NO_DEMO" "" "LIBRARIES" ${ARGN})
  get_filename_component(slug ${CMAKE_CURRENT_SOURCE_DIR} NAME)
  string(REGEX MATCH "^[0-9]+" number ${slug})
  set(demo chapter-${number}-demo)
  set(run_dir ${LLM_CHAPTER_RUNS}/${slug})
  set(page ${LLM_BOOK_SOURCE}/chapters/${slug}.md)
  # Withdrawn when a step fails (a refused sync too), so no page keeps showing
  # output the build rejected: the page is deleted, the HTML page replaced by a
  # notice saying why (tools/stale.py).
  set(stale_pages --stale ${page} --stale ${LLM_HTML}/chapters/${slug}.html)
  file(GLOB tool_sources CONFIGURE_DEPENDS ${LLM_TOOL_SOURCES_GLOB})

  file(GLOB demo_sources CONFIGURE_DEPENDS *.cpp)
  if(ARG_NO_DEMO)
    if(demo_sources OR ARG_LIBRARIES)
      message(FATAL_ERROR "chapters/${slug}: llm_chapter(NO_DEMO) declares a chapter without a demo, "
                          "but the folder has demo sources or the call names LIBRARIES; drop NO_DEMO or them")
    endif()
    _llm_chapter_without_demo(${slug} ${number} ${page} ${run_dir} "${tool_sources}")
    return()
  endif()
  if(NOT demo_sources)
    message(FATAL_ERROR "chapters/${slug}: llm_chapter() found no demo sources (*.cpp) in the folder")
  endif()
  add_executable(${demo} ${demo_sources})
  target_link_libraries(${demo} PRIVATE ${ARG_LIBRARIES} nlohmann_json::nlohmann_json)
  target_include_directories(${demo} PRIVATE ${CMAKE_SOURCE_DIR}/chapters/common)

  add_custom_command(
    OUTPUT ${run_dir}/output.txt ${run_dir}/trace.json
    COMMAND ${LLM_PYTHON} -m tools.demo run --chapter ${slug}
            --executable $<TARGET_FILE:${demo}> --run-dir ${run_dir}
            --timeout ${LLM_DEMO_TIMEOUT} ${stale_pages}
    DEPENDS ${demo} ${tool_sources}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "chapter ${number}: run demo"
    VERBATIM)
  add_custom_command(
    OUTPUT ${run_dir}/verified.stamp
    COMMAND ${LLM_PYTHON} -m tools.demo verify --chapter ${slug} --run-dir ${run_dir}
            --depfile ${run_dir}/verified.d ${stale_pages}
    DEPENDS ${run_dir}/output.txt ${tool_sources}
    DEPFILE ${run_dir}/verified.d
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "chapter ${number}: verify output against expected.txt"
    VERBATIM)
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${LLM_PYTHON} -m tools.render --chapter ${slug} --run-dir ${run_dir}
            --output ${page} --depfile ${run_dir}/page.d --api-xml ${LLM_DOXYGEN_XML}
            --stale ${LLM_HTML}/chapters/${slug}.html
    DEPENDS ${run_dir}/verified.stamp ${LLM_DOXYGEN_XML}/index.xml
            ${run_dir}/trace.json ${tool_sources}
    DEPFILE ${run_dir}/page.d
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "chapter ${number}: render page"
    VERBATIM)

  add_custom_target(chapter-${number}-output DEPENDS ${run_dir}/output.txt)
  add_custom_target(chapter-${number}-sync
    COMMAND ${LLM_PYTHON} -m tools.demo sync --chapter ${slug}
            --executable $<TARGET_FILE:${demo}> --timeout ${LLM_DEMO_TIMEOUT} ${stale_pages}
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "chapter ${number}: sync expected.txt from two runs of the demo"
    VERBATIM)
  add_dependencies(chapter-${number}-sync ${demo})
  add_custom_target(chapter-${number} DEPENDS ${page})
  add_dependencies(chapter-${number} api-xml)
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTER_PAGES ${page})
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTER_TARGETS chapter-${number})

  add_test(NAME chapter-${number}-output-check
           COMMAND ${LLM_PYTHON} -m tools.demo check --chapter ${slug}
                   --executable $<TARGET_FILE:${demo}> --timeout ${LLM_DEMO_TIMEOUT}
           WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
endfunction()

# The page of a chapter without a demo: render only, from chapter.md and the
# files its figures read (the depfile lists them), with no run or verify step.
function(_llm_chapter_without_demo slug number page run_dir tool_sources)
  add_custom_command(
    OUTPUT ${page}
    COMMAND ${LLM_PYTHON} -m tools.render --chapter ${slug} --no-demo
            --output ${page} --depfile ${run_dir}/page.d --api-xml ${LLM_DOXYGEN_XML}
            --stale ${LLM_HTML}/chapters/${slug}.html
    DEPENDS ${LLM_DOXYGEN_XML}/index.xml ${tool_sources}
    DEPFILE ${run_dir}/page.d
    WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
    COMMENT "chapter ${number}: render page (no demo)"
    VERBATIM)
  add_custom_target(chapter-${number} DEPENDS ${page})
  add_dependencies(chapter-${number} api-xml)
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTER_PAGES ${page})
  set_property(GLOBAL APPEND PROPERTY LLM_CHAPTER_TARGETS chapter-${number})
endfunction()
