// Constants that kernels keep in a form of their own -- a oneDNN weights layout, a packed
// GEMM's panels, a Winograd filter transform -- shared by every kernel that derives the same
// form from the same bytes of the same owner.
//
// Why: an engine builds one execution plan per set of input dims (a transformer served at
// many sequence lengths, a detector at several image sizes), and one load's precision
// timing and accuracy search build several more; each plan prepares its own kernels. Without
// sharing, every plan held its own packed copy of every weight: 16 cached plans of an
// encoder, 16 copies of its weights.
//
// The cache owns nothing: an entry is found only while the constant's owner and some
// kernel's form are both alive (weak references), so a freed constant whose address is
// reused, or a form no kernel holds any more, never matches. The same owner and address
// mean the same bytes (graph::TensorData is immutable), so contents are not hashed.
// `Recipe` says how the form was derived (dims, strides, target layout) and compares with
// ==: equal recipes of the same bytes give equal forms.
#pragma once

#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>

#include "runtime/common/streamed_memory.h"

namespace amp::kernels::cpu {

// A zeroed, 64-byte aligned buffer of `bytes` for a packed form (the packed GEMM's and GEMV's
// panels, their padding zero), on huge pages when large (streamed_memory.h): `fill` writes
// it, and the form frees it with its last holder.
template <typename Fill>
std::shared_ptr<const float> packed_form(size_t bytes, Fill&& fill) {
  std::shared_ptr<void> memory = allocate_streamed(bytes);
  if (!memory) throw std::bad_alloc();
  auto* out = static_cast<float*>(memory.get());
  std::memset(out, 0, bytes);
  fill(out);
  return std::shared_ptr<const float>(std::move(memory), out);
}

template <typename Recipe, typename Form>
class SharedConstants {
 public:
  // The one instance per (Recipe, Form), alive until the process ends (kernels destroyed
  // during static destruction still find it).
  static SharedConstants& instance() {
    static SharedConstants* cache = new SharedConstants();
    return *cache;
  }

  // The form of `data` (owned by `owner`) that `recipe` describes: one some kernel holds,
  // else make()'s, remembered. Without an owner nothing is shared. make() runs outside the
  // lock (packing a large weight takes milliseconds): two kernels preparing the same form
  // at once may both make it, and the first remembered is the one found afterwards.
  template <typename Make>
  std::shared_ptr<const Form> get(const void* data, const std::shared_ptr<const void>& owner,
                                  const Recipe& recipe, Make&& make) {
    if (!owner) return make();
    if (std::shared_ptr<const Form> found = find(data, owner, recipe)) return found;
    std::shared_ptr<const Form> made = make();
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(entries_, [](const Entry& e) { return e.owner.expired() || e.form.expired(); });
    entries_.push_back({data, owner, recipe, made});
    return made;
  }

 private:
  struct Entry {
    const void* data;
    std::weak_ptr<const void> owner;
    Recipe recipe;
    std::weak_ptr<const Form> form;
  };

  std::shared_ptr<const Form> find(const void* data, const std::shared_ptr<const void>& owner,
                                   const Recipe& recipe) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const Entry& e : entries_)
      if (e.data == data && same_owner(e.owner, owner) && e.recipe == recipe)
        if (std::shared_ptr<const Form> form = e.form.lock()) return form;
    return nullptr;
  }

  static bool same_owner(const std::weak_ptr<const void>& a, const std::shared_ptr<const void>& b) {
    return !a.expired() && !a.owner_before(b) && !b.owner_before(a);
  }

  std::mutex mu_;
  std::vector<Entry> entries_;
};

}  // namespace amp::kernels::cpu
