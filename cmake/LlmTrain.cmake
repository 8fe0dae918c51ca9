# Part VII, chapter 40: the Tiny Shakespeare dataset (data/tinyshakespeare/),
# the run configuration and window sampler, the trainer behind `make train`,
# and (in the benchmark build) the same model in libtorch behind
# `make train-anchor`. Included from the top-level CMakeLists.txt.

# SHA-256 is not what the book teaches: GNU Nettle (Debian's nettle-dev) computes it.
find_path(LLM_NETTLE_INCLUDE_DIR nettle/sha2.h)
find_library(LLM_NETTLE_LIBRARY nettle)
if(NOT LLM_NETTLE_INCLUDE_DIR OR NOT LLM_NETTLE_LIBRARY)
  message(FATAL_ERROR "GNU Nettle not found (nettle/sha2.h, libnettle): "
                      "sudo apt-get install nettle-dev (make deps does it)")
endif()
add_library(llm_nettle INTERFACE)
target_include_directories(llm_nettle SYSTEM INTERFACE ${LLM_NETTLE_INCLUDE_DIR})
target_link_libraries(llm_nettle INTERFACE ${LLM_NETTLE_LIBRARY})

llm_library(llm_text_dataset SOURCES src/llm/text/text_dataset*.cpp
            DEPENDS llm_core llm_nettle)
llm_library(llm_train_run SOURCES src/llm/training/train_run_*.cpp src/llm/training/random_windows*.cpp
            DEPENDS llm_core nlohmann_json::nlohmann_json)

# The repository's copy of Tiny Shakespeare, the default data file of every
# program and test that reads it.
set(LLM_TINY_SHAKESPEARE ${CMAKE_SOURCE_DIR}/data/tinyshakespeare/input.txt)

llm_link_tests("/tests/(text/text_dataset|training/(train_run_config|random_windows))_test"
               llm_text_dataset llm_train_run)
foreach(test_name text_dataset_test train_run_config_test random_windows_test)
  target_compile_definitions(${test_name} PRIVATE LLM_TINY_SHAKESPEARE="${LLM_TINY_SHAKESPEARE}")
endforeach()

# The anchor (make train-anchor): the same decoder, data and batches in the
# PyTorch C++ frontend, float32 or float64. Benchmark build only.
if(LLM_BENCH)
  find_package(Torch QUIET)
  if(Torch_FOUND)
    add_executable(llm-train-anchor bench/train_anchor/train_anchor.cpp)
    target_link_libraries(llm-train-anchor PRIVATE llm_text_dataset llm_train_run llm_nn
                          ${TORCH_LIBRARIES} nlohmann_json::nlohmann_json ${CMAKE_DL_LIBS})
    target_compile_definitions(llm-train-anchor PRIVATE
                               LLM_TINY_SHAKESPEARE="${LLM_TINY_SHAKESPEARE}")
  else()
    message(STATUS "llm-train-anchor: libtorch not found, make train-anchor is unavailable")
  endif()
endif()
