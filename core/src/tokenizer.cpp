// Gpt2Tokenizer's encoding (pre-tokenize, then BPE each word by merge rank, as OpenAI's encoder.py) and
// decoding, ByteTokenizer, and which of them a vocabulary gets by default. Reading GPT-2's vocabulary and
// merges files is in gpt2_loader.cpp.
#include "blockscope/tokenizer.hpp"

#include <functional>
#include <mutex>
#include <queue>

#include "blockscope/error.hpp"
#include "gpt2_format.hpp"
#include "gpt2_pretokenizer.hpp"

namespace blockscope {
namespace {

// Encodes each stretch of `text` between occurrences of "<|endoftext|>" with encode_text, appending `eot` to
// `out` for each occurrence; without an eot id the whole text is ordinary.
template <typename EncodeText>
void split_on_eot(std::string_view text, std::optional<int32_t> eot, std::vector<int32_t>& out,
                  EncodeText encode_text) {
  gpt2::split_on_eot(text, eot.has_value(), encode_text, [&] { out.push_back(*eot); });
}

}  // namespace

void Tokenizer::check_id(int32_t id, int64_t position) const {
  if (id >= 0 && id < vocab_size()) return;
  const std::string where = position < 0 ? std::string() : detail::concat(" at position ", position);
  throw Error(detail::concat("token id ", id, where, " is outside the ", name(), " vocabulary [0, ", vocab_size(),
                             ")"));
}

// ---- Gpt2Tokenizer ----------------------------------------------------------------------------------------

// Word -> token ids, for words up to kMaxWordBytes; emptied when it reaches kMaxEntries (so memory stays
// bounded on any input). Locked because encode() is const and may be called from several threads.
class Gpt2Tokenizer::WordCache {
 public:
  static constexpr size_t kMaxEntries = 16384;
  static constexpr size_t kMaxWordBytes = 64;

  // Appends the cached ids of `word` to `out`; false if not cached.
  bool append(std::string_view word, std::vector<int32_t>& out) {
    if (word.size() > kMaxWordBytes) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = map_.find(std::string(word));
    if (it == map_.end()) return false;
    out.insert(out.end(), it->second.begin(), it->second.end());
    return true;
  }

