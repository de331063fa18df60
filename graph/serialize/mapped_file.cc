#include "graph/serialize/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
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

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
}

}  // namespace amp::graph
