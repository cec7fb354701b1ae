// Tests for checkpoint.hpp: PyTorch-written checkpoints in the book and Hugging Face layouts (F32/F16/BF16)
// against PyTorch logits, save -> load round trips in both layouts, configs, malformed checkpoints, and the
// native files: directory commits (failures, symlinks, racing writers) and input files that are not regular.
#include <catch2/catch.hpp>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "blockscope/checkpoint.hpp"
#include "blockscope/error.hpp"
#include "blockscope/rng.hpp"
#include "support/golden.hpp"
#include "support/files.hpp"

using namespace blockscope;
using test_files::read_file;
using test_files::read_text;
using Catch::Contains;
using json = nlohmann::json;

namespace {
using Bytes = std::vector<uint8_t>;
const std::string kModels = std::string(BLOCKSCOPE_GOLDEN_DIR) + "/models/";
const char* const kGoldenDirs[] = {"book_tiny", "hf_tiny", "hf_tiny_f16", "hf_tiny_bf16"};



const json& logits_golden() {
  static const json doc = json::parse(read_text(kModels + "logits.json"));
  return doc;
}

std::vector<int32_t> golden_ids(Shape* shape) {
  const auto& ids = logits_golden().at("ids");
  *shape = ids.at("shape").get<Shape>();
  return ids.at("data").get<std::vector<int32_t>>();
}

// Re-encodes an all-float safetensors file as F32 after `edit` changes its name -> tensor map.
Bytes rewrite(const Bytes& bytes, const std::function<void(std::map<std::string, Tensor>&)>& edit) {
  const auto f = SafetensorsFile::parse(bytes);
  std::map<std::string, Tensor> tensors;
  for (const auto& e : f.entries()) tensors.emplace(e.name, f.tensor(e.name));
  edit(tensors);
  std::vector<SafetensorsTensorRef> refs;
  for (const auto& [name, t] : tensors) refs.push_back({name, t.shape, t.data});
  return write_safetensors(refs, f.metadata());
}

// Overwrites element `index` of tensor `name` (2-byte dtype) in place: a mutation of the file's own bytes.
Bytes with_u16(Bytes bytes, const std::string& name, size_t index, uint16_t value) {
  const auto f = SafetensorsFile::parse(bytes);
  const auto raw = f.raw(f.at(name));
  const size_t at = static_cast<size_t>(raw.data() - bytes.data()) + 2 * index;
  std::memcpy(bytes.data() + at, &value, 2);
  return bytes;
}

std::string edit_config(const std::string& text, const std::function<void(json&)>& edit) {
  json j = json::parse(text);
  edit(j);
  return j.dump();
}

GPTConfig tiny_config(bool tie, bool qkv_bias) {
  GPTConfig c;
  c.vocab_size = 37;
  c.context_length = 10;
  c.emb_dim = 12;
  c.n_heads = 3;
  c.n_layers = 2;
  c.tie_weights = tie;
  c.qkv_bias = qkv_bias;
  c.layer_norm_epsilon = 1e-6f;
  return c;
}

// A seeded model whose LayerNorms are not the identity, so a swapped scale/shift would show.
GPTModel seeded_model(const GPTConfig& cfg, uint64_t seed) {
  GPTModel m(cfg, seed);
  Rng rng(seed + 1);
  for (const auto& p : m.params().params())
    if (p.name.find("norm") != std::string::npos)
      for (float& x : m.params().get(p.name)) x = (p.name.ends_with("scale") ? 1.0f : 0.0f) + 0.1f * rng.normal();
  return m;
}

void check_load_error(const std::string& config, const Bytes& bytes, const std::string& expected,
                      const LoadOptions& opts = {}) {
  INFO("expected error containing: " << expected);
  CHECK_THROWS_WITH(load_model(config, bytes, opts), Contains(expected));
}
}  // namespace

