// The thread pool behind the parallel kernels: every task runs once, a
// failure is reported after all tasks ended, nested calls do not fan out,
// the thread count is validated, and results do not depend on it.
#include "llm/tensor/parallel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "llm/tensor/configuration_error.hpp"
#include "llm/tensor/elementwise.hpp"
#include "llm/tensor/tensor.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

// Sets a thread count for one test and puts the previous one back.
class ThreadCountScope {
 public:
  explicit ThreadCountScope(std::size_t count) : previous_(set_thread_count(count)) {}
  ~ThreadCountScope() { set_thread_count(previous_); }
  ThreadCountScope(const ThreadCountScope&) = delete;
  ThreadCountScope& operator=(const ThreadCountScope&) = delete;

 private:
  std::size_t previous_;
};

TEST(ParallelFor, RunsEveryTaskExactlyOnceOnAnyThreadCount) {
  for (std::size_t threads : {1, 2, 3, 8}) {
    const ThreadCountScope scope(threads);
    std::vector<std::atomic<int>> runs(1000);
    parallel_for(runs.size(), [&](std::size_t task) { runs[task].fetch_add(1); });
    for (std::size_t task = 0; task < runs.size(); ++task) {
      ASSERT_EQ(runs[task].load(), 1) << "task " << task << " on " << threads << " threads";
    }
  }
}

TEST(ParallelFor, UsesMoreThanOneThreadWhenAllowed) {
  const ThreadCountScope scope(2);
  std::atomic<int> waiting{0};
  std::vector<std::thread::id> ran_on(2);
  // Each task waits (briefly) for the other to start, so with two threads
  // they run at the same time on different threads.
  parallel_for(2, [&](std::size_t task) {
    waiting.fetch_add(1);
    for (int spin = 0; spin < 20'000'000 && waiting.load() < 2; ++spin) std::this_thread::yield();
    ran_on[task] = std::this_thread::get_id();
  });
  EXPECT_EQ(waiting.load(), 2);
  EXPECT_NE(ran_on[0], ran_on[1]);
}

TEST(ParallelFor, RunsANestedCallOnTheThreadOfItsTask) {
  const ThreadCountScope scope(3);
  std::vector<int> nested_on_own_thread(6, 0);
  parallel_for(6, [&](std::size_t task) {
    const std::thread::id outer = std::this_thread::get_id();
    int same = 0;
    parallel_for(4, [&](std::size_t) { same += std::this_thread::get_id() == outer ? 1 : 0; });
    nested_on_own_thread[task] = same;
  });
  for (int same : nested_on_own_thread) EXPECT_EQ(same, 4);
}

TEST(ParallelFor, RethrowsTheLowestNumberedFailureAfterEveryTaskEnded) {
  for (std::size_t threads : {1, 3}) {
    const ThreadCountScope scope(threads);
    std::atomic<int> finished{0};
    try {
      parallel_for(50, [&](std::size_t task) {
        finished.fetch_add(1);
        if (task == 17 || task == 31) throw std::runtime_error("task " + std::to_string(task));
      });
      ADD_FAILURE() << "parallel_for returned";
    } catch (const std::runtime_error& error) {
      EXPECT_EQ(std::string(error.what()), "task 17");
    }
    // Serially the loop stops at the first failure; in parallel every task runs.
    EXPECT_EQ(finished.load(), threads == 1 ? 18 : 50);
  }
}

TEST(ParallelPieces, CoverEveryIndexOnceInConsecutivePieces) {
  for (std::size_t threads : {1, 2, 3}) {
    const ThreadCountScope scope(threads);
    for (std::size_t count :
         {std::size_t{0}, std::size_t{7}, std::size_t{19}, std::size_t{20}, std::size_t{1000}}) {
      std::vector<std::atomic<int>> runs(count);
      std::atomic<std::size_t> pieces{0};
      parallel_pieces(count, 10, [&](std::size_t begin, std::size_t end) {
        pieces.fetch_add(1);
        for (std::size_t i = begin; i < end; ++i) runs[i].fetch_add(1);
      });
      for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(runs[i].load(), 1) << i;
      // One piece below twice the minimum or on one thread, else one per thread.
      const std::size_t expected = count < 20 || threads == 1 ? 1 : std::min(threads, count / 10);
      EXPECT_EQ(pieces.load(), expected) << count << " on " << threads << " threads";
    }
  }
}

