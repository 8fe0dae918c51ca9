// Deterministic parallelism for the kernels: a small persistent pool of
// threads that runs independent tasks.
//
// A kernel that goes parallel splits its output into tasks, and every output
// element belongs to exactly one task, which computes it in the same order
// whatever thread runs it and however many tasks there are. So a result has
// the same bits for every thread count; only the time changes. Matrix
// products cut their output into bands (matmul_kernel.cpp); elementwise and
// row-wise loops into consecutive pieces (parallel_pieces, parallel_rows
// below). The count comes from the environment variable LLM_THREADS (a whole
// number from 1 to 64; unset means 1, so the book's demos and the tests run on
// one thread) or from set_thread_count (what `make train` does). See
// docs/performance.md and the concurrency contract in docs/data-model.md.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <string_view>
#include <type_traits>

namespace llm {

/// The largest thread count LLM_THREADS or set_thread_count accepts.
inline constexpr std::size_t kMaximumThreads = 64;

/// How many threads a parallel kernel may use, the caller's included: the
/// last set_thread_count, else LLM_THREADS, else 1. LLM_THREADS is read once,
/// at the first call.
/// @throws ConfigurationError InvalidThreadCount if LLM_THREADS is set but is
///         not a whole number from 1 to kMaximumThreads (every later call
///         throws again until it is fixed or set_thread_count is called).
std::size_t thread_count();

/// Sets the thread count for the whole process and returns the previous one.
/// Waits for a parallel call that is running to finish; the pool's threads
/// are started again at the next parallel call.
/// @throws ConfigurationError InvalidThreadCount if `count` is 0 or above
///         kMaximumThreads; nothing changes then.
std::size_t set_thread_count(std::size_t count);

namespace parallel_detail {
/// `text` (the value of `source`, e.g. LLM_THREADS) as a thread count.
/// @throws ConfigurationError InvalidThreadCount naming `source` unless it is
///         a whole number from 1 to kMaximumThreads, written in digits only.
std::size_t thread_count_from(std::string_view source, std::string_view text);

/// One call of a task: `task(context, index)`.
using TaskFunction = void (*)(void* context, std::size_t index);
/// Runs function(context, i) for i in [0, tasks); see parallel_for.
void run_tasks(std::size_t tasks, TaskFunction function, void* context);
}  // namespace parallel_detail

/// Calls task(i) once for every i in [0, tasks), on up to thread_count()
/// threads, the calling thread among them, and returns when all are done.
/// The tasks must be independent: each writes only its own part of the
/// output. It runs them all on the calling thread when thread_count() is 1,
/// when there is one task, when the caller is itself running a task (a
/// parallel kernel inside a parallel kernel does not fan out again), or when
/// another thread is using the pool at that moment (no oversubscription).
/// A task's exception reaches the caller after every task has finished: that
/// of the lowest-numbered task that threw.
/// @throws ConfigurationError as thread_count().
template <class Task>
void parallel_for(std::size_t tasks, Task&& task) {
  parallel_detail::run_tasks(
      tasks,
      [](void* context, std::size_t index) {
        (*static_cast<std::remove_reference_t<Task>*>(context))(index);
      },
      const_cast<void*>(static_cast<const void*>(&task)));
}

// region: parallel-pieces
/// The shortest piece the elementwise and row-wise loops ask parallel_pieces
/// for: 16,384 values (128 KiB; AdamW's loop asks for a quarter). On the
/// Intel Xeon of docs/performance.md, mul over that many takes about 6
/// microseconds, and handing a piece to a worker about 2 while the worker is
/// watching for work, 13 to 19 once it sleeps (docs/bench/handoff_probe.cpp):
/// a shorter loop would spend more on the hand-off than it saves.
inline constexpr std::size_t kMinimumPiece = std::size_t{1} << 14;

/// Calls body(begin, end) on consecutive pieces that cover [0, count), in
/// parallel: as many pieces as there are threads, each at least
/// `minimum_piece` long, else one piece [0, count) on the calling thread
/// (thread_count() is not even read then). For loops whose elements are
/// independent, each written by one piece only: the pieces change which
/// thread computes an element, never what it computes, so the bits are those
/// of the plain loop for every thread count. A body's exception reaches the
/// caller as in parallel_for: that of the first piece that threw.
/// @throws ConfigurationError as thread_count(), when `count` is long enough
///         to split.
template <class Body>
void parallel_pieces(std::size_t count, std::size_t minimum_piece, Body&& body) {
  if (count < 2 * minimum_piece) {
    body(std::size_t{0}, count);
    return;
  }
  const std::size_t pieces = std::min(thread_count(), count / minimum_piece);
  if (pieces <= 1) {
    body(std::size_t{0}, count);
    return;
  }
  parallel_for(pieces, [&](std::size_t piece) {
    body(count * piece / pieces, count * (piece + 1) / pieces);
  });
}

/// Lowers `smallest` to `value` if `value` is smaller, atomically: how
/// pieces that each found a first index (a failure, a stop) agree on the
/// first of all, whatever order they finish in.
inline void keep_smallest(std::atomic<std::size_t>& smallest, std::size_t value) {
  std::size_t seen = smallest.load(std::memory_order_relaxed);
  while (value < seen && !smallest.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

/// parallel_pieces over `rows` rows of `width` elements each, for kernels
/// that work a row at a time: body(first_row, end_row) gets whole rows, at
/// least kMinimumPiece elements' worth per piece.
/// @throws ConfigurationError as parallel_pieces.
template <class Body>
void parallel_rows(std::size_t rows, std::size_t width, Body&& body) {
  const std::size_t minimum_rows =
      width == 0 ? rows + 1 : std::max<std::size_t>(1, kMinimumPiece / width);
  parallel_pieces(rows, minimum_rows, body);
}
// endregion: parallel-pieces

}  // namespace llm