TEST_CASE("checkpoints written by PyTorch reproduce its logits (book, HF F32/F16/BF16)", "[checkpoint][golden]") {
  Shape shape;
  const auto ids = golden_ids(&shape);
  for (const char* dir : kGoldenDirs) {
    SECTION(dir) {
      GPTModel model = load_model_dir(kModels + dir);
      const bool book = std::string(dir) == "book_tiny";
      CHECK(model.config().tie_weights == !book);
      CHECK(model.config().qkv_bias);
      const Tensor expected = golden::to_tensor(logits_golden().at("models").at(dir).at("logits"));
      golden::check_close(std::string("checkpoint logits ") + dir, model.forward(ids, shape[0], shape[1]), expected,
                          golden::kLogitsAtol, 0.0f);
    }
  }
}

TEST_CASE("the F16 and BF16 goldens come from their rounded weights, not the F32 ones", "[checkpoint][golden]") {
  const Tensor f32 = golden::to_tensor(logits_golden().at("models").at("hf_tiny").at("logits"));
  for (const char* dir : {"hf_tiny_f16", "hf_tiny_bf16"}) {
    const Tensor low = golden::to_tensor(logits_golden().at("models").at(dir).at("logits"));
    float max_diff = 0.0f;
    for (int64_t i = 0; i < f32.numel(); ++i) max_diff = std::max(max_diff, std::fabs(f32.data[i] - low.data[i]));
    INFO(dir);
    CHECK(max_diff > 10 * golden::kLogitsAtol);  // so the F16/BF16 golden tests could fail
  }
}

TEST_CASE("detect_layout tells the book layout from Hugging Face's, with or without the prefix", "[checkpoint]") {
  const Bytes book = read_file(kModels + "book_tiny/model.safetensors");
  const Bytes hf = read_file(kModels + "hf_tiny/model.safetensors");
  const Bytes f16 = read_file(kModels + "hf_tiny_f16/model.safetensors");
  CHECK(detect_layout(SafetensorsFile::parse(book)) == CheckpointLayout::Book);
  CHECK(detect_layout(SafetensorsFile::parse(hf)) == CheckpointLayout::HuggingFace);    // transformer.wte.weight
  CHECK(detect_layout(SafetensorsFile::parse(f16)) == CheckpointLayout::HuggingFace);   // wte.weight
  CHECK(std::string(layout_name(CheckpointLayout::HuggingFace)) == "huggingface");
}

TEST_CASE("layout names come from one table: book, huggingface and its alias hf", "[checkpoint]") {
  CHECK(parse_layout("book") == CheckpointLayout::Book);
  CHECK(parse_layout("huggingface") == CheckpointLayout::HuggingFace);
  CHECK(parse_layout("hf") == CheckpointLayout::HuggingFace);
  CHECK(std::string(layout_name(CheckpointLayout::HuggingFace)) == "huggingface");
  CHECK(std::string(layout_name(CheckpointLayout::Book)) == "book");
  CHECK_THROWS_WITH(parse_layout("onnx", "--layout"), Contains("--layout must be book, huggingface or hf, got 'onnx'"));
  CHECK_THROWS_WITH(parse_layout("Book"), Contains("the checkpoint layout must be book, huggingface or hf, got 'Book'"));
}

