// BPE training (bpe_trainer.hpp): word counts -> merges, as Sennrich et al. 2016 and GPT-2 learn them, with
// the pair counts updated incrementally (only the words holding the merged pair are touched, as Hugging Face
// tokenizers' BpeTrainer does), and the GPT-2 files of the result.
#include "blockscope/bpe_trainer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <queue>

#include "blockscope/error.hpp"
#include "gpt2_format.hpp"
#include "gpt2_pretokenizer.hpp"

namespace blockscope {
namespace {

// Estimated bytes per distinct word in the count table, beyond the word's own bytes: a hash node, its
// std::string and its bucket.
constexpr int64_t kWordEntryBytes = 96;
// Estimated bytes training needs per symbol position of the distinct words (each word's ids, the pair counts
// and pair -> word lists, and the queue's entries, stale ones included). Measured on Brown: its 439 k positions
// (53 k distinct words) took under 20 MB, ~45 bytes each, for 8,000 merges; 256 leaves room for worse luck.
constexpr int64_t kPositionBytes = 256;
// The word table is checked against the runtime's memory each time it has grown by this much.
constexpr int64_t kTableCheckBytes = int64_t{16} << 20;
// Text is split into words this many bytes at a time (at the next safe cut), so split_words' tables stay small.
constexpr size_t kPieceBytes = size_t{1} << 20;

uint64_t pair_key(int32_t left, int32_t right) { return Gpt2Tokenizer::merge_key(left, right); }
int32_t key_left(uint64_t key) { return static_cast<int32_t>(key >> 32); }
int32_t key_right(uint64_t key) { return static_cast<int32_t>(key & 0xFFFFFFFFu); }

// A distinct word (two bytes or more: a single byte has no pair) as token ids, and how often it occurs.
struct Word {
  std::vector<int32_t> ids;
  int64_t count;
};

// A pair's count when it was queued; stale once the pair's count has changed (a newer entry then holds it).
struct Candidate {
  int64_t count;
  uint64_t key;
};

// The state of one training run: the words as they are merged, every adjacent pair's count (weighted by the
// words' counts), which words hold each pair, and a max-queue of candidates.
class MergeRun {
 public:
  explicit MergeRun(const std::unordered_map<std::string, int64_t>& counts);
  MergeRun(const MergeRun&) = delete;  // the queue's comparator points at this run
  MergeRun& operator=(const MergeRun&) = delete;

  // Learns up to `merges` merges of pairs occurring at least `min_frequency` times.
  void run(int64_t merges, int64_t min_frequency);
  // The vocabulary, with "<|endoftext|>" last if `end_of_text`, and the training text's token count.
  BpeVocabulary finish(bool end_of_text, int64_t text_bytes) &&;

 private:
  // True if a's pair goes before b's: higher count, then the left token's bytes, then the right token's.
  bool before(const Candidate& a, const Candidate& b) const {
    if (a.count != b.count) return a.count > b.count;
    const std::string &al = tokens_[key_left(a.key)], &bl = tokens_[key_left(b.key)];
    if (al != bl) return al < bl;  // std::string compares as unsigned char
    return tokens_[key_right(a.key)] < tokens_[key_right(b.key)];
  }
  struct After {
    const MergeRun* run;
    bool operator()(const Candidate& a, const Candidate& b) const { return run->before(b, a); }
  };

  void add_pairs(const Word& word, int64_t sign);
  void merge_word(Word& word, int32_t w, int32_t left, int32_t right, int32_t merged);
  void apply(uint64_t key, int32_t merged, int64_t step);
  int32_t token_id(const std::string& bytes);

