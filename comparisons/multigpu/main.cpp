// reducelab-multigpu: the multi-GPU comparison (issue 14), a tool of its own so that `reducelab` never links NCCL.
#include "comparisons/multigpu/compare.hpp"
#include "comparisons/multigpu/options.hpp"
#include "reducelab/core/error.hpp"
#include "reducelab/multigpu/error.hpp"

#include <exception>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  namespace tool = reducelab::multigpu::tool;
  try {
    const tool::options options = tool::parse_command_line(argc, argv);
    if (options.command == "help") {
      std::cout << options.help_text;
      return 0;
    }
    std::string command_line = "reducelab-multigpu";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    return tool::run_compare(options, std::cout, command_line);
  } catch (const reducelab::usage_error& e) {
    std::cerr << "reducelab-multigpu: error: " << e.what() << "\n";
    return 2;
  } catch (const reducelab::cuda_error& e) {
    std::cerr << "reducelab-multigpu: CUDA error: " << e.what() << "\n";
    return 3;
  } catch (const reducelab::nccl_error& e) {
    std::cerr << "reducelab-multigpu: NCCL error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "reducelab-multigpu: error: " << e.what() << "\n";
    return 4;
  }
}
