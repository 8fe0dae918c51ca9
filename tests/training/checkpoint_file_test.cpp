// Chapter 35: checkpoint files. A save replaces the destination atomically
// and leaves no temporary file; a process killed in the middle of a save
// leaves the previous file intact under the final name; a failed write
// removes its temporary file; a missing or damaged file is refused with an
// error naming the file and the reason.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "llm/training/checkpoint.hpp"
#include "support/test_support.hpp"

namespace llm {
namespace {

namespace fs = std::filesystem;
using testing::capture_error;

Checkpoint checkpoint_with(std::uint64_t generator_state, std::size_t width = 2) {
  std::vector<double> values(3 * width);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = 0.25 * static_cast<double>(i) - 1.0;
  return Checkpoint::create(CheckpointTokenizer::literal({"a", "b", "c"}),
                            CheckpointModelConfig{3, width, 1, width, 1, 4, 10000.0, 1e-6},
                            {{"table.weight", Tensor(Shape{3, width}, values)}},
                            AdamW(AdamWConfig::create(0.01, 0.9, 0.999, 1e-8, 0.0)).state(), 0,
                            generator_state);
}

std::vector<std::uint8_t> read_bytes(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// A fresh directory per test, removed afterwards.
class CheckpointFile : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = fs::temp_directory_path() /
                 ("llm-checkpoint-test-" + std::to_string(::getpid()) + "-" +
                  ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override { fs::remove_all(directory_); }
  std::vector<std::string> entries() const {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory_)) {
      names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
  }
  fs::path directory_;
};

TEST_F(CheckpointFile, SaveReplacesTheFileWholeAndLeavesNoTemporaryFile) {
  const std::string path = (directory_ / "model.llmcp").string();
  const EncodedCheckpoint first = checkpoint_with(0x9e3779b97f4a7c38).save(path);
  EXPECT_EQ(read_bytes(path), first.bytes);
  const Checkpoint replacement = checkpoint_with(0x9e3779b97f4a7c39);
  replacement.save(path);
  const Checkpoint loaded = Checkpoint::load(path);
  EXPECT_EQ(loaded, replacement);
  EXPECT_EQ(loaded.generator_state(), 0x9e3779b97f4a7c39u);
  EXPECT_EQ(entries(), std::vector<std::string>{"model.llmcp"});  // temporary_files:0
}

// The child process is killed by SIGXFSZ when its write passes a 4 KiB file
// size limit: a real crash in the middle of writing. The destination still
// holds the previous checkpoint; only a stale temporary file is left beside it.
TEST_F(CheckpointFile, ACrashMidSaveLeavesThePreviousFileIntact) {
  const std::string path = (directory_ / "model.llmcp").string();
  const EncodedCheckpoint previous = checkpoint_with(1).save(path);
  const Checkpoint large = checkpoint_with(2, 512);  // 3 x 512 doubles: about 12 KiB
  ASSERT_GT(large.encode().bytes.size(), 8192u);

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_DFL);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    large.save(path);
    ::_exit(0);  // not reached: the write past 4 KiB kills the process
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGXFSZ);

  EXPECT_EQ(read_bytes(path), previous.bytes);
  EXPECT_EQ(Checkpoint::load(path).generator_state(), 1u);
  const std::vector<std::string> names = entries();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0].rfind(".model.llmcp.tmp-", 0), 0u);  // the torn bytes are only here
  EXPECT_EQ(fs::file_size(directory_ / names[0]), 4096u);
}

// With SIGXFSZ ignored the write fails with EFBIG instead: save throws
// WriteFailed, removes its temporary file, and leaves the destination alone.
TEST_F(CheckpointFile, AFailedWriteRemovesItsTemporaryFile) {
  const std::string path = (directory_ / "model.llmcp").string();
  const EncodedCheckpoint previous = checkpoint_with(1).save(path);
  const Checkpoint large = checkpoint_with(2, 512);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      large.save(path);
    } catch (const CheckpointError& error) {
      const bool named = std::string(error.what()).find(path) != std::string::npos;
      ::_exit(error.kind() == CheckpointErrorKind::WriteFailed && named ? 0 : 2);
    }
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(entries(), std::vector<std::string>{"model.llmcp"});
  EXPECT_EQ(read_bytes(path), previous.bytes);
}

TEST_F(CheckpointFile, SavingIntoAMissingDirectoryFailsCleanly) {
  const std::string path = (directory_ / "absent" / "model.llmcp").string();
  const auto error = capture_error<CheckpointError>([&] { checkpoint_with(1).save(path); });
  EXPECT_EQ(error->kind(), CheckpointErrorKind::WriteFailed);
  EXPECT_NE(std::string(error->what()).find("No such file or directory"), std::string::npos);
}

TEST_F(CheckpointFile, AMissingOrDamagedFileIsRefusedNamingTheFile) {
  const std::string missing = (directory_ / "nowhere.llmcp").string();
  const auto not_found = capture_error<CheckpointError>([&] { Checkpoint::load(missing); });
  EXPECT_EQ(not_found->kind(), CheckpointErrorKind::ReadFailed);
  EXPECT_EQ(std::string(not_found->what()),
            missing + ": cannot read the checkpoint: No such file or directory");
  EXPECT_EQ(capture_error<CheckpointError>([&] { Checkpoint::load(directory_.string()); })->kind(),
            CheckpointErrorKind::ReadFailed);

  const std::string path = (directory_ / "model.llmcp").string();
  std::vector<std::uint8_t> bytes = checkpoint_with(1).save(path).bytes;
  bytes.resize(bytes.size() - 3);
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
  const auto truncated = capture_error<CheckpointError>([&] { Checkpoint::load(path); });
  EXPECT_EQ(truncated->kind(), CheckpointErrorKind::FileLengthMismatch);
  EXPECT_EQ(truncated->evidence().path, path);
  EXPECT_EQ(std::string(truncated->what()).rfind(path + ": the header declares ", 0), 0u);

  std::ofstream(path, std::ios::binary) << "not a checkpoint at all, just some text";
  EXPECT_EQ(capture_error<CheckpointError>([&] { Checkpoint::load(path); })->kind(),
            CheckpointErrorKind::InvalidMagic);
}

}  // namespace
}  // namespace llm
