// Shared helpers of the blockscope subcommands (see common.hpp). stdio, not iostreams.
#include "common.hpp"

#include <cerrno>
#include <cfloat>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "blockscope/error.hpp"
#include "blockscope/safetensors.hpp"

namespace blockscope::cli {

namespace {
namespace fs = std::filesystem;

// A decimal token id (optionally negative, so the range check can name it) with surrounding spaces; false
// if `s` is not one.
bool parse_one_id(std::string_view s, int32_t& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty() || s.size() > 11) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  if (s[0] == '-') v = -v;
  if (v < INT32_MIN || v > INT32_MAX) return false;
  out = static_cast<int32_t>(v);
  return true;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// ".ids": integers separated by any mix of whitespace and commas.
std::vector<int32_t> parse_ids_file(const std::string& text, const std::string& path) {
  std::vector<int32_t> ids;
  size_t i = 0;
  const auto is_sep = [](char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    const size_t begin = i;
    while (i < text.size() && !is_sep(text[i])) ++i;
    if (begin == i) break;
    const std::string_view entry(text.data() + begin, i - begin);
    int32_t id = 0;
    require(parse_one_id(entry, id), "'", entry.substr(0, 40), "' (entry ", ids.size(), " of ", path,
            ") is not a token id; a .ids file holds integers separated by whitespace or commas");
    ids.push_back(id);
  }
  return ids;
}

// ".bin": uint16 little-endian, nanoGPT's prepare.py format.
std::vector<int32_t> parse_bin_file(const std::string& bytes, const std::string& path) {
  require(bytes.size() % 2 == 0, path, " has an odd number of bytes (", bytes.size(),
          "); a .bin file holds uint16 little-endian token ids");
  std::vector<int32_t> ids(bytes.size() / 2);
  for (size_t i = 0; i < ids.size(); ++i)
    ids[i] = static_cast<unsigned char>(bytes[2 * i]) | static_cast<unsigned char>(bytes[2 * i + 1]) << 8;
  return ids;
}
}  // namespace

namespace {
// Quoted, at most 40 characters of an option value.
std::string quote_value(const std::string& value) {
  return "'" + (value.size() > 40 ? value.substr(0, 37) + "..." : value) + "'";
}

// An optional sign and decimal digits only.
bool is_decimal_integer(const std::string& s) {
  const size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (start == s.size()) return false;
  for (size_t i = start; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  return true;
}
}  // namespace

CLI::Validator integer_value(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        if (!is_decimal_integer(value)) return "must be an integer, got " + quote_value(value);
        errno = 0;
        const long long v = std::strtoll(value.c_str(), nullptr, 10);
        const bool bounded = lo != INT64_MIN || hi != INT64_MAX;
        const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (errno == ERANGE && !bounded)
          return "is too large, got " + quote_value(value) + " (the limit is 9223372036854775807)";
        if (errno == ERANGE || v < lo || v > hi)
          return "must be an integer in " + range + ", got " + quote_value(value);
        return {};
      },
      "INT");
}

CLI::Validator finite_number(bool single_precision) {
  return CLI::Validator(
      [single_precision](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = value.empty() ? 0.0 : std::strtod(value.c_str(), &end);
        if (value.empty() || end != value.c_str() + value.size()) return "must be a number, got " + quote_value(value);
        if (!std::isfinite(v) || (single_precision && std::fabs(v) > FLT_MAX))
          return "must be a finite number, got " + quote_value(value);
        return {};
      },
      "NUMBER");
}

CLI::Validator seed_value() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const std::string expected = "must be an integer in [0, 2^53), got " + quote_value(value);
        if (!is_decimal_integer(value) || value[0] == '-') return expected;
        errno = 0;
        const unsigned long long v = std::strtoull(value.c_str(), nullptr, 10);
        if (errno == ERANGE || v >= (1ull << 53)) return expected;
        return {};
      },
      "SEED");
}

std::string text_or_file(const CLI::Option* text_option, const std::string& text, const CLI::Option* file_option,
                         const std::string& path) {
  const bool has_text = text_option->count() > 0, has_file = file_option->count() > 0;
  require(has_text != has_file, has_text ? "give only one of " : "give one of ", text_option->get_name(), " TEXT or ",
          file_option->get_name(), " PATH");
  return has_text ? text : read_file(path);
}

