// amp-convert: ONNX -> .amp.
//
//   amp-convert model.onnx model.amp [--shape data=1x3x224x224 ...]
//
// Pipeline: import (graph/onnx) -> shape inference -> graph passes -> write the .amp
// file -> print a one-screen summary. Exit codes: 0 success, 1 conversion error (the
// message on stderr), 2 bad command line.
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/ir/graph.h"
#include "graph/onnx/onnx_importer.h"
#include "runtime/common/status.h"
#include "tools/convert/summary.h"

#include "graph/passes/pipelines.h"
#include "graph/serialize/amp_writer.h"

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

const char kUsage[] =
    "usage: amp-convert MODEL.onnx OUTPUT.amp [--shape NAME=DIMS ...]\n"
    "\n"
    "Converts an ONNX model (ai.onnx opsets 7 to 28) to the AMPRT .amp format.\n"
    "\n"
    "options:\n"
    "  --shape NAME=DIMS  fix the dims of graph input NAME, e.g. --shape data=1x3x224x224;\n"
    "                     the symbolic dims it replaces are fixed everywhere in the graph.\n"
    "                     May be repeated, once per input.\n"
    "  -h, --help         show this help\n";

struct CommandLine {
  std::string input;
  std::string output;
  amp::graph::ImportOptions import;
};

// nullopt after printing the problem (or the help, with *help set) to the right stream.
std::optional<CommandLine> parse_command_line(int argc, char** argv, bool* help) {
  CommandLine cl;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return std::nullopt;
    }
    if (arg == "--shape" || arg.rfind("--shape=", 0) == 0) {
      std::string value;
      if (arg == "--shape") {
        if (i + 1 >= argc) {
          std::cerr << "amp-convert: --shape needs a value\n";
          return std::nullopt;
        }
        value = argv[++i];
      } else {
        value = arg.substr(8);
      }
      auto parsed = amp::graph::parse_shape_arg(value);
      if (!parsed.is_ok()) {
        std::cerr << "amp-convert: --shape: " << parsed.status().message() << "\n";
        return std::nullopt;
      }
      if (!cl.import.input_shapes.emplace(parsed->first, parsed->second).second) {
        std::cerr << "amp-convert: --shape given twice for '" << parsed->first << "'\n";
        return std::nullopt;
      }
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::cerr << "amp-convert: unknown option '" << arg << "'\n";
      return std::nullopt;
    }
    positional.push_back(arg);
  }
  if (positional.size() != 2) {
    std::cerr << "amp-convert: expected MODEL.onnx and OUTPUT.amp\n";
    return std::nullopt;
  }
  cl.input = positional[0];
  cl.output = positional[1];
  return cl;
}

amp::Status write_output(const amp::graph::Graph& g, const std::string& path) {
  return amp::graph::write_amp_file(g, path);
}

amp::Result<amp::graph::Graph> convert(const CommandLine& cl) {
  AMP_ASSIGN_OR_RETURN(amp::graph::Graph g, amp::graph::import_onnx_file(cl.input, cl.import));
  // Shape inference, constant folding, dead-code elimination (passes/pipelines.h).
  AMP_RETURN_IF_ERROR(amp::graph::run_conversion_passes(g));
  AMP_RETURN_IF_ERROR(write_output(g, cl.output));
  return g;
}

}  // namespace

int main(int argc, char** argv) {
  bool help = false;
  std::optional<CommandLine> cl = parse_command_line(argc, argv, &help);
  if (help) {
    std::cout << kUsage;
    return 0;
  }
  if (!cl) {
    std::cerr << kUsage;
    return kExitUsage;
  }
  auto g = convert(*cl);
  if (!g.is_ok()) {
    std::cerr << "amp-convert: " << g.status().to_string() << "\n";
    return kExitError;
  }
  std::cout << amp::tools::graph_summary(*g, cl->input);
  std::cout << "written:   " << cl->output << "\n";
  return 0;
}
