// Helpers shared by the blockscope subcommands: files (read, atomic write), token ids and data files, the
// tokenizer choice, a model directory loaded together with its tensor naming, and number formatting.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <climits>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/checkpoint.hpp"
#include "blockscope/gpt_model.hpp"
#include "blockscope/tokenizer.hpp"
#include "blockscope/tokenizer_files.hpp"

namespace blockscope::cli {

// Checks of numeric option values, run by CLI11 on the text before it converts it (a failure exits
// with "--name: ..." naming the option and quoting the value): decimal integers that fit int64 ("1e300" and
// "99999999999999999999" are refused, not wrapped), finite numbers (no nan, inf or 1e300 for a float
// option), and seeds, integers in [0, 2^53) as the web page's seeds are (JavaScript numbers).
// integer_value(lo, hi) also bounds the value: "must be an integer in [lo, hi], got '...'" (the limits come
// from the core, e.g. TrainConfig::kMaxGradAccum).
CLI::Validator integer_value(int64_t lo = INT64_MIN, int64_t hi = INT64_MAX);
CLI::Validator finite_number(bool single_precision = false);
CLI::Validator seed_value();

// The text of --text TEXT or --text-file PATH (and the like): exactly one of the two options must be given;
// a file is read whole (a regular file of at most kMaxDataFileBytes).
std::string text_or_file(const CLI::Option* text_option, const std::string& text, const CLI::Option* file_option,
                         const std::string& path);

// "15496,11,995" -> ids; throws Error naming the bad entry ('x' is not a token id ...).
std::vector<int32_t> parse_ids(const std::string& text);

// The whole file as text (the core's read_file_bytes); throws Error "cannot open 'PATH': reason".
std::string read_file(const std::string& path);
// Text through the core's write_file_atomic (a temporary file renamed into place).
using blockscope::write_file_atomic;
void write_file_atomic(const std::string& path, std::string_view text);

// Test seams of the core's directory commits (CommitHooks), set from the environment so the CLI tests can
// simulate what they cannot cause on demand: BLOCKSCOPE_TEST_KILL_AT_RENAME=N sends the process SIGKILL at
// commit point N (before the (N+1)-th rename; N = the number of files: after the last), and
// BLOCKSCOPE_TEST_FULL_DISK=NAME makes writing the file NAME fail with ENOSPC. Empty hooks when unset.
CommitHooks commit_hooks_from_env();

// A model directory's tokenizer as every front end picks it: its own tokenizer files of a layout that fits the
// vocabulary (the core's model_tokenizer_layouts: GPT-2-format BPE from 256 ids up, tokens.json below), else the
// core's default_tokenizer_kind for the vocabulary (bytes, bytes+eot); null when neither gives one (or "gpt2" would
// need GPT-2's files, which the CLI does not ship).
std::unique_ptr<Tokenizer> model_tokenizer(const std::string& model_dir, int64_t vocab_size);
// --tokenizer DIR (the first tokenizer files found there: vocab.json + merges.txt, encoder.json + vocab.bpe or
// tokens.json) or "bytes" / "bytes+eot"; if empty, model_tokenizer, else an Error asking for --tokenizer.
std::unique_ptr<Tokenizer> open_tokenizer(const std::string& option, const std::string& model_dir,
                                          int64_t vocab_size);
// --tokenizer's help text, shared by every subcommand that takes it.
inline constexpr const char* kTokenizerHelp =
    "tokenizer directory (vocab.json + merges.txt, encoder.json + vocab.bpe, or tokens.json), or 'bytes'";

// Token ids of a data file, by extension: ".ids" integers separated by whitespace and/or commas, ".bin"
// uint16 little-endian (nanoGPT's train.bin), anything else UTF-8 text encoded with `tokenizer`'s choice
// (open_tokenizer's rules). Throws Error naming the file and the bad entry; an empty result is an error.
struct TokenFile {
  std::vector<int32_t> ids;
  std::string kind;                      // "text", "ids" or "bin"
  std::unique_ptr<Tokenizer> tokenizer;  // set for text only
  int64_t bytes = 0;                     // the file's size
};
TokenFile read_token_file(const std::string& path, const std::string& tokenizer, const std::string& model_dir,
                          int64_t vocab_size);

std::string with_commas(int64_t n);          // 1234567 -> "1,234,567"
std::string clock_time(double seconds);      // 42 -> "0:42", 3723 -> "1:02:03"

// --ablate / --ablate-mode of forward, generate, lens and attribute (interpret.hpp's parse_heads and
// parse_head_ablation read them): the heads' outputs are zeroed, or replaced by their running mean over positions
// 0..t, before each block's output projection.
inline constexpr const char* kAblateHelp = "heads to ablate, block.head 0-based and comma-separated, e.g. 1.0,3.2";
inline constexpr const char* kAblateModeHelp = "zero (default) or mean: replace by the mean over positions 0..t";

}  // namespace blockscope::cli