  void insert(std::string_view word, const std::vector<int32_t>& ids) {
    if (word.size() > kMaxWordBytes) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_.emplace(std::string(word), ids);
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<int32_t>> map_;
};

Gpt2Tokenizer::Gpt2Tokenizer() : cache_(std::make_shared<WordCache>()) {}

std::vector<int32_t> Gpt2Tokenizer::encode(std::string_view utf8) const {
  std::vector<int32_t> ids;
  split_on_eot(utf8, eot_id_, ids, [&](std::string_view text) {
    for (std::string_view word : gpt2::split_words(text)) encode_word(word, ids);
  });
  return ids;
}

std::vector<int32_t> Gpt2Tokenizer::encode_ordinary(std::string_view utf8) const {
  std::vector<int32_t> ids;
  for (std::string_view word : gpt2::split_words(utf8)) encode_word(word, ids);
  return ids;
}

void Gpt2Tokenizer::encode_word(std::string_view word, std::vector<int32_t>& out) const {
  if (word.size() == 1) {
    out.push_back(byte_ids_[static_cast<unsigned char>(word[0])]);
    return;
  }
  if (cache_->append(word, out)) return;
  const std::vector<int32_t> ids = bpe(word);
  cache_->insert(word, ids);
  out.insert(out.end(), ids.begin(), ids.end());
}

namespace {

// One symbol of a word being merged: a doubly linked list over the word's byte positions, in order. A merge
// keeps the left symbol (its id becomes the merged token) and unlinks the right one.
struct Symbol {
  int32_t id;
  int32_t prev, next;  // -1 at the ends
  bool alive;
};

// An adjacent pair that has a merge, queued when it came into being. It is stale (skipped when popped)
// once either symbol has been merged away or changed: a symbol's id only ever becomes a longer token, so
// matching ids mean the pair still stands.
struct Candidate {
  int32_t rank;
  int32_t left;  // the left symbol's position; the right one is symbols[left].next
  int32_t left_id, right_id;
  int32_t merged;  // the token the pair merges into
  bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
};

}  // namespace

// encoder.py's bpe(): start from single bytes; repeatedly take the adjacent pair with the lowest merge rank
// and merge all its non-overlapping occurrences, left to right, until no pair has a merge.
// Done in O(n log n) for an n-byte word: every adjacent pair with a merge sits in a min-heap ordered by
// (rank, position); one round pops every occurrence of the lowest-ranked pair in position order (left to
// right, skipping stale and overlapped ones) and merges it, and only then queues the pairs those merges
// created, so a round sees exactly the occurrences encoder.py's scan would. Each merge removes a symbol and
// queues at most two pairs, so the heap handles O(n) entries in all.
std::vector<int32_t> Gpt2Tokenizer::bpe(std::string_view word) const {
  const auto n = static_cast<int32_t>(word.size());
  std::vector<Symbol> symbols(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    symbols[i] = {byte_ids_[static_cast<unsigned char>(word[i])], i - 1, i + 1 < n ? i + 1 : -1, true};

  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
  std::vector<Candidate> created;  // pairs made by the current round, queued after it
  const auto consider = [&](int32_t left, std::vector<Candidate>& into) {
    if (left < 0 || symbols[left].next < 0) return;
    const int32_t a = symbols[left].id, b = symbols[symbols[left].next].id;
    const auto it = merges_.find(merge_key(a, b));
    if (it != merges_.end()) into.push_back({it->second.rank, left, a, b, it->second.merged});
  };
  for (int32_t i = 0; i + 1 < n; ++i) consider(i, created);
  for (const Candidate& c : created) queue.push(c);

  while (!queue.empty()) {
    const int32_t rank = queue.top().rank;
    created.clear();
    while (!queue.empty() && queue.top().rank == rank) {
      const Candidate c = queue.top();
      queue.pop();
      Symbol& left = symbols[c.left];
      if (!left.alive || left.id != c.left_id || left.next < 0) continue;
      Symbol& right = symbols[left.next];
      if (right.id != c.right_id) continue;
      left.id = c.merged;
      right.alive = false;
      left.next = right.next;
      if (right.next >= 0) symbols[right.next].prev = c.left;
      consider(left.prev, created);
      consider(c.left, created);
    }
    for (const Candidate& c : created) queue.push(c);
  }

  std::vector<int32_t> parts;
  for (int32_t i = n > 0 ? 0 : -1; i >= 0; i = symbols[i].next) parts.push_back(symbols[i].id);
  return parts;
}

std::string_view Gpt2Tokenizer::token_bytes(int32_t id) const {
  const uint32_t begin = token_offsets_[static_cast<size_t>(id)];
  const uint32_t end = token_offsets_[static_cast<size_t>(id) + 1];
  return std::string_view(token_data_).substr(begin, end - begin);
}

std::string Gpt2Tokenizer::decode(std::span<const int32_t> ids) const {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    check_id(ids[i], static_cast<int64_t>(i));
    text += token_bytes(ids[i]);
  }
  return text;
}

std::string Gpt2Tokenizer::token_text(int32_t id) const {
  check_id(id);
  return std::string(token_bytes(id));
}

// ---- ByteTokenizer ----------------------------------------------------------------------------------------

std::vector<int32_t> ByteTokenizer::encode(std::string_view utf8) const {
  std::vector<int32_t> ids;
  ids.reserve(utf8.size());
  split_on_eot(utf8, eot_id(), ids, [&](std::string_view text) {
    for (char c : text) ids.push_back(static_cast<unsigned char>(c));
  });
  return ids;
}

std::string ByteTokenizer::decode(std::span<const int32_t> ids) const {
  std::string text;
  text.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    check_id(ids[i], static_cast<int64_t>(i));
    if (ids[i] == 256) {
      text += gpt2::kEndOfText;
    } else {
      text += static_cast<char>(static_cast<unsigned char>(ids[i]));
    }
  }
  return text;
}

std::optional<int32_t> ByteTokenizer::eot_id() const {
  if (with_eot_) return 256;
  return std::nullopt;
}

std::string ByteTokenizer::token_text(int32_t id) const {
  check_id(id);
  if (id == 256) return std::string(gpt2::kEndOfText);
  return std::string(1, static_cast<char>(static_cast<unsigned char>(id)));
}

const char* default_tokenizer_kind(int64_t vocab_size) {
  constexpr int64_t kGpt2Ids = 50257, kByteIds = 256;
  if (vocab_size >= kGpt2Ids) return "gpt2";
  if (vocab_size == kByteIds + 1) return "bytes+eot";
  if (vocab_size >= kByteIds) return "bytes";
  return nullptr;
}

}  // namespace blockscope