  std::vector<std::string> tokens_;
  std::unordered_map<std::string, int32_t> ids_;  // bytes -> id, for the (rare) merge that remakes a token
  std::vector<BpeVocabulary::Merge> merges_;
  std::vector<Word> words_;
  int64_t single_byte_tokens_ = 0;  // occurrences of one-byte words: one token each, never merged
  std::unordered_map<uint64_t, int64_t> pair_counts_;
  std::unordered_map<uint64_t, std::vector<int32_t>> pair_words_;  // may hold repeats and words that lost it
  std::unordered_map<uint64_t, int64_t> delta_;                    // one merge's count changes
  std::vector<int64_t> visited_;                                   // word -> the last step that merged it
  std::priority_queue<Candidate, std::vector<Candidate>, After> queue_{After{this}};
};

MergeRun::MergeRun(const std::unordered_map<std::string, int64_t>& counts) {
  std::array<int32_t, 256> byte_id{};
  const std::array<uint8_t, 256> order = gpt2::bytes_in_id_order();
  for (int32_t id = 0; id < 256; ++id) {
    byte_id[order[id]] = id;
    token_id(std::string(1, static_cast<char>(order[id])));
  }
  words_.reserve(counts.size());
  for (const auto& [text, count] : counts) {
    if (text.size() == 1) {
      single_byte_tokens_ += count;
      continue;
    }
    Word word{std::vector<int32_t>(text.size()), count};
    for (size_t i = 0; i < text.size(); ++i) word.ids[i] = byte_id[static_cast<unsigned char>(text[i])];
    words_.push_back(std::move(word));
  }
  visited_.assign(words_.size(), -1);
  for (size_t w = 0; w < words_.size(); ++w) {
    add_pairs(words_[w], 1);
    const std::vector<int32_t>& ids = words_[w].ids;
    for (size_t i = 0; i + 1 < ids.size(); ++i)
      pair_words_[pair_key(ids[i], ids[i + 1])].push_back(static_cast<int32_t>(w));
  }
  for (const auto& [key, count] : delta_) {
    pair_counts_.emplace(key, count);
    queue_.push({count, key});
  }
  delta_.clear();
}

// Adds `sign` x the word's count to delta_ for each of its adjacent pairs (the initial counts).
void MergeRun::add_pairs(const Word& word, int64_t sign) {
  for (size_t i = 0; i + 1 < word.ids.size(); ++i) delta_[pair_key(word.ids[i], word.ids[i + 1])] += sign * word.count;
}

// Replaces each occurrence of (left, right), left to right and non-overlapping, by `merged` (as encoder.py's
// bpe() does: "aaa" with the merge (a, a) becomes "aa a"), and records in delta_ what each occurrence changes
// (Hugging Face's Word::merge): the pair itself and the pairs with its neighbours go, the pairs of `merged` with
// the neighbours come. The left neighbour is the last symbol written (itself `merged` after a run like "a a a a"),
// the right one the next symbol read, so a run of occurrences counts each of its pairs once. Word `w` is listed
// under the pairs of `merged`.
void MergeRun::merge_word(Word& word, int32_t w, int32_t left, int32_t right, int32_t merged) {
  std::vector<int32_t>& ids = word.ids;
  const int64_t c = word.count;
  const auto change = [&](int32_t a, int32_t b, int64_t d) { delta_[pair_key(a, b)] += d; };
  const auto came = [&](int32_t a, int32_t b) {
    change(a, b, c);
    pair_words_[pair_key(a, b)].push_back(w);
  };
  const size_t n = ids.size();
  size_t out = 0;
  for (size_t i = 0; i < n;) {
    if (i + 1 < n && ids[i] == left && ids[i + 1] == right) {
      change(left, right, -c);
      if (out > 0) {
        change(ids[out - 1], left, -c);
        came(ids[out - 1], merged);
      }
      if (i + 2 < n) {
        change(right, ids[i + 2], -c);
        came(merged, ids[i + 2]);
      }
      ids[out++] = merged;
      i += 2;
    } else {
      ids[out++] = ids[i++];
    }
  }
  ids.resize(out);
}

int32_t MergeRun::token_id(const std::string& bytes) {
  const auto [it, added] = ids_.emplace(bytes, static_cast<int32_t>(tokens_.size()));
  if (added) tokens_.push_back(bytes);
  return it->second;
}

// Merges the pair `key` into `merged` in every word holding it, and updates the counts of the pairs that
// changed (each changed count is queued anew; the entries with its old count go stale).
void MergeRun::apply(uint64_t key, int32_t merged, int64_t step) {
  const int32_t left = key_left(key), right = key_right(key);
  const auto holders = pair_words_.find(key);
  require(holders != pair_words_.end(), "BPE training lost track of the words holding pair (", left, ", ", right, ")");
  const std::vector<int32_t> words = std::move(holders->second);
  pair_words_.erase(holders);
  for (const int32_t w : words) {
    if (visited_[w] == step) continue;
    visited_[w] = step;
    merge_word(words_[w], w, left, right, merged);
  }
  for (const auto& [changed, d] : delta_) {
    if (d == 0) continue;
    int64_t& count = pair_counts_[changed];
    count += d;
    if (count <= 0) {
      pair_counts_.erase(changed);
    } else {
      queue_.push({count, changed});
    }
  }
  delta_.clear();
}

void MergeRun::run(int64_t merges, int64_t min_frequency) {
  for (int64_t step = 0; step < merges; ++step) {
    // Drop stale candidates: the pair's count changed after they were queued (or it was merged).
    while (!queue_.empty()) {
      const auto it = pair_counts_.find(queue_.top().key);
      if (it != pair_counts_.end() && it->second == queue_.top().count) break;
      queue_.pop();
    }
    if (queue_.empty() || queue_.top().count < min_frequency) return;
    const Candidate best = queue_.top();
    queue_.pop();
    const int32_t left = key_left(best.key), right = key_right(best.key);
    const int32_t merged = token_id(tokens_[left] + tokens_[right]);
    merges_.push_back({left, right, best.count});
    apply(best.key, merged, step);
  }
}

BpeVocabulary MergeRun::finish(bool end_of_text, int64_t text_bytes) && {
  BpeVocabulary v;
  v.text_bytes = text_bytes;
  v.text_tokens = single_byte_tokens_;
  for (const Word& word : words_) v.text_tokens += word.count * static_cast<int64_t>(word.ids.size());
  v.tokens = std::move(tokens_);
  v.merges = std::move(merges_);
  if (end_of_text) {
    v.eot_id = static_cast<int32_t>(v.tokens.size());
    v.tokens.emplace_back(gpt2::kEndOfText);
  }
  return v;
}

}  // namespace

void BpeTrainOptions::validate() const {
  require(merges >= 1 && merges <= kMaxMerges, "the number of BPE merges must be in [1, ", kMaxMerges, "], got ",
          merges);
  require(min_frequency >= 1, "the minimum pair frequency of BPE merges must be >= 1, got ", min_frequency);
}

BpeTrainer::BpeTrainer(const BpeTrainOptions& options, MemoryBudget budget) : options_(options), budget_(budget) {
  options_.validate();
}

void BpeTrainer::count_word(std::string_view word) {
  text_bytes_ += static_cast<int64_t>(word.size());
  ++words_;
  const auto [it, added] = counts_.try_emplace(std::string(word), 0);
  ++it->second;
  if (!added) return;
  const int64_t before = table_bytes_;
  table_bytes_ += static_cast<int64_t>(word.size()) + kWordEntryBytes;
  if (table_bytes_ / kTableCheckBytes == before / kTableCheckBytes && budget_.fits(table_bytes_)) return;
  const std::string what = detail::concat("BPE training's word table (", counts_.size(), " distinct words)");
  budget_.require_fits({{what, table_bytes_ - before}, {"the words counted before", before, true}},
                       "train the tokenizer on less text");
}

// A piece that cannot be cut (megabytes of letters or digits alone, or of non-ASCII text without an ASCII mark)
// is split whole: its tables are checked against the budget first.
void BpeTrainer::count_words(std::string_view text) {
  while (!text.empty()) {
    const size_t cut = gpt2::next_safe_cut(text, std::min(kPieceBytes, text.size()));
    const std::string_view piece = text.substr(0, cut);
    if (piece.size() > 2 * kPieceBytes) {
      const std::string what = detail::concat("splitting ", bytes_str(static_cast<double>(piece.size())),
                                              " of text with no place to cut it into pieces");
      budget_.require_fits(
          {{what, gpt2::split_words_bytes(piece.size())}, {"the words counted before", table_bytes_, true}},
          "break the text into lines or files");
    }
    for (std::string_view word : gpt2::split_words(piece)) count_word(word);
    text.remove_prefix(cut);
  }
}

void BpeTrainer::add_text(std::string_view utf8) {
  gpt2::split_on_eot(utf8, options_.end_of_text, [&](std::string_view text) { count_words(text); }, [] {});
}

BpeVocabulary BpeTrainer::train() const {
  require(text_bytes_ > 0, "no text to train the BPE tokenizer on: the training text is empty",
          options_.end_of_text ? " (or only \"<|endoftext|>\")" : "");
  int64_t positions = 0;
  for (const auto& [word, count] : counts_) positions += word.size() > 1 ? static_cast<int64_t>(word.size()) : 0;
  const std::string what = detail::concat("BPE training's pair tables for ", positions, " byte positions of ",
                                          counts_.size(), " distinct words (estimated)");
  budget_.require_fits({{what, checked_mul(positions, kPositionBytes, "BPE training's pair tables")},
                        {"the word counts", table_bytes_, true}},
                       "train the tokenizer on less text");
  MergeRun run(counts_);
  run.run(options_.merges, options_.min_frequency);
  return std::move(run).finish(options_.end_of_text, text_bytes_);
}

std::string BpeVocabulary::vocab_json() const {
  std::string out = "{";
  for (size_t id = 0; id < tokens.size(); ++id) {
    const bool special = eot_id && static_cast<int32_t>(id) == *eot_id;
    out += id ? ",\n" : "\n";
    out += nlohmann::json(special ? tokens[id] : gpt2::written_form(tokens[id])).dump();
    out += detail::concat(": ", id);
  }
  return out + "\n}\n";
}

std::string BpeVocabulary::merges_txt() const {
  std::string out = "#version: 0.2\n";
  for (const Merge& m : merges)
    out += gpt2::written_form(tokens[m.left]) + " " + gpt2::written_form(tokens[m.right]) + "\n";
  return out;
}

Gpt2Tokenizer BpeVocabulary::tokenizer() const { return Gpt2Tokenizer::from_strings(vocab_json(), merges_txt()); }

}  // namespace blockscope
