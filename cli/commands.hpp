// The blockscope subcommands, in groups that register themselves on the CLI11 app. When CLI11 selects a
// subcommand, its callback stores the action main() then runs inside the one error handler.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace blockscope::cli {

using Action = std::function<int()>;  // returns the exit code; throws on bad input

void add_model_commands(CLI::App& app, Action& action);     // info, forward, generate, tokenize, detokenize, init
void add_loss_commands(CLI::App& app, Action& action);      // grad, eval (loss_commands.cpp)
void add_training_commands(CLI::App& app, Action& action);  // train (train_commands.cpp)
void add_interpret_commands(CLI::App& app, Action& action); // lens, attribute (interpret_commands.cpp)
void add_tokenizer_commands(CLI::App& app, Action& action); // tokenizer train (tokenizer_commands.cpp)

}  // namespace blockscope::cli