TEST(ParallelPieces, RethrowTheFailureOfTheFirstPiece) {
  const ThreadCountScope scope(3);
  try {
    parallel_pieces(300, 10, [&](std::size_t begin, std::size_t) {
      throw std::runtime_error("piece from " + std::to_string(begin));
    });
    ADD_FAILURE() << "parallel_pieces returned";
  } catch (const std::runtime_error& error) {
    EXPECT_EQ(std::string(error.what()), "piece from 0");
  }
}

// The elementwise kernels split long contiguous runs among threads; every
// element is still computed by the same expression, so the bits are equal.
TEST(ParallelPieces, ElementwiseResultsDoNotDependOnTheThreadCount) {
  const std::size_t count = 3 * kMinimumPiece + 5;
  std::vector<double> left(count), right(count);
  for (std::size_t i = 0; i < count; ++i) {
    left[i] = 1.0 / static_cast<double>(i + 3);
    right[i] = static_cast<double>(i % 97) - 48.5;
  }
  const Tensor a(Shape{count}, left);
  const Tensor b(Shape{count}, right);
  const auto run = [&](std::size_t threads) {
    const ThreadCountScope scope(threads);
    const Tensor product = mul(a.view(), b.view());
    const Tensor mapped = map_values(a.view(), [](double x) { return std::exp(x) / 3.0; });
    std::vector<double> values(product.values().begin(), product.values().end());
    values.insert(values.end(), mapped.values().begin(), mapped.values().end());
    return values;
  };
  const std::vector<double> alone = run(1);
  for (std::size_t i = 0; i < count; ++i) ASSERT_EQ(alone[i], left[i] * right[i]) << i;
  for (std::size_t threads : {2, 3, 8}) {
    const std::vector<double> split = run(threads);
    ASSERT_EQ(split.size(), alone.size());
    EXPECT_EQ(0, std::memcmp(split.data(), alone.data(), alone.size() * sizeof(double)))
        << threads << " threads";
  }
}

TEST(ThreadCount, ReadsAWholeNumberFromOneToTheMaximum) {
  EXPECT_EQ(parallel_detail::thread_count_from("LLM_THREADS", "1"), 1u);
  EXPECT_EQ(parallel_detail::thread_count_from("LLM_THREADS", "2"), 2u);
  EXPECT_EQ(parallel_detail::thread_count_from("LLM_THREADS", "64"), kMaximumThreads);
  for (const char* text : {"0", "65", "-1", "2 ", "two", "", "1e1", "99999999999999999999999"}) {
    const auto error = testing::capture_error<ConfigurationError>(
        [&] { parallel_detail::thread_count_from("LLM_THREADS", text); });
    EXPECT_EQ(error->kind(), ConfigurationErrorKind::InvalidThreadCount) << text;
    EXPECT_EQ(std::string(error->what()),
              "LLM_THREADS must be a thread count from 1 to 64, got '" + std::string(text) + "'");
  }
}

TEST(ThreadCount, RefusesZeroAndTooManyAndKeepsTheCountItHad) {
  const ThreadCountScope scope(2);
  for (std::size_t count : {std::size_t{0}, kMaximumThreads + 1}) {
    const auto error = testing::capture_error<ConfigurationError>([&] { set_thread_count(count); });
    EXPECT_EQ(error->kind_name(), "invalid-thread-count");
    EXPECT_EQ(error->evidence().source, "set_thread_count");
    EXPECT_EQ(thread_count(), 2u);
  }
  EXPECT_EQ(set_thread_count(3), 2u);
  EXPECT_EQ(thread_count(), 3u);
}

}  // namespace
}  // namespace llm
