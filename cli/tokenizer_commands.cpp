// `blockscope tokenizer train`: trains a byte-level BPE tokenizer on text files with the core's BpeTrainer and
// writes it as GPT-2's vocab.json + merges.txt (which `tokenize --tokenizer DIR`, `train` and the widgets load).
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "blockscope/bpe_trainer.hpp"
#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "commands.hpp"
#include "common.hpp"

namespace blockscope::cli {

namespace {
using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr int kShownMerges = 10;  // merges listed by the text summary

struct TokenizerTrainArgs {
  std::vector<std::string> data;
  std::string out;
  BpeTrainOptions options;
  bool json = false;
};

// A token's bytes for a terminal: printable ASCII as is, a space as '␣', anything else as \xNN.
std::string shown(const std::string& bytes) {
  std::string out;
  char buf[8];
  for (const unsigned char c : bytes) {
    if (c == ' ') {
      out += "\u2423";
    } else if (c > 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  return out;
}

int cmd_tokenizer_train(const TokenizerTrainArgs& a) {
  BpeTrainer trainer(a.options);  // validates --merges and --min-frequency before anything is read
  // Before the work, not after it: an --out that cannot be written would throw the training away.
  require_writable_dir(a.out, "--out");
  const auto t0 = Clock::now();
  for (const std::string& path : a.data) trainer.add_text(read_file(path));
  const auto t1 = Clock::now();
  const BpeVocabulary vocab = trainer.train();
  const auto t2 = Clock::now();
  const double seconds = std::chrono::duration<double>(t2 - t0).count();
  const double merge_seconds = std::chrono::duration<double>(t2 - t1).count();

  const std::string vocab_json = vocab.vocab_json(), merges_txt = vocab.merges_txt();
  const auto bytes_of = [](const std::string& s) {
    return std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(s.data()), s.size());
  };
  const DirFile files[] = {{"vocab.json", bytes_of(vocab_json)}, {"merges.txt", bytes_of(merges_txt)}};
  write_dir_atomic(a.out, files, {}, commit_hooks_from_env());

  const double bytes_per_token =
      vocab.text_tokens > 0 ? static_cast<double>(vocab.text_bytes) / static_cast<double>(vocab.text_tokens) : 0.0;
  const auto learned = static_cast<int64_t>(vocab.merges.size());
  if (a.json) {
    const ojson summary = {{"vocab_size", vocab.vocab_size()},
                           {"merges", learned},
                           {"requested_merges", a.options.merges},
                           {"min_frequency", a.options.min_frequency},
                           {"eot_id", vocab.eot_id ? ojson(*vocab.eot_id) : ojson()},
                           {"bytes", vocab.text_bytes},
                           {"tokens", vocab.text_tokens},
                           {"bytes_per_token", bytes_per_token},
                           {"words", trainer.words()},
                           {"distinct_words", trainer.distinct_words()},
                           {"seconds", seconds},
                           {"merge_seconds", merge_seconds},
                           {"out", a.out}};
    std::printf("%s\n", summary.dump().c_str());
    return 0;
  }
  std::printf("learned %s merges", with_commas(learned).c_str());
  if (learned < a.options.merges)
    std::printf(" of %s (no other pair occurs %s times or more)", with_commas(a.options.merges).c_str(),
                with_commas(a.options.min_frequency).c_str());
  std::printf(" from %s bytes (%s words, %s distinct) in %.2f s\n", with_commas(vocab.text_bytes).c_str(),
              with_commas(trainer.words()).c_str(), with_commas(trainer.distinct_words()).c_str(), seconds);
  std::printf("vocabulary: %d ids (256 bytes + %s merges%s); %.3f bytes per token on the training text\n",
              vocab.vocab_size(), with_commas(learned).c_str(), vocab.eot_id ? " + <|endoftext|>" : "",
              bytes_per_token);
  for (int64_t r = 0; r < learned && r < kShownMerges; ++r) {
    const BpeVocabulary::Merge& m = vocab.merges[static_cast<size_t>(r)];
    std::printf("  merge %lld: %s + %s  (%s times)\n", static_cast<long long>(r + 1),
                shown(vocab.tokens[static_cast<size_t>(m.left)]).c_str(),
                shown(vocab.tokens[static_cast<size_t>(m.right)]).c_str(), with_commas(m.count).c_str());
  }
  std::printf("wrote %s/vocab.json and %s/merges.txt\n", a.out.c_str(), a.out.c_str());
  return 0;
}
}  // namespace

void add_tokenizer_commands(CLI::App& app, Action& action) {
  auto* group = app.add_subcommand("tokenizer", "train a tokenizer (see: blockscope tokenizer train --help)");
  group->require_subcommand(1);
  auto a = std::make_shared<TokenizerTrainArgs>();
  auto* c = group->add_subcommand("train", "train a byte-level BPE tokenizer (GPT-2 style) on text files");
  c->footer(
      "Each --data file is UTF-8 text (any bytes are accepted: the tokenizer is byte-level). GPT-2's "
      "pre-tokenizer splits it into words (a word never spans letters and digits, and a space starts the word "
      "after it); then the most frequent adjacent pair of tokens, counted over all words, is merged into a new "
      "token, --merges times (fewer if no pair occurs --min-frequency times). Equally frequent pairs are taken "
      "in byte order of their left, then right token.\n"
      "OUT gets vocab.json (ids 0-255 the single bytes in GPT-2's order, then one id per merge, then "
      "<|endoftext|> with --eot) and merges.txt, GPT-2's formats: `blockscope tokenize --tokenizer OUT`, "
      "`train --tokenizer OUT` and Hugging Face load them. OUT is checked for writing before training; the two "
      "files are written to temporaries, synced, then renamed into place.\n"
      "--json prints {vocab_size, merges, requested_merges, min_frequency, eot_id, bytes, tokens, "
      "bytes_per_token, words, distinct_words, seconds, merge_seconds, out}: bytes per token on the training "
      "text; seconds from reading the files to the last merge, merge_seconds the merging alone.");
  c->add_option("--data", a->data, "a training text file (repeat for more)")->required();
  c->add_option("--merges", a->options.merges, "merges to learn (vocabulary = 256 + merges [+ 1])")
      ->required()->check(integer_value(1, BpeTrainOptions::kMaxMerges));
  c->add_option("--min-frequency", a->options.min_frequency, "merge only pairs occurring this often (default 2)")
      ->check(integer_value(1));
  c->add_option("--out", a->out, "output directory (created if missing)")->required();
  c->add_flag("--eot", a->options.end_of_text,
              "add <|endoftext|> as the last id (the text's own <|endoftext|> then separates documents)");
  c->add_flag("--json", a->json, "print a JSON summary");
  c->callback([a, &action] { action = [a] { return cmd_tokenizer_train(*a); }; });
}

}  // namespace blockscope::cli
