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
llm_library(llm_train_run_config
            SOURCES src/llm/training/train_run_config*.cpp src/llm/training/random_windows*.cpp
            DEPENDS llm_core nlohmann_json::nlohmann_json)
# The run itself: the decoder (chapter 32), AdamW and clipping (22, 33), checkpoints (35),
# and for a byte-pair run the book's BPE trainer and tokenizer (chapters 3-4).
llm_library(llm_train_run SOURCES src/llm/training/train_run.cpp src/llm/training/run_measurement.cpp
            DEPENDS llm_train_run_config llm_text_dataset llm_bpe llm_decoder llm_training_loop
                    llm_checkpoint llm_sampling)

# The repository's copy of Tiny Shakespeare, the default data file of every
# program and test that reads it.
set(LLM_TINY_SHAKESPEARE ${CMAKE_SOURCE_DIR}/data/tinyshakespeare/input.txt)

llm_link_tests("/tests/(text/text_dataset|training/(train_run_config|random_windows|train_run))_test"
               llm_text_dataset llm_train_run)
target_link_libraries(error_area_test PRIVATE llm_text_dataset llm_train_run_config)
foreach(test_name text_dataset_test train_run_config_test random_windows_test train_run_test)
  target_compile_definitions(${test_name} PRIVATE LLM_TINY_SHAKESPEARE="${LLM_TINY_SHAKESPEARE}")
endforeach()

# The trainer behind `make train` (src/apps/llm_train/): progress, evaluation,
# atomic checkpoints, resumption, the JSON log.
add_executable(llm-train src/apps/llm_train/main.cpp src/apps/llm_train/train_log.cpp)
target_link_libraries(llm-train PRIVATE llm_train_run nlohmann_json::nlohmann_json)
target_compile_definitions(llm-train PRIVATE LLM_TINY_SHAKESPEARE="${LLM_TINY_SHAKESPEARE}")
# The generator behind `make generate` (src/apps/llm_generate/): chapter 39's
# byte-pair checkpoint or chapter 40's byte-level one, a prompt, temperature
# and top-k (chapter 36), each token's bytes streamed as it is chosen.
# Its view of a checkpoint is a library of its own, which the tests call directly.
add_library(llm_generate_checkpoint_text STATIC src/apps/llm_generate/checkpoint_text.cpp)
target_link_libraries(llm_generate_checkpoint_text PUBLIC llm_decoder_training llm_kv_cache
                      llm_sampling llm_text_dataset)
add_executable(llm-generate src/apps/llm_generate/main.cpp)
target_link_libraries(llm-generate PRIVATE llm_generate_checkpoint_text)
# Its tests run the program on checkpoints they write (tests/apps/) and call
# its checkpoint view for the exact error types.
llm_link_tests("/tests/apps/" llm_train_run llm_decoder_training llm_generate_checkpoint_text)
target_compile_definitions(llm_generate_test PRIVATE
  LLM_TINY_SHAKESPEARE="${LLM_TINY_SHAKESPEARE}" LLM_GENERATE_PROGRAM="$<TARGET_FILE:llm-generate>"
  LLM_GENERATE_WORK_DIR="${CMAKE_BINARY_DIR}/tests/llm-generate")
add_dependencies(llm_generate_test llm-generate)

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

# make train's resumption, end to end: SIGINT and a crash, then the same
# command, end on the uninterrupted run's checkpoint bytes, and llm-generate
# continues a prompt into the same text from each.
add_test(NAME llm-train-resumes-bit-for-bit
         COMMAND ${CMAKE_SOURCE_DIR}/tests/training/llm_train_resume_test.sh $<TARGET_FILE:llm-train>
                 ${CMAKE_SOURCE_DIR}/tests/training/fixtures/tiny-run.json
                 ${CMAKE_BINARY_DIR}/tests/llm-train-resume $<TARGET_FILE:llm-generate>)
# The same with byte-pair tokens (fixtures/tiny-bpe-run.json: 8 merges learned
# from the training part in every process): the merges are learned again on
# each resume and must match the checkpoint's, and llm-generate encodes the
# prompt with the checkpoint's merges.
add_test(NAME llm-train-bpe-resumes-bit-for-bit
         COMMAND ${CMAKE_SOURCE_DIR}/tests/training/llm_train_resume_test.sh $<TARGET_FILE:llm-train>
                 ${CMAKE_SOURCE_DIR}/tests/training/fixtures/tiny-bpe-run.json
                 ${CMAKE_BINARY_DIR}/tests/llm-train-resume-bpe $<TARGET_FILE:llm-generate>)
# llm-generate on chapter 39's checkpoint, written by the chapter's demo as
# make book writes it, prints the continuation chapter 39's page shows.
add_test(NAME llm-generate-reproduces-chapter-39
         COMMAND ${CMAKE_SOURCE_DIR}/tests/apps/llm_generate_chapter39_test.sh
                 $<TARGET_FILE:chapter-39-demo> $<TARGET_FILE:llm-generate>
                 ${CMAKE_SOURCE_DIR}/chapters/39-end-to-end-llm/expected.txt
                 ${CMAKE_SOURCE_DIR}/chapters/39-end-to-end-llm/fixtures.hpp
                 ${CMAKE_BINARY_DIR}/tests/llm-generate-chapter-39)
