#include "graph/serialize/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

namespace amp::graph {
namespace {

std::string os_error(const std::string& what, const std::string& path) {
  return what + " '" + path + "': " + std::strerror(errno);
}

// Closes the descriptor on every return path; the mapping stays valid after close.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
  FdCloser fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) return not_found(os_error("cannot open", path));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) return not_found(os_error("cannot stat", path));
  if (!S_ISREG(st.st_mode)) return not_found("cannot map '" + path + "': not a regular file");
  if (st.st_size < 0) return not_found("cannot map '" + path + "': negative file size");

  std::shared_ptr<MappedFile> file(new MappedFile());
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > SIZE_MAX) return not_found("cannot map '" + path + "': file too large");
  if (size == 0) return std::shared_ptr<const MappedFile>(std::move(file));

  void* p = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (p == MAP_FAILED) return not_found(os_error("cannot mmap", path));
  file->data_ = static_cast<const uint8_t*>(p);
  file->size_ = static_cast<size_t>(size);
  return std::shared_ptr<const MappedFile>(std::move(file));
}

bool MappedFile::contains(const void* p, size_t n) const {
  // As integers: comparing pointers into different objects is unspecified in C++.
  const auto begin = reinterpret_cast<uintptr_t>(data_), at = reinterpret_cast<uintptr_t>(p);
  return data_ != nullptr && at >= begin && n <= size_ && at - begin <= size_ - n;
}

size_t MappedFile::page_size() {
  static const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return page;
}

size_t MappedFile::drop_pages(size_t offset, size_t length) const {
  if (data_ == nullptr || offset >= size_) return 0;
  length = std::min(length, size_ - offset);
  const size_t page = page_size();
  // Inward to whole pages, but the file's last page counts as whole (the mapping covers it).
  const size_t begin = (offset + page - 1) / page * page;
  const size_t end = offset + length == size_ ? offset + length : (offset + length) / page * page;
  if (end <= begin) return 0;
  if (::madvise(const_cast<uint8_t*>(data_) + begin, end - begin, MADV_DONTNEED) != 0) return 0;
  return end - begin;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace amp::graph
