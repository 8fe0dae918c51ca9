// The thread pool behind parallel_for: workers started on first use, woken
// per call, each taking the next task index from one atomic counter. Which
// thread runs which task varies from call to call; what a task computes does
// not, so results never depend on it.
#include "llm/tensor/parallel.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "llm/tensor/configuration_error.hpp"

namespace llm {
namespace {

std::string allowed_counts() {
  return "1 to " + std::to_string(kMaximumThreads);
}

// region: thread-count-setting
// LLM_THREADS as a count: unset or empty means 1 (the book's default).
std::size_t count_from_environment() {
  const char* text = std::getenv("LLM_THREADS");
  if (text == nullptr || *text == '\0') return 1;
  return parallel_detail::thread_count_from("LLM_THREADS", text);
}
// endregion: thread-count-setting

// One parallel_for call: the tasks, the next index to hand out, how many are
// still running, and the exception of the lowest-numbered task that threw.
struct Job {
  std::size_t tasks = 0;
  parallel_detail::TaskFunction function = nullptr;
  void* context = nullptr;
  std::atomic<std::size_t> next{0};
  // Changed under Workers::mutex; atomic so the caller can watch it unlocked.
  std::atomic<std::size_t> unfinished{0};
  std::size_t failed_task = 0;
  std::exception_ptr failure;  // guarded by Pool::mutex
};

// How long an idle worker watches for the next call before it sleeps.
constexpr std::chrono::microseconds kSpinTime{200};

// A hint to the core that this thread is waiting in a loop.
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Calls pause() until ready() holds or kSpinTime has passed (the clock is
// read every 64 rounds); the caller then checks again under its mutex.
template <class Ready>
void spin_until(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpinTime;
  for (unsigned round = 1; !ready(); ++round) {
    pause();
    if (round % 64 == 0 && std::chrono::steady_clock::now() >= until) return;
  }
}

// A thread running a task does not fan out again.
thread_local bool inside_task = false;

// The worker threads and everything they share. A child process made by
// fork() has none of its parent's threads, and its copies of these mutexes
// and condition variables may describe waiters that do not exist there, so
// the pool of a child starts a fresh Workers and leaves the copy untouched.
struct Workers {
  std::mutex mutex;  // everything below
  std::condition_variable wake, done;
  std::uint64_t generation = 0;
  // `generation` as the workers may read it without the mutex while they
  // spin (set together with it, under the mutex).
  std::atomic<std::uint64_t> published{0};
  Job* job = nullptr;
  // Threads inside `job`: changed under `mutex`, watched unlocked.
  std::atomic<std::size_t> busy{0};
  bool stopping = false;
  std::vector<std::thread> threads;
};

class Pool {
 public:
  ~Pool() {
    if (owner_ == ::getpid()) stop_workers();
  }

  std::size_t count() {
    const std::size_t known = count_.load(std::memory_order_acquire);
    if (known != 0) return known;
    std::lock_guard<std::mutex> lock(setting_);
    if (count_.load(std::memory_order_relaxed) == 0) {
      count_.store(count_from_environment(), std::memory_order_release);
    }
    return count_.load(std::memory_order_relaxed);
  }

  std::size_t set_count(std::size_t count) {
    if (count == 0 || count > kMaximumThreads) {
      throw ConfigurationError(ConfigurationErrorKind::InvalidThreadCount,
                               {.source = "set_thread_count",
                                .value = std::to_string(count),
                                .allowed = allowed_counts()});
    }
    std::lock_guard<std::mutex> dispatching(dispatch_);  // no call is running
    std::lock_guard<std::mutex> lock(setting_);
    const std::size_t previous = count_.load(std::memory_order_relaxed);
    count_.store(count, std::memory_order_release);
    return previous == 0 ? 1 : previous;
  }

  void run(std::size_t tasks, parallel_detail::TaskFunction function, void* context) {
    const std::size_t threads = tasks > 1 && !inside_task ? count() : 1;
    std::unique_lock<std::mutex> dispatching(dispatch_, std::defer_lock);
    if (threads == 1 || !dispatching.try_lock()) {
      run_here(tasks, function, context);
      return;
    }
    Workers& workers = start_workers(std::min(threads, tasks) - 1);
    Job job;
    job.tasks = tasks;
    job.function = function;
    job.context = context;
    job.unfinished = tasks;
    {
      std::lock_guard<std::mutex> lock(workers.mutex);
      workers.job = &job;
      ++workers.generation;
      workers.published.store(workers.generation, std::memory_order_release);
    }
    workers.wake.notify_all();
    work_on(workers, job);
    spin_until_finished(workers, job);
    std::unique_lock<std::mutex> lock(workers.mutex);
    workers.done.wait(lock, [&] { return job.unfinished == 0 && workers.busy == 0; });
    workers.job = nullptr;
    lock.unlock();
    if (job.failure) std::rethrow_exception(job.failure);
  }

 private:
  static void run_here(std::size_t tasks, parallel_detail::TaskFunction function, void* context) {
    const bool outer = inside_task;
    inside_task = true;
    try {
      for (std::size_t index = 0; index < tasks; ++index) function(context, index);
    } catch (...) {
      inside_task = outer;
      throw;
    }
    inside_task = outer;
  }

  // Takes task indices until none is left; keeps the lowest-numbered failure.
  static void work_on(Workers& workers, Job& job) {
    inside_task = true;
    for (;;) {
      const std::size_t index = job.next.fetch_add(1, std::memory_order_relaxed);
      if (index >= job.tasks) break;
      std::exception_ptr failure;
      try {
        job.function(job.context, index);
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(workers.mutex);
      if (failure && (!job.failure || index < job.failed_task)) {
        job.failure = failure;
        job.failed_task = index;
      }
      if (--job.unfinished == 0) workers.done.notify_all();
    }
    inside_task = false;
  }

  // A training step calls parallel kernels back to back, often a few dozen
  // microseconds apart, and waking a worker that sleeps on the condition
  // variable took 13 to 19 microseconds on the 2-vCPU guest of
  // docs/performance.md, against about 2 for one that is watching
  // (docs/bench/handoff_probe.cpp). So a worker that has finished a call
  // watches for the next one for kSpinTime, then sleeps. Stopping the pool
  // wakes it through the condition variable as before.
  static void spin_for_next_call(Workers& workers, std::uint64_t seen) {
    spin_until([&] { return workers.published.load(std::memory_order_acquire) != seen; });
  }

  // The caller, out of tasks, watches for the workers' last ones to end
  // before it sleeps on `done` (which then, nearly always, returns at once).
  static void spin_until_finished(Workers& workers, const Job& job) {
    spin_until([&] {
      return job.unfinished.load(std::memory_order_acquire) == 0 &&
             workers.busy.load(std::memory_order_acquire) == 0;
    });
  }

  // `seen` is the generation when the thread was started, so a call
  // published before the thread first ran is not missed.
  static void worker(Workers& workers, std::uint64_t seen) {
    std::unique_lock<std::mutex> lock(workers.mutex);
    for (;;) {
      if (!workers.stopping && workers.generation == seen) {
        lock.unlock();
        spin_for_next_call(workers, seen);
        lock.lock();
      }
      workers.wake.wait(lock, [&] { return workers.stopping || workers.generation != seen; });
      if (workers.stopping) return;
      seen = workers.generation;
      Job* job = workers.job;
      if (job == nullptr) continue;  // woke after that call had finished
      ++workers.busy;
      lock.unlock();
      work_on(workers, *job);
      lock.lock();
      if (--workers.busy == 0) workers.done.notify_all();
    }
  }

  // Called with dispatch_ held: `count` threads besides the caller.
  Workers& start_workers(std::size_t count) {
    if (owner_ != ::getpid()) {  // a child of fork(): see Workers
      (void)workers_.release();
      owner_ = ::getpid();
    }
    if (workers_ && workers_->threads.size() == count) return *workers_;
    stop_workers();
    workers_ = std::make_unique<Workers>();
    Workers& fresh = *workers_;
    for (std::size_t k = 0; k < count; ++k) {
      fresh.threads.emplace_back([&fresh] { worker(fresh, 0); });  // before any call: generation 0
    }
    return fresh;
  }

  void stop_workers() {
    if (!workers_) return;
    {
      std::lock_guard<std::mutex> lock(workers_->mutex);
      workers_->stopping = true;
    }
    workers_->wake.notify_all();
    for (std::thread& thread : workers_->threads) thread.join();
    workers_.reset();
  }

  std::mutex setting_;                 // serializes reading LLM_THREADS
  std::atomic<std::size_t> count_{0};  // 0: LLM_THREADS not read yet
  std::mutex dispatch_;                // held by the one call using the workers
  std::unique_ptr<Workers> workers_;
  pid_t owner_ = ::getpid();
};

Pool& pool() {
  static Pool instance;
  return instance;
}

}  // namespace

std::size_t parallel_detail::thread_count_from(std::string_view source, std::string_view text) {
  std::size_t count = 0;
  bool digits = !text.empty();
  for (const char digit : text) {
    if (digit < '0' || digit > '9' || count > kMaximumThreads) {
      digits = false;
      break;
    }
    count = count * 10 + static_cast<std::size_t>(digit - '0');
  }
  if (!digits || count == 0 || count > kMaximumThreads) {
    throw ConfigurationError(
        ConfigurationErrorKind::InvalidThreadCount,
        {.source = std::string(source), .value = std::string(text), .allowed = allowed_counts()});
  }
  return count;
}

std::size_t thread_count() {
  return pool().count();
}

std::size_t set_thread_count(std::size_t count) {
  return pool().set_count(count);
}

void parallel_detail::run_tasks(std::size_t tasks, TaskFunction function, void* context) {
  if (tasks == 0) return;
  pool().run(tasks, function, context);
}

}  // namespace llm
