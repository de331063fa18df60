// Small graph edits the rewriting passes share (fusions, folding).
//
//   std::vector<char> remove(g.nodes.size(), 0);  // mark the nodes a rewrite replaced
//   remove_marked_nodes(g, remove);                // drop them, then every unreferenced value
//   NameTable names = NameTable::values_of(g);    // one per pass run: a name costs O(1)
//   ValueId c = add_constant(g, names, "conv1.folded_bias", data);
//   ValueId t = add_computed_value(g, names, "mm.rows", DType::kF32);  // shape inferred later
//   if (is_f32_constant(g, w)) ...                 // a weight a fold may compute from
//   std::optional<ValueId> v = constant_as_vector(g, names, bias, n);  // [1, 1, n] -> [n]
//   std::optional<ConvWeightChannels> oc = conv_weight_channels(g, conv);  // Conv or ConvTranspose
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/ir/name_table.h"

namespace amp::graph {

// Removes the nodes whose `remove` entry is set, keeping the others' order, then the values
// nothing references any more (Graph::compact_values: ids held outside become invalid).
void remove_marked_nodes(Graph& g, const std::vector<char>& remove);

// Whether `v` is present, a constant, and f32 (the folds compute new f32 weights from it).
bool is_f32_constant(const Graph& g, ValueId v);

// A new constant value named names.fresh(base), its dtype and static shape taken from `data`.
ValueId add_constant(Graph& g, NameTable& names, const std::string& base, TensorData data);

// A new computed value named names.fresh(base) of `dtype`, its shape left to inference (the
// rewriting passes' intermediate values).
ValueId add_computed_value(Graph& g, NameTable& names, const std::string& base, DType dtype);

// The constant `v` read as a vector of `n` elements: itself when it is already [n], a new
// [n] constant holding its bytes when its dims are all 1 but the last (n); nullopt for
// anything else (not a constant, another element count or layout).
std::optional<ValueId> constant_as_vector(Graph& g, NameTable& names, ValueId v, int64_t n);

// How a Conv's or ConvTranspose's constant weight maps to its output channels, for the
// folds that scale or bias per output channel. Conv W is [M, C/group, k...]: element i
// belongs to channel i / (numel / M). ConvTranspose W is [C, M/group, k...]: element i of
// input channel c = i / (M/group * k) belongs to channel c / (C/group) * (M/group) +
// (i / k) % (M/group), k being the window's size.
struct ConvWeightChannels {
  int64_t channels = 0;  // M
  bool transposed = false;
  int64_t in_per_group = 0, out_per_group = 0, window = 0;

  int64_t of_element(int64_t i) const {
    if (!transposed) return i / (in_per_group * window);
    const int64_t c = i / (out_per_group * window);
    return c / in_per_group * out_per_group + i / window % out_per_group;
  }
};

// The map for `conv` (Conv or ConvTranspose with a constant weight of rank >= 3 and a valid
// group), or nullopt.
std::optional<ConvWeightChannels> conv_weight_channels(const Graph& g, const Node& conv);

}  // namespace amp::graph