TEST_CASE("load options: the JavaScript keys, the portable default, 0 kept as a limit", "[checkpoint]") {
  CHECK(LoadOptions{}.max_parameter_bytes == MemoryBudget::kPortableBytes);
  const LoadOptions none = LoadOptions::from_json(json::object());
  CHECK(none.max_parameter_bytes == MemoryBudget::kPortableBytes);
  CHECK(none.weights == WeightFormat::F32);
  const LoadOptions zero = LoadOptions::from_json({{"maxParameterBytes", 0}, {"weights", "int8"}});
  CHECK(zero.max_parameter_bytes == 0);
  CHECK(zero.weights == WeightFormat::Int8);
  CHECK(LoadOptions::from_json(zero.to_json()).to_json() == zero.to_json());
  CHECK_THROWS_WITH(check_parameter_budget(read_config(R"({"vocab_size": 4, "context_length": 2, "emb_dim": 2,
                        "n_heads": 1, "n_layers": 1})"), zero), Contains("; the limit is 0 bytes"));
  CHECK_THROWS_WITH(LoadOptions::from_json({{"maxParameterBytes", -1}}), Contains("maxParameterBytes must be >= 0"));
  CHECK_THROWS_WITH(LoadOptions::from_json({{"weights", "int4"}}), Contains("'int4'"));
  CHECK_THROWS_WITH(LoadOptions::from_json({{"maxBytes", 1}}), Contains("unknown config key 'maxBytes'"));
}

TEST_CASE("read_config reads Hugging Face GPT-2 keys and the book's", "[checkpoint]") {
  const GPTConfig hf = read_config(read_text(kModels + "hf_tiny/config.json"));
  CHECK(hf.vocab_size == 60);
  CHECK(hf.context_length == 16);
  CHECK(hf.emb_dim == 16);
  CHECK(hf.n_heads == 4);
  CHECK(hf.n_layers == 2);
  CHECK(hf.qkv_bias);
  CHECK(hf.tie_weights);
  CHECK(hf.norm == NormPlacement::Pre);
  CHECK(hf.layer_norm_epsilon == 1e-5f);
  const GPTConfig minimal =
      read_config(R"({"vocab_size": 5, "n_ctx": 4, "n_embd": 8, "n_layer": 1, "n_head": 2,
                      "layer_norm_epsilon": 1e-6, "tie_word_embeddings": false})");
  CHECK(minimal.context_length == 4);
  CHECK_FALSE(minimal.tie_weights);
  CHECK(minimal.layer_norm_epsilon == 1e-6f);
  CHECK_FALSE(read_config(read_text(kModels + "book_tiny/config.json")).tie_weights);
}

TEST_CASE("a saved model loads back with identical logits in both layouts", "[checkpoint]") {
  const std::vector<int32_t> ids = {3, 1, 4, 1, 5, 9, 2, 6, 5, 35, 8, 9, 7, 9, 3, 2};
  for (const auto layout : {CheckpointLayout::Book, CheckpointLayout::HuggingFace})
    for (const bool tie : {false, true})
      for (const bool bias : {false, true}) {
        const std::string name = std::string(layout_name(layout)) + (tie ? " tied" : " untied") +
                                 (bias ? " qkv_bias" : " no qkv_bias");
        SECTION(name) {
          GPTModel model = seeded_model(tiny_config(tie, bias), 41);
          const Bytes bytes = save_safetensors(model, layout);
          const std::string config = config_json(model, layout);
          const auto file = SafetensorsFile::parse(bytes);
          CHECK(file.metadata().at("format") == "pt");
          REQUIRE(detect_layout(file) == layout);
          const bool hf = layout == CheckpointLayout::HuggingFace;
          CHECK((file.find(hf ? "lm_head.weight" : "out_head.weight") != nullptr) == !tie);
          if (hf) {
            CHECK(file.at("transformer.h.1.attn.c_attn.weight").shape == Shape{12, 36});  // Conv1D (in, out)
            CHECK(file.at("transformer.h.1.mlp.c_proj.weight").shape == Shape{48, 12});
            CHECK(config.find("\"n_embd\"") != std::string::npos);
            CHECK(config.find("1e-06") != std::string::npos);  // the shortest float text
          }

          GPTModel back = load_model(config, bytes);
          CHECK(back.config().tie_weights == tie);
          CHECK(back.config().qkv_bias == (hf || bias));  // GPT-2 always has c_attn biases (zeros here)
          CHECK(back.config().layer_norm_epsilon == 1e-6f);
          CHECK(back.forward(ids, 2, 8).data == model.forward(ids, 2, 8).data);
          if (!hf) CHECK(std::equal(model.params().data(), model.params().data() + model.num_parameters(),
                                    back.params().data()));
        }
      }
}

