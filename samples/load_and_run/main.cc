// The ten-line use of the API: load a model, run it, read the output.
// Usage: sample_load_and_run demo_resnet.amp
#include <amp/engine.h>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) return std::fprintf(stderr, "usage: %s MODEL.amp|MODEL.onnx\n", argv[0]), 2;
  try {
    amp::Engine engine = amp::Engine::load(argv[1], amp::Options{});
    const amp::TensorInfo& in = engine.inputs()[0];
    std::vector<int64_t> shape = in.shape;
    for (int64_t& d : shape) d = d < 0 ? 1 : d;           // bind symbolic dims (batch) to 1
    amp::Tensor x = amp::Tensor::empty(in.dtype, shape);  // zeros; use your data here
    std::vector<amp::Tensor> out = engine.run({{in.name, x}});
    std::printf("%s -> %s = %s\n", in.name.c_str(), engine.outputs()[0].name.c_str(),
                out[0].describe().c_str());
    return 0;
  } catch (const amp::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
