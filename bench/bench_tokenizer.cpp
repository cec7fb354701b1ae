// Native GPT-2 tokenizer benchmark: load time, and encode/decode throughput on the golden corpus (every text of
// tests/golden/tokenizer_gpt2.json joined) and on its long English paragraph. Prints a table; not a test.
//   blockscope_bench_tokenizer [gpt2_dir] [golden_json]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "blockscope/tokenizer.hpp"

using namespace blockscope;
using Clock = std::chrono::steady_clock;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Encodes `text` with a freshly loaded tokenizer (empty word cache), then `repeat` more times (warm cache);
// prints tokens/s for both and for decoding.
void bench_text(const char* label, const std::string& dir, const std::string& text, int repeat) {
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_directory(dir);
  auto t0 = Clock::now();
  std::vector<int32_t> ids = tok.encode(text);
  const double cold = seconds_since(t0);
  t0 = Clock::now();
  for (int r = 0; r < repeat; ++r) ids = tok.encode(text);
  const double warm = seconds_since(t0) / repeat;
  t0 = Clock::now();
  size_t bytes = 0;
  for (int r = 0; r < repeat; ++r) bytes += tok.decode(ids).size();
  const double decode = seconds_since(t0) / repeat;
  const double n = static_cast<double>(ids.size());
  std::printf("| %-22s | %8zu | %7zu | %12.0f | %12.0f | %12.0f |\n", label, text.size(), ids.size(), n / cold,
              n / warm, n / decode);
  if (bytes != text.size() * static_cast<size_t>(repeat)) std::printf("round trip changed the byte count!\n");
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : BLOCKSCOPE_GPT2_TOKENIZER_DIR;
  const std::string golden = argc > 2 ? argv[2] : BLOCKSCOPE_GOLDEN_DIR "/tokenizer_gpt2.json";
  auto t0 = Clock::now();
  const Gpt2Tokenizer tok = Gpt2Tokenizer::from_directory(dir);
  std::printf("load (encoder.json + vocab.bpe): %.0f ms, vocab %d\n\n", seconds_since(t0) * 1e3, tok.vocab_size());

  std::string corpus, paragraph;
  const nlohmann::json cases = nlohmann::json::parse(read_text(golden)).at("cases");
  for (const nlohmann::json& c : cases) {
    const std::string text = c.at("text");
    corpus += text + "\n";
    if (text.size() > paragraph.size() && text.find("\n\n") == std::string::npos) paragraph = text;
  }
  std::string paragraph_x100;
  for (int i = 0; i < 100; ++i) paragraph_x100 += paragraph + "\n";

  std::printf("| %-22s | %8s | %7s | %12s | %12s | %12s |\n", "text", "bytes", "tokens", "cold tok/s", "warm tok/s",
              "decode tok/s");
  std::printf("|------------------------|----------|---------|--------------|--------------|--------------|\n");
  bench_text("long paragraph", dir, paragraph, 200);
  bench_text("long paragraph x100", dir, paragraph_x100, 20);
  bench_text("golden corpus (joined)", dir, corpus, 20);
  return 0;
}