TEST_CASE("save_model_dir and load_model_dir round-trip through a directory", "[checkpoint]") {
  const auto dir = std::filesystem::temp_directory_path() / ("blockscope_ckpt_" + std::to_string(::getpid()));
  GPTModel model = seeded_model(tiny_config(false, true), 7);
  const std::vector<int32_t> ids = {1, 2, 3, 4, 5};
  for (const auto layout : {CheckpointLayout::Book, CheckpointLayout::HuggingFace}) {
    save_model_dir(model, dir.string(), layout);
    CHECK(std::filesystem::exists(dir / "config.json"));
    CHECK_FALSE(std::filesystem::exists(dir / "model.safetensors.tmp"));
    GPTModel back = load_model_dir(dir.string());
    CHECK(back.forward(ids, 1, 5).data == model.forward(ids, 1, 5).data);
  }
  std::filesystem::remove_all(dir);
  CHECK_THROWS_WITH(load_model_dir(dir.string()), Contains("cannot open"));
}

TEST_CASE("post-norm models cannot be saved in the pre-norm-only GPT-2 layout", "[checkpoint]") {
  GPTConfig cfg = tiny_config(true, true);
  cfg.norm = NormPlacement::Post;
  const GPTModel model(cfg, 3);
  CHECK_THROWS_WITH(save_safetensors(model, CheckpointLayout::HuggingFace), Contains("post-norm"));
  CHECK_THROWS_WITH(config_json(model, CheckpointLayout::HuggingFace), Contains("post-norm"));
  CHECK_NOTHROW(save_safetensors(model, CheckpointLayout::Book));
}

