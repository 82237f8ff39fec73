// reducelab: the command-line tool. All the work is in the library (src/lab/cli/commands.cpp).
#include "lab/cli/commands.hpp"
#include "reducelab/core/error.hpp"

#include <exception>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  try {
    const auto options = reducelab::cli::parse_options(argc, argv);
    // Printed here rather than by run_command: the text may be one command's help, and help needs no registry.
    if (options.command == "help") {
      std::cout << options.help_text;
      return 0;
    }
    std::string command_line = "reducelab";
    for (int i = 1; i < argc; ++i) command_line += std::string(" ") + argv[i];
    return reducelab::cli::run_command(options, std::cout, command_line);
  } catch (const reducelab::usage_error& e) {
    std::cerr << "reducelab: error: " << e.what() << "\n";
    return 2;
  } catch (const reducelab::cuda_error& e) {
    std::cerr << "reducelab: CUDA error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "reducelab: error: " << e.what() << "\n";
    return 4;
  }
}
