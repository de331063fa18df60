// MappedFile: a whole file mapped read-only into memory (POSIX mmap), unmapped when the
// object dies. The .amp reader keeps one alive through a shared_ptr held by every
// constant's TensorData, so weights are read in place, never copied.
//
//   AMP_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> f, MappedFile::open(path));
//   parse(f->data(), f->size());  // valid while `f` (or a copy of it) lives
//
// Contract and limits:
//   - Errors are Status: kNotFound when the file cannot be opened, is not a regular file,
//     or cannot be stat'ed or mapped (the message names the path and the OS error).
//   - A 0-byte file is valid: mmap rejects length 0, so nothing is mapped and data() is
//     nullptr with size() == 0.
//   - The mapping is MAP_PRIVATE and PROT_READ: writes through data() fault. If another
//     process truncates the file while it is mapped, touching the lost pages raises
//     SIGBUS; no user-space check can prevent that, so do not rewrite a model in place
//     while it is loaded (amp_writer.h writes to a temporary file and renames).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/common/status.h"

namespace amp::graph {

class MappedFile {
 public:
  static Result<std::shared_ptr<const MappedFile>> open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Whether [p, p + n) lies inside the mapping.
  bool contains(const void* p, size_t n) const;

  // Hands the whole pages inside [offset, offset + length) back to the OS (madvise
  // MADV_DONTNEED); returns their bytes. The bytes stay readable: the mapping is private and
  // never written, so a page read again is faulted back in from the file, unchanged. For
  // pages nothing will read for a while (weights whose packed copies the kernels read).
  size_t drop_pages(size_t offset, size_t length) const;
  static size_t page_size();

 private:
  MappedFile() = default;

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace amp::graph