TEST_CASE("malformed checkpoints are refused, each with its own error", "[checkpoint]") {
  const std::string book_cfg = read_text(kModels + "book_tiny/config.json");
  const Bytes book = read_file(kModels + "book_tiny/model.safetensors");
  const std::string hf_cfg = read_text(kModels + "hf_tiny/config.json");
  const Bytes hf = read_file(kModels + "hf_tiny/model.safetensors");
  const std::string f16_cfg = read_text(kModels + "hf_tiny_f16/config.json");
  const Bytes f16 = read_file(kModels + "hf_tiny_f16/model.safetensors");
  REQUIRE_NOTHROW(load_model(book_cfg, book));
  REQUIRE_NOTHROW(load_model(hf_cfg, hf));
  REQUIRE_NOTHROW(load_model(f16_cfg, f16));

  SECTION("missing tensor") {
    check_load_error(book_cfg, rewrite(book, [](auto& t) { t.erase("trf_blocks.1.ff.layers.2.bias"); }),
                     "the book-layout checkpoint is missing tensor 'trf_blocks.1.ff.layers.2.bias' (expected shape "
                     "(16,))");
  }
  SECTION("extra tensor") {
    check_load_error(book_cfg, rewrite(book, [](auto& t) { t.emplace("extra.weight", Tensor({2, 2})); }),
                     "unexpected tensor 'extra.weight' (2, 2) in a book-layout checkpoint");
  }
  SECTION("buffer of a layer the config does not have") {
    check_load_error(hf_cfg, rewrite(hf, [](auto& t) { t.emplace("transformer.h.2.attn.bias", Tensor({1})); }),
                     "unexpected tensor 'transformer.h.2.attn.bias'");
  }
  SECTION("tensor of the wrong shape") {
    check_load_error(book_cfg, rewrite(book, [](auto& t) { t.at("pos_emb.weight").shape = {8, 32}; }),
                     "tensor 'pos_emb.weight' has shape (8, 32) but the config implies (16, 16)");
  }
  SECTION("config larger than the file") {
    const auto longer = edit_config(book_cfg, [](json& j) { j["context_length"] = 32; });
    check_load_error(longer, book, "tensor 'pos_emb.weight' has shape (16, 16) but the config implies (32, 16)");
    const auto deeper = edit_config(hf_cfg, [](json& j) { j["n_layer"] = 3; });
    check_load_error(deeper, hf, "missing tensor 'transformer.h.2.attn.c_attn.weight' (expected shape (16, 48))");
  }
  SECTION("NaN weight") {
    check_load_error(book_cfg,
                     rewrite(book, [](auto& t) { t.at("trf_blocks.0.att.W_key.weight").data[5] = std::nanf(""); }),
                     "tensor 'trf_blocks.0.att.W_key.weight' contains a non-finite value (nan) at flat index 5");
  }
  SECTION("inf in a fused F16 tensor") {
    check_load_error(f16_cfg, with_u16(f16, "h.1.attn.c_attn.weight", 3, 0x7C00),
                     "tensor 'h.1.attn.c_attn.weight' contains a non-finite value (inf) at flat index 3");
  }
  SECTION("tied lm_head that differs from wte") {
    check_load_error(f16_cfg, with_u16(f16, "lm_head.weight", 7, 0x3C00),
                     "tensor 'lm_head.weight' differs from 'wte.weight' at flat index 7");
  }
  SECTION("untied Hugging Face config without lm_head") {
    const auto untied = edit_config(hf_cfg, [](json& j) { j["tie_word_embeddings"] = false; });
    check_load_error(untied, hf, "missing tensor 'lm_head.weight' (expected shape (60, 16))");
  }
  SECTION("integer weights") {
    Bytes bad = hf;
    const std::string key = R"("transformer.wpe.weight":{"dtype":"F32")";
    const auto it = std::search(bad.begin(), bad.end(), key.begin(), key.end());
    REQUIRE(it != bad.end());
    *(it + static_cast<std::ptrdiff_t>(key.size()) - 4) = 'I';  // F32 -> I32, same size
    check_load_error(hf_cfg, bad, "tensor 'transformer.wpe.weight' has dtype I32; weights must be F32, F16, BF16");
  }
  SECTION("no recognizable layout") {
    const std::vector<float> v(4);
    const std::vector<SafetensorsTensorRef> refs = {{"encoder.weight", {2, 2}, v}};
    check_load_error(book_cfg, write_safetensors(refs), "cannot tell the checkpoint layout");
  }
  SECTION("GPT-2 tensors with a config without qkv_bias or with post-norm") {
    const auto no_bias = edit_config(book_cfg, [](json& j) { j["qkv_bias"] = false; });
    check_load_error(no_bias, hf, "has attention biases (c_attn.bias) but the config says qkv_bias is false");
    const auto post = edit_config(book_cfg, [](json& j) { j["norm"] = "post"; });
    check_load_error(post, hf, "cannot load a post-norm model in the Hugging Face GPT-2 layout");
  }
  SECTION("over the parameter limit: refused from the config, before allocating") {
    const std::string huge =
        R"({"vocab_size": 1000000000, "context_length": 1024, "emb_dim": 768, "n_heads": 12, "n_layers": 12})";
    const auto start = std::chrono::steady_clock::now();
    check_load_error(huge, Bytes{2, 0, 0, 0, 0, 0, 0, 0, '{', '}'},
                     "the model needs 5.6 TiB of float32 weights (1536085814784 parameters); the limit is 2.0 GiB");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
    check_load_error(book_cfg, book, "the model needs 34.3 KiB of float32 weights (8768 parameters); the limit is 1000 bytes",
                     LoadOptions{1000});
    const std::string absurd =
        R"({"vocab_size": 2000000000, "context_length": 1, "emb_dim": 4398046511104, "n_heads": 1, "n_layers": 1})";
    check_load_error(absurd, book, "emb_dim 4398046511104 exceeds the limit of 65536");
  }
  SECTION("bad config.json") {
    check_load_error("{\"n_embd\": ", book, "config.json is not valid JSON");
    check_load_error("[]", book, "config.json must be a JSON object");
    check_load_error(R"({"hidden_size": 16})", book, "neither 'n_embd' (Hugging Face GPT-2) nor 'emb_dim'");
    check_load_error(edit_config(hf_cfg, [](json& j) { j["emb_dim"] = 16; }), hf, "both 'n_embd'");
    check_load_error(edit_config(hf_cfg, [](json& j) { j["activation_function"] = "swish"; }), hf,
                     "config key 'activation_function' is \"swish\"; supported: gelu_new, gelu_pytorch_tanh, gelu");
    check_load_error(edit_config(hf_cfg, [](json& j) { j["model_type"] = "llama"; }), hf,
                     "config key 'model_type' is \"llama\"; only GPT-2");
    check_load_error(edit_config(hf_cfg, [](json& j) { j["n_ctx"] = 32; }), hf,
                     "'n_positions' (16) and 'n_ctx' (32) disagree");
    // n_inner is the feed-forward width: the file's (16, 64) c_fc no longer fits a config asking for 32.
    check_load_error(edit_config(hf_cfg, [](json& j) { j["n_inner"] = 32; }), hf,
                     "has shape (16, 64) but the config implies (16, 32)");
    check_load_error(edit_config(hf_cfg, [](json& j) { j.erase("n_head"); }), hf, "missing 'n_head'");
    check_load_error(edit_config(book_cfg, [](json& j) { j["n_embd"] = 16; j.erase("emb_dim"); }), book,
                     "Hugging Face config is missing 'n_positions' (or 'n_ctx')");
  }
}

