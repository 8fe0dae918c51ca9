// Runs a test body on a thread with a stack of a fixed size, so a test of
// deep recursion means the same thing whatever `ulimit -s` the suite runs under.
#pragma once

#include <pthread.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <stdexcept>

namespace llm::testing {

/// The default Linux stack: `ulimit -s 8192`, 8 MiB.
inline constexpr std::size_t kDefaultStackBytes = std::size_t{8} << 20;

/// Runs `body` to completion on a new thread whose stack holds exactly
/// `stack_bytes`, then rethrows whatever it threw. A stack overflow in
/// `body` crashes the test process (a failure ctest reports).
inline void run_with_stack(std::size_t stack_bytes, const std::function<void()>& body) {
  struct Job {
    const std::function<void()>* body;
    std::exception_ptr error;
  } job{&body, nullptr};
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  pthread_t thread;
  const auto entry = [](void* argument) -> void* {
    Job& job = *static_cast<Job*>(argument);
    try {
      (*job.body)();
    } catch (...) {
      job.error = std::current_exception();
    }
    return nullptr;
  };
  const int created = pthread_create(&thread, &attributes, entry, &job);
  pthread_attr_destroy(&attributes);
  if (created != 0) throw std::runtime_error("cannot start a thread with a fixed stack");
  pthread_join(thread, nullptr);
  if (job.error) std::rethrow_exception(job.error);
}

}  // namespace llm::testing
