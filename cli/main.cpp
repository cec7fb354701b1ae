// blockscope — the native command line: inspect, run, generate with, create, evaluate and train GPT
// checkpoints, tokenize text and train tokenizers, on top of the Blockscope core. Errors go to stderr with a
// non-zero exit code.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"blockscope: run, inspect and train GPT models with the Blockscope core"};
  app.set_version_flag("--version", "blockscope " BLOCKSCOPE_VERSION);
  app.require_subcommand(1);
  blockscope::cli::Action action;
  blockscope::cli::add_model_commands(app, action);
  blockscope::cli::add_loss_commands(app, action);
  blockscope::cli::add_training_commands(app, action);
  blockscope::cli::add_interpret_commands(app, action);
  blockscope::cli::add_tokenizer_commands(app, action);
  CLI11_PARSE(app, argc, argv);
  try {
    return action ? action() : 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blockscope: error: %s\n", e.what());
    return 1;
  }
}