TEST_CASE("values laid out like the parameters are written under the original file's names", "[checkpoint]") {
  for (const char* dir : {"book_tiny", "hf_tiny"}) {
    SECTION(dir) {
      const Bytes bytes = read_file(kModels + dir + "/model.safetensors");
      const SafetensorsFile original = SafetensorsFile::parse(bytes);
      const GPTModel model = load_model(read_text(kModels + dir + "/config.json"), bytes);
      const CheckpointNaming naming = checkpoint_naming(original);
      const Bytes written = save_safetensors(model.config(), model.params(), naming);
      const SafetensorsFile copy = SafetensorsFile::parse(written);
      // Every parameter tensor of the original, same name and shape; only non-parameter buffers are left out.
      for (const auto& e : original.entries()) {
        const bool buffer = e.name.ends_with(".attn.bias") || e.name.ends_with(".attn.masked_bias") ||
                            e.name.ends_with(".att.mask");
        INFO(e.name);
        const SafetensorsEntry* c = copy.find(e.name);
        CHECK((c != nullptr) == !buffer);
        if (!c) continue;
        CHECK(c->shape == e.shape);
        std::vector<float> a(e.numel), b(c->numel);
        original.read_float32(e, a);
        copy.read_float32(*c, b);
        CHECK(a == b);
      }
    }
  }
}

TEST_CASE("a GPT with another FFN width and activation round-trips through the Hugging Face layout", "[checkpoint]") {
  GPTConfig cfg;
  cfg.vocab_size = 30;
  cfg.context_length = 8;
  cfg.emb_dim = 8;
  cfg.n_heads = 2;
  cfg.n_layers = 1;
  cfg.qkv_bias = true;
  cfg.ffn_hidden = 12;
  cfg.activation = Activation::Relu;
  const GPTModel model(cfg, 4);
  const std::string config = config_json(model, CheckpointLayout::HuggingFace);
  const json j = json::parse(config);
  CHECK(j.at("n_inner") == 12);
  CHECK(j.at("activation_function") == "relu");
  GPTModel back = load_model(config, save_safetensors(model, CheckpointLayout::HuggingFace));
  CHECK(back.config().block().hidden_dim() == 12);
  CHECK(back.config().activation == Activation::Relu);
  const std::vector<int32_t> ids = {1, 2, 3};
  CHECK(back.forward(ids, 1, 3).data == const_cast<GPTModel&>(model).forward(ids, 1, 3).data);
}

