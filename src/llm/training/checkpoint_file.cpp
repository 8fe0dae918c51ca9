// Checkpoint files (chapter 35): reading a whole file, and replacing one
// atomically through a synced temporary file in the same directory.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "llm/training/checkpoint.hpp"

namespace llm {

namespace {

std::string system_reason(int error_number) {
  return std::strerror(error_number);
}

CheckpointError file_error(CheckpointErrorKind kind, const std::string& path, std::string detail) {
  return CheckpointError(kind, {.path = path, .detail = std::move(detail)});
}

// Closes a descriptor when it goes out of scope (a failed save returns early).
class FileDescriptor {
 public:
  explicit FileDescriptor(int descriptor) : descriptor_(descriptor) {}
  ~FileDescriptor() {
    if (descriptor_ >= 0) ::close(descriptor_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const noexcept { return descriptor_; }
  /// Closes now and reports close's own error (a deferred write error surfaces here).
  int close() noexcept {
    const int result = ::close(descriptor_);
    descriptor_ = -1;
    return result;
  }

 private:
  int descriptor_;
};

// Writes every byte, retrying short writes and interrupted calls.
bool write_all(int descriptor, const std::vector<std::uint8_t>& bytes, int& error_number) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t result = ::write(descriptor, bytes.data() + written, bytes.size() - written);
    if (result < 0) {
      if (errno == EINTR) continue;
      error_number = errno;
      return false;
    }
    written += static_cast<std::size_t>(result);
  }
  return true;
}

std::atomic<std::uint64_t> next_temporary{0};

}  // namespace

Checkpoint Checkpoint::load(const std::string& path) {
  std::error_code status;
  if (std::filesystem::is_directory(path, status)) {
    throw file_error(CheckpointErrorKind::ReadFailed, path, "it is a directory");
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) throw file_error(CheckpointErrorKind::ReadFailed, path, system_reason(errno));
  const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                                        std::istreambuf_iterator<char>());
  if (file.bad()) throw file_error(CheckpointErrorKind::ReadFailed, path, "a read failed");
  try {
    return decode(bytes);
  } catch (const CheckpointError& refused) {
    throw refused.at_path(path);
  }
}

// region: atomic-checkpoint-save
EncodedCheckpoint Checkpoint::save(const std::string& path) const {
  const std::filesystem::path destination(path);
  if (destination.filename().empty()) {
    throw file_error(CheckpointErrorKind::WriteFailed, path, "the path names no file");
  }
  const std::filesystem::path directory =
      destination.has_parent_path() ? destination.parent_path() : std::filesystem::path(".");
  const EncodedCheckpoint encoded = encode();

  // A new file beside the destination (same file system, so rename is atomic).
  const std::string temporary =
      (directory / ("." + destination.filename().string() + ".tmp-" + std::to_string(::getpid()) +
                    "-" + std::to_string(next_temporary.fetch_add(1))))
          .string();
  FileDescriptor file(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (file.get() < 0) {
    throw file_error(CheckpointErrorKind::WriteFailed, path,
                     "cannot create " + temporary + ": " + system_reason(errno));
  }
  const auto fail = [&](CheckpointErrorKind kind, const std::string& step, int error_number) {
    ::unlink(temporary.c_str());  // the destination was never touched
    return file_error(kind, path, step + ": " + system_reason(error_number));
  };
  int error_number = 0;
  if (!write_all(file.get(), encoded.bytes, error_number)) {
    throw fail(CheckpointErrorKind::WriteFailed, "writing " + temporary, error_number);
  }
  if (::fsync(file.get()) != 0) {  // the bytes are on the disk before the name points at them
    throw fail(CheckpointErrorKind::WriteFailed, "syncing " + temporary, errno);
  }
  if (file.close() != 0)
    throw fail(CheckpointErrorKind::WriteFailed, "closing " + temporary, errno);
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    throw fail(CheckpointErrorKind::ReplaceFailed, "renaming " + temporary, errno);
  }
  // Sync the directory so the rename itself survives a power loss.
  FileDescriptor parent(::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent.get() < 0 || ::fsync(parent.get()) != 0) {
    throw file_error(CheckpointErrorKind::ReplaceFailed, path,
                     "syncing the directory " + directory.string() + ": " + system_reason(errno));
  }
  return encoded;
}
// endregion: atomic-checkpoint-save

}  // namespace llm
