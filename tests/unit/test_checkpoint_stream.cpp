// Tests for ModelStreamLoader (checkpoint.hpp): the PyTorch-written checkpoints streamed in chunks of every
// awkward size give exactly the parameters of a whole-file load; a tied embedding's two copies in either
// order; and errors at any point of the stream leave a loader that refuses further use.
#include <catch2/catch.hpp>
#include <cstring>
#include <fstream>
#include <iterator>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "support/files.hpp"

using namespace blockscope;
using test_files::read_file;
using test_files::read_text;
using Catch::Contains;

namespace {
using Bytes = std::vector<uint8_t>;
const std::string kModels = std::string(BLOCKSCOPE_GOLDEN_DIR) + "/models/";


// Streams `bytes` in pieces of `chunk` bytes (the last one shorter).
GPTModel stream(const std::string& config, const Bytes& bytes, size_t chunk, const LoadOptions& opts = {}) {
  ModelStreamLoader loader(read_config(config), bytes.size(), opts);
  for (size_t off = 0; off < bytes.size(); off += chunk)
    loader.write({bytes.data() + off, std::min(chunk, bytes.size() - off)});
  return loader.finish();
}

void require_same_params(const GPTModel& a, const GPTModel& b) {
  REQUIRE(a.params().params().size() == b.params().params().size());
  for (const auto& p : a.params().params()) {
    const auto x = a.params().get(p.name);
    const auto y = b.params().get(p.name);
    INFO(p.name);
    REQUIRE(x.size() == y.size());
    REQUIRE(std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0);
  }
}

// Overwrites element `index` of tensor `name` (2-byte dtype) in place.
Bytes with_u16(Bytes bytes, const std::string& name, size_t index, uint16_t value) {
  const auto f = SafetensorsFile::parse(bytes);
  const auto raw = f.raw(f.at(name));
  std::memcpy(bytes.data() + (raw.data() - bytes.data()) + 2 * index, &value, 2);
  return bytes;
}
}  // namespace

TEST_CASE("streaming a checkpoint in any chunk size gives the whole-file load's parameters", "[checkpoint][stream]") {
  for (const char* dir : {"book_tiny", "hf_tiny", "hf_tiny_f16", "hf_tiny_bf16"}) {
    const std::string config = read_text(kModels + dir + "/config.json");
    const Bytes bytes = read_file(kModels + dir + "/model.safetensors");
    const GPTModel whole = load_model(config, bytes);
    for (size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{5}, size_t{7}, size_t{13}, size_t{4096}}) {
      INFO(dir << " in chunks of " << chunk << " bytes");
      require_same_params(whole, stream(config, bytes, chunk));
    }
  }
}

TEST_CASE("a streamed F16 checkpoint holds exactly the file's values", "[checkpoint][stream]") {
  // Independent of the loader: the file's own wte values, converted by half_to_float, are tok_emb.
  const Bytes bytes = read_file(kModels + "hf_tiny_f16/model.safetensors");
  const auto file = SafetensorsFile::parse(bytes);
  const Tensor wte = file.tensor("wte.weight");
  const GPTModel m = stream(read_text(kModels + "hf_tiny_f16/config.json"), bytes, 3);
  const auto tok = m.params().get("tok_emb.weight");
  REQUIRE(tok.size() == wte.data.size());
  CHECK(std::equal(tok.begin(), tok.end(), wte.data.begin()));
}

TEST_CASE("the tied embedding loads from whichever copy arrives first", "[checkpoint][stream]") {
  // hf_tiny_f16 stores both wte.weight and lm_head.weight; a change to either is found, whichever comes first.
  const std::string config = read_text(kModels + "hf_tiny_f16/config.json");
  const Bytes bytes = read_file(kModels + "hf_tiny_f16/model.safetensors");
  const auto file = SafetensorsFile::parse(bytes);
  REQUIRE(file.find("lm_head.weight"));
  SECTION("a difference is found at its flat index, whichever copy is changed") {
    for (size_t chunk : {size_t{1}, size_t{7}, bytes.size()}) {
      INFO("chunks of " << chunk);
      CHECK_THROWS_WITH(stream(config, with_u16(bytes, "lm_head.weight", 7, 0x3C00), chunk),
                        Contains("tensor 'lm_head.weight' differs from 'wte.weight' at flat index 7 (1 vs"));
      CHECK_THROWS_WITH(stream(config, with_u16(bytes, "wte.weight", 9, 0x3C00), chunk),
                        Contains("tensor 'lm_head.weight' differs from 'wte.weight' at flat index 9 ("));
    }
  }
}

TEST_CASE("stream errors name the problem and end the loader", "[checkpoint][stream]") {
  const std::string config = read_text(kModels + "hf_tiny_f16/config.json");
  const Bytes bytes = read_file(kModels + "hf_tiny_f16/model.safetensors");
  const GPTConfig cfg = read_config(config);
  SECTION("a non-finite value split across chunks keeps its flat index") {
    const Bytes bad = with_u16(bytes, "h.1.attn.c_attn.weight", 3, 0x7C00);
    CHECK_THROWS_WITH(stream(config, bad, 1), Contains("tensor 'h.1.attn.c_attn.weight' contains a non-finite "
                                                       "value (inf) at flat index 3"));
  }
  SECTION("more bytes than announced") {
    ModelStreamLoader loader(cfg, bytes.size() - 1);
    CHECK_THROWS_WITH(loader.write(bytes), Contains("received more than the announced"));
  }
  SECTION("finishing early, then writing after a failure") {
    ModelStreamLoader loader(cfg, bytes.size());
    loader.write({bytes.data(), bytes.size() / 2});
    CHECK(loader.header_parsed());
    CHECK_THROWS_WITH(loader.finish(), Contains("received " + std::to_string(bytes.size() / 2) + " of " +
                                                std::to_string(bytes.size()) + " bytes"));
    Bytes bad = bytes;
    std::memset(bad.data() + 8, '!', 4);  // the header is no longer JSON
    ModelStreamLoader broken(cfg, bad.size());
    CHECK_THROWS_WITH(broken.write(bad), Contains("safetensors header"));
    CHECK_THROWS_WITH(broken.write({bad.data(), 1}), Contains("already failed"));
    CHECK_THROWS_WITH(broken.finish(), Contains("failed"));
  }
  SECTION("a file larger than any checkpoint of the config is refused before a byte arrives") {
    CHECK_THROWS_WITH(ModelStreamLoader(cfg, max_safetensors_bytes(cfg) + 1), Contains("more than any checkpoint"));
  }
  SECTION("the header is checked before the model is allocated") {
    LoadOptions opts;
    opts.max_parameter_bytes = 16;
    CHECK_THROWS_WITH(ModelStreamLoader(cfg, bytes.size(), opts), Contains("LoadOptions::max_parameter_bytes"));
    ModelStreamLoader loader(read_config(config), bytes.size());
    CHECK_THROWS_AS(loader.naming(), Error);
  }
}