namespace {
namespace fs = std::filesystem;
// A fresh directory for one test, removed afterwards.
struct Scratch {
  fs::path path;
  explicit Scratch(const std::string& name)
      : path(fs::temp_directory_path() / ("blockscope_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~Scratch() { fs::remove_all(path); }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(path)) out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }
};
using Names = std::vector<std::string>;
}  // namespace

TEST_CASE("write_dir_atomic: a failed write changes nothing and leaves no temporary", "[checkpoint][files]") {
  Scratch dir("commit_fail");
  const Bytes old_a = {1, 2, 3}, new_a(1000, 7), new_b(3000, 9);
  const DirFile first[] = {{"a", old_a}};
  write_dir_atomic(dir.path.string(), first);
  const DirFile files[] = {{"a", new_a}, {"b", new_b}};
  CommitHooks full;
  full.write_errno = [](const std::string& name) { return name == "b" ? ENOSPC : 0; };  // after half of b
  CHECK_THROWS_WITH(write_dir_atomic(dir.path.string(), files, {}, full),
                    Contains("cannot write '" + (dir.path / "b").string() + "': " + std::strerror(ENOSPC)));
  CHECK(dir.names() == Names{"a"});
  CHECK(read_file((dir.path / "a").string()) == old_a);

  // The commit points: before each rename and after the last, files renamed in their order.
  CommitHooks watch;
  std::vector<size_t> points;
  watch.at_rename = [&](size_t n) {
    points.push_back(n);
    CHECK(read_file((dir.path / "a").string()) == (n == 0 ? old_a : new_a));
  };
  const std::string stale[] = {"gone"};
  const DirFile gone[] = {{"gone", old_a}};
  write_dir_atomic(dir.path.string(), gone);
  write_dir_atomic(dir.path.string(), files, stale, watch);
  CHECK(points == std::vector<size_t>{0, 1, 2});
  CHECK(dir.names() == Names{"a", "b"});
  CHECK(read_file((dir.path / "b").string()) == new_b);
}

TEST_CASE("write_dir_atomic follows no planted symlink and shares no temporary with another writer",
          "[checkpoint][files]") {
  Scratch dir("commit_race"), elsewhere("commit_victim");
  const fs::path victim = elsewhere.path / "victim";
  const Bytes precious = {42, 42}, mine(500, 1), theirs(700, 2);
  const DirFile victim_file[] = {{"victim", precious}};
  write_dir_atomic(elsewhere.path.string(), victim_file);
  fs::create_symlink(victim, dir.path / "a.tmp");  // the name the old writer used for every save
  // Another writer commits the same name while this one is between writing and renaming.
  CommitHooks race;
  race.at_rename = [&](size_t n) {
    if (n != 0) return;
    const DirFile other[] = {{"a", theirs}};
    write_dir_atomic(dir.path.string(), other);
    CHECK(read_file((dir.path / "a").string()) == theirs);
  };
  const DirFile files[] = {{"a", mine}};
  write_dir_atomic(dir.path.string(), files, {}, race);
  CHECK(read_file((dir.path / "a").string()) == mine);  // whole files only: the last rename wins
  CHECK(read_file(victim.string()) == precious);
  CHECK(fs::is_symlink(dir.path / "a.tmp"));
  CHECK(dir.names() == Names{"a", "a.tmp"});
  CHECK_THROWS_WITH(write_file_atomic(dir.path.string(), mine), Contains("is a directory"));
  CHECK_THROWS_WITH(require_writable_dir((dir.path / "a" / "sub").string(), "--out"),
                    Contains("is not a directory"));
  require_writable_dir((dir.path / "new" / "sub").string(), "--out");  // would be created: probed, not made
  CHECK(dir.names() == Names{"a", "a.tmp"});
}

TEST_CASE("read_file_bytes refuses a FIFO at once rather than waiting for a writer", "[checkpoint][files]") {
  Scratch dir("fifo");
  const fs::path fifo = dir.path / "config.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  ::alarm(20);  // a regression blocks in open(): SIGALRM then ends the test binary loudly instead of hanging
  CHECK_THROWS_WITH(read_file_bytes(fifo.string()), Contains("is not a regular file (a pipe)"));
  CHECK_THROWS_WITH(load_model_dir(dir.path.string()), Contains("config.json' is not a regular file (a pipe)"));
  ::alarm(0);
}