std::vector<int32_t> parse_ids(const std::string& text) {
  require(!text.empty(), "no token ids given");
  std::vector<int32_t> ids;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(begin, end - begin);
    int32_t id = 0;
    require(parse_one_id(part, id), "'", part,
            "' is not a token id (expected comma-separated integers like 15496,11,995)");
    ids.push_back(id);
    begin = end + 1;
  }
  return ids;
}

std::string read_file(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file_bytes(path);
  return {bytes.begin(), bytes.end()};
}

void write_file_atomic(const std::string& path, std::string_view text) {
  blockscope::write_file_atomic(path, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

CommitHooks commit_hooks_from_env() {
  CommitHooks hooks;
  if (const char* n = std::getenv("BLOCKSCOPE_TEST_KILL_AT_RENAME")) {
    const std::string text = n;
    require(is_decimal_integer(text) && text[0] != '-' && text.size() < 10,
            "BLOCKSCOPE_TEST_KILL_AT_RENAME must be a count of renames, got ", quote_value(text));
    const auto at = static_cast<size_t>(std::stoul(text));
    hooks.at_rename = [at](size_t renamed) {
      if (renamed == at) std::raise(SIGKILL);  // as a kill -9 or a power cut would: no cleanup at all
    };
  }
  if (const char* name = std::getenv("BLOCKSCOPE_TEST_FULL_DISK")) {
    hooks.write_errno = [full = std::string(name)](const std::string& file) { return file == full ? ENOSPC : 0; };
  }
  return hooks;
}

std::unique_ptr<Tokenizer> model_tokenizer(const std::string& model_dir, int64_t vocab_size) {
  if (!model_dir.empty()) {
    if (auto own = read_tokenizer_dir(model_dir, model_tokenizer_layouts(vocab_size))) return own;
  }
  const char* kind = default_tokenizer_kind(vocab_size);
  if (kind && std::string_view(kind) != "gpt2") return make_tokenizer(kind);
  return nullptr;
}

std::unique_ptr<Tokenizer> open_tokenizer(const std::string& option, const std::string& model_dir,
                                          int64_t vocab_size) {
  if (option == "bytes" || option == "bytes+eot") return make_tokenizer(option);
  if (!option.empty()) {
    if (auto given = read_tokenizer_dir(option, tokenizer_layouts())) return given;
    throw Error(detail::concat("no tokenizer files in '", option, "': expected ", describe_layouts(tokenizer_layouts())));
  }
  if (auto tok = model_tokenizer(model_dir, vocab_size)) return tok;
  const auto layouts = model_tokenizer_layouts(vocab_size);
  const char* kind = default_tokenizer_kind(vocab_size);
  throw Error(detail::concat("the model has ", vocab_size, " token ids", kind ? " (GPT-2's BPE)" : "",
                             " and its directory has no tokenizer files: pass --tokenizer DIR (a directory with ",
                             describe_layouts(tokenizer_layouts()), ")", layouts.empty() ? "" : ", or put ",
                             describe_layouts(layouts), layouts.empty() ? "" : " next to the model"));
}

TokenFile read_token_file(const std::string& path, const std::string& tokenizer, const std::string& model_dir,
                          int64_t vocab_size) {
  TokenFile tf;
  const std::string bytes = read_file(path);
  tf.bytes = static_cast<int64_t>(bytes.size());
  if (ends_with(path, ".ids")) {
    tf.kind = "ids";
    tf.ids = parse_ids_file(bytes, path);
  } else if (ends_with(path, ".bin")) {
    tf.kind = "bin";
    tf.ids = parse_bin_file(bytes, path);
  } else {
    tf.kind = "text";
    tf.tokenizer = open_tokenizer(tokenizer, model_dir, vocab_size);
    require(tf.tokenizer->vocab_size() <= vocab_size, "the tokenizer '", tf.tokenizer->name(), "' has ",
            tf.tokenizer->vocab_size(), " token ids but the model's vocabulary has only ", vocab_size);
    tf.ids = tf.tokenizer->encode(bytes);
  }
  require(!tf.ids.empty(), path, " holds no tokens (", tf.kind == "text" ? "the text is empty" : "no ids", ")");
  return tf;
}

std::string with_commas(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string clock_time(double seconds) {
  const auto s = static_cast<int64_t>(seconds < 0 ? 0 : seconds + 0.5);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(s / 60), static_cast<long long>(s % 60));
  return buf;
}

}  // namespace blockscope::cli
