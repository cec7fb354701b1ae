// Gpt2Tokenizer's encoding (pre-tokenize, then BPE each word by merge rank, as OpenAI's encoder.py) and
// decoding, and ByteTokenizer. Reading GPT-2's vocabulary and merges files is in gpt2_loader.cpp.
#include "blockscope/tokenizer.hpp"

#include <mutex>

#include "blockscope/error.hpp"
#include "gpt2_pretokenizer.hpp"

namespace blockscope {
namespace {

constexpr std::string_view kEndOfText = "<|endoftext|>";

// Calls encode_text on each stretch of `text` between occurrences of "<|endoftext|>", appending `eot` to
// `out` for each occurrence; without an eot id the whole text is ordinary.
template <typename EncodeText>
void split_on_eot(std::string_view text, std::optional<int32_t> eot, std::vector<int32_t>& out,
                  EncodeText encode_text) {
  while (eot) {
    const size_t at = text.find(kEndOfText);
    if (at == std::string_view::npos) break;
    encode_text(text.substr(0, at));
    out.push_back(*eot);
    text.remove_prefix(at + kEndOfText.size());
  }
  encode_text(text);
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

// The applicable merge of lowest rank among adjacent pairs of `parts`, and its pair; nullptr if none.
const Gpt2Tokenizer::Merge* best_merge(const std::unordered_map<uint64_t, Gpt2Tokenizer::Merge>& merges,
                                       const std::vector<int32_t>& parts, uint64_t* pair) {
  const Gpt2Tokenizer::Merge* best = nullptr;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const uint64_t key = Gpt2Tokenizer::merge_key(parts[i], parts[i + 1]);
    const auto it = merges.find(key);
    if (it != merges.end() && (best == nullptr || it->second.rank < best->rank)) {
      best = &it->second;
      *pair = key;
    }
  }
  return best;
}

}  // namespace

// encoder.py's bpe(): start from single bytes; repeatedly take the adjacent pair with the lowest merge rank and
// merge all its non-overlapping occurrences, left to right, until no pair has a merge.
std::vector<int32_t> Gpt2Tokenizer::bpe(std::string_view word) const {
  std::vector<int32_t> parts(word.size());
  for (size_t i = 0; i < word.size(); ++i) parts[i] = byte_ids_[static_cast<unsigned char>(word[i])];
  uint64_t pair = 0;
  while (const Merge* merge = best_merge(merges_, parts, &pair)) {
    size_t kept = 0;
    for (size_t i = 0; i < parts.size();) {
      const bool match = i + 1 < parts.size() && merge_key(parts[i], parts[i + 1]) == pair;
      parts[kept++] = match ? merge->merged : parts[i];
      i += match ? 2 : 1;
    }
    parts.resize(kept);
  }
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
      text += kEndOfText;
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
  return id == 256 ? std::string(kEndOfText) : std::string(1, static_cast<char>(static_cast<unsigned char>(id)));
}

}  // namespace blockscope
