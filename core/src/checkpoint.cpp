// Checkpoints: the table mapping either layout's tensors onto the GPTModel arena, used in both directions
// (load and save), the table of layout names, load options and the parameter budget. config.json is
// checkpoint_config.cpp; files on disk are checkpoint_files.cpp (native only).
#include "blockscope/checkpoint.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "checkpoint_plan.hpp"
#include "json_reader.hpp"

namespace blockscope {

using namespace ckpt;

namespace {
using json = nlohmann::json;
constexpr CheckpointLayout kBook = CheckpointLayout::Book;
constexpr CheckpointLayout kHF = CheckpointLayout::HuggingFace;
}  // namespace

// ---------------------------------------------------------------------------------------------------------
// Layout names and load options
// ---------------------------------------------------------------------------------------------------------
namespace {
// Every name a layout is known by, its canonical name (what save() reports) first: "hf" is the CLI's spelling.
constexpr struct {
  const char* name;
  CheckpointLayout layout;
} kLayoutNames[] = {{"book", kBook}, {"huggingface", kHF}, {"hf", kHF}};
}  // namespace

const char* layout_name(CheckpointLayout layout) {
  for (const auto& l : kLayoutNames)
    if (l.layout == layout) return l.name;
  throw Error("internal: a checkpoint layout without a name");
}

CheckpointLayout parse_layout(std::string_view name, const char* what) {
  std::string accepted;
  constexpr size_t n = std::size(kLayoutNames);
  for (size_t i = 0; i < n; ++i) {
    if (name == kLayoutNames[i].name) return kLayoutNames[i].layout;
    accepted += detail::concat(i == 0 ? "" : i + 1 == n ? " or " : ", ", kLayoutNames[i].name);
  }
  throw Error(detail::concat(what, " must be ", accepted, ", got '", detail::excerpt(name), "'"));
}

LoadOptions LoadOptions::from_json(const json& j) {
  const detail::Reader r(j, "load options", {"maxParameterBytes", "weights"});
  LoadOptions o;
  o.max_parameter_bytes = r.integer("maxParameterBytes", o.max_parameter_bytes);
  require(o.max_parameter_bytes >= 0, "maxParameterBytes must be >= 0, got ", o.max_parameter_bytes);
  o.weights = parse_weight_format(r.text("weights", weight_format_name(o.weights)));
  return o;
}

json LoadOptions::to_json() const {
  return {{"maxParameterBytes", max_parameter_bytes}, {"weights", weight_format_name(weights)}};
}

void check_parameter_budget(const GPTConfig& cfg, const LoadOptions& opts) {
  require(opts.max_parameter_bytes >= 0, "LoadOptions::max_parameter_bytes must be >= 0, got ",
          opts.max_parameter_bytes);
  // Exact: a valid config's count fits int64 with room to spare (SizeLimits), and count_parameters validates.
  const int64_t params = GPTModel::count_parameters(cfg);
  const int64_t bytes = GPTModel::parameter_bytes(cfg);
  require(bytes <= opts.max_parameter_bytes, "the model needs ", bytes_str(static_cast<double>(bytes)),
          " of float32 weights (", params, " parameters); the limit is ",
          bytes_str(static_cast<double>(opts.max_parameter_bytes)),
          " (LoadOptions::max_parameter_bytes, maxParameterBytes in JavaScript)");
}

// ---------------------------------------------------------------------------------------------------------
// The plan: every tensor of a layout's file, and where its values live in the arena.
// ---------------------------------------------------------------------------------------------------------
namespace ckpt {
namespace {
// One parameter in both layouts. Shapes are spelled with the dimension letters C = emb_dim, H = 4C (the
// feed-forward width), V = vocab_size, T = context_length, 3 = 3C; "HC" is (H, C).
struct Row {
  const char* book;        // book / arena name (after "trf_blocks.{i}." in block rows)
  const char* book_shape;
  const char* hf;          // GPT-2 name (after "[transformer.]h.{i}." in block rows)
  const char* hf_shape;
  Op op = Op::Copy;        // how the GPT-2 tensor maps onto the parameter
  int8_t part = 0;
  bool qkv_bias = false;   // exists in the book layout only when the config has qkv_bias
};

// transformers' GPT2Block: ln_1, attn.c_attn (fused Q|K|V, Conv1D), attn.c_proj, ln_2, mlp.c_fc, mlp.c_proj.
// Rows sharing a GPT-2 tensor are adjacent (they merge into one file tensor).
constexpr Row kBlockRows[] = {
    {"att.W_query.weight", "CC", "attn.c_attn.weight", "C3", Op::QkvWeight, 0},
    {"att.W_key.weight", "CC", "attn.c_attn.weight", "C3", Op::QkvWeight, 1},
    {"att.W_value.weight", "CC", "attn.c_attn.weight", "C3", Op::QkvWeight, 2},
    {"att.W_query.bias", "C", "attn.c_attn.bias", "3", Op::QkvBias, 0, true},
    {"att.W_key.bias", "C", "attn.c_attn.bias", "3", Op::QkvBias, 1, true},
    {"att.W_value.bias", "C", "attn.c_attn.bias", "3", Op::QkvBias, 2, true},
    {"att.out_proj.weight", "CC", "attn.c_proj.weight", "CC", Op::Transpose},
    {"att.out_proj.bias", "C", "attn.c_proj.bias", "C"},
    {"ff.layers.0.weight", "HC", "mlp.c_fc.weight", "CH", Op::Transpose},
    {"ff.layers.0.bias", "H", "mlp.c_fc.bias", "H"},
    {"ff.layers.2.weight", "CH", "mlp.c_proj.weight", "HC", Op::Transpose},
    {"ff.layers.2.bias", "C", "mlp.c_proj.bias", "C"},
    {"norm1.scale", "C", "ln_1.weight", "C"},
    {"norm1.shift", "C", "ln_1.bias", "C"},
    {"norm2.scale", "C", "ln_2.weight", "C"},
    {"norm2.shift", "C", "ln_2.bias", "C"},
};
constexpr Row kEmbeddingRows[] = {
    {"tok_emb.weight", "VC", "wte.weight", "VC"},
    {"pos_emb.weight", "TC", "wpe.weight", "TC"},
};
constexpr Row kFinalNormRows[] = {
    {"final_norm.scale", "C", "ln_f.weight", "C"},
    {"final_norm.shift", "C", "ln_f.bias", "C"},
};

Shape dims(const char* spec, const GPTConfig& cfg) {
  Shape s;
  for (const char* c = spec; *c; ++c)
    s.push_back(*c == 'C' ? cfg.emb_dim : *c == 'H' ? cfg.block().hidden_dim() : *c == 'V' ? cfg.vocab_size
                : *c == 'T' ? cfg.context_length : 3 * cfg.emb_dim);
  return s;
}

void add_row(Plan& p, const Row& r, const GPTConfig& cfg, const std::string& book_prefix,
             const std::string& file_prefix) {
  const bool hf = p.layout == kHF;
  const std::string file = file_prefix + (hf ? r.hf : r.book);
  if (p.tensors.empty() || p.tensors.back().name != file)
    p.tensors.push_back({file, dims(hf ? r.hf_shape : r.book_shape, cfg), {}});
  if (!r.qkv_bias || cfg.qkv_bias)
    p.tensors.back().dests.push_back({book_prefix + r.book, dims(r.book_shape, cfg), hf ? r.op : Op::Copy, r.part});
  // A GPT-2 c_attn.bias exists even without qkv_bias (saved as zeros); the book file then has no bias at all.
  if (!hf && p.tensors.back().dests.empty()) p.tensors.pop_back();
}

}  // namespace

// `prefix` is "transformer." or "" for GPT-2 names, ignored for the book layout.
Plan make_plan(const GPTConfig& cfg, CheckpointLayout layout, const std::string& prefix) {
  Plan p;
  p.layout = layout;
  const bool hf = layout == kHF;
  const std::string top = hf ? prefix : "";
  for (const Row& r : kEmbeddingRows) add_row(p, r, cfg, "", top);
  for (int64_t l = 0; l < cfg.n_layers; ++l) {
    const std::string book = "trf_blocks." + std::to_string(l) + ".";
    const std::string file = hf ? prefix + "h." + std::to_string(l) + "." : book;
    for (const Row& r : kBlockRows) add_row(p, r, cfg, book, file);
    // Causal-mask buffers: the book's registered `mask` (in state_dict()), GPT-2's `bias` / older `masked_bias`.
    if (hf) {
      p.ignored.insert(file + "attn.bias");
      p.ignored.insert(file + "attn.masked_bias");
    } else {
      p.ignored.insert(file + "att.mask");
    }
  }
  for (const Row& r : kFinalNormRows) add_row(p, r, cfg, "", top);
  const std::string head = hf ? "lm_head.weight" : "out_head.weight";  // GPT-2's head is never prefixed
  const Shape vc{cfg.vocab_size, cfg.emb_dim};
  if (cfg.tie_weights) {
    p.tied_copy = head;  // optional; state_dict() of a tied model lists the shared matrix twice
    p.tied_source = p.tensors.front().name;
  } else {
    p.tensors.push_back({head, vc, {{"out_head.weight", vc, Op::Copy, 0}}});
  }
  return p;
}
}  // namespace ckpt

void require_hf_compatible(const GPTConfig& cfg, const char* action) {
  require(cfg.norm == NormPlacement::Pre, "cannot ", action,
          " a post-norm model in the Hugging Face GPT-2 layout, which is pre-norm only; use the book layout");
}

CheckpointLayout detect_layout(const SafetensorsFile& file) {
  if (file.find("tok_emb.weight")) return kBook;
  if (file.find("wte.weight") || file.find("transformer.wte.weight")) return kHF;
  std::string some;
  for (size_t i = 0; i < file.entries().size() && i < 3; ++i) some += (i ? ", '" : "'") + file.entries()[i].name + "'";
  throw Error(detail::concat("cannot tell the checkpoint layout: no 'tok_emb.weight' (book) and no 'wte.weight' or "
                             "'transformer.wte.weight' (Hugging Face GPT-2); the file has ",
                             file.entries().size(), " tensors", some.empty() ? "" : ", e.g. ", some));
}

// ---------------------------------------------------------------------------------------------------------
// Moving values between file layout and arena layout
// ---------------------------------------------------------------------------------------------------------
namespace ckpt {
namespace {
// dst[c * dst_stride + r] = src[r * src_stride + c] for r < rows, c < cols (pointers pre-offset to a block).
void transpose_copy(float* dst, int64_t dst_stride, const float* src, int64_t src_stride, int64_t rows,
                    int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) dst[c * dst_stride + r] = src[r * src_stride + c];
}

}  // namespace

void to_param(const FileTensor& ft, const Dest& d, const float* file, float* param) {
  const int64_t n = shape_numel(d.shape);
  switch (d.op) {
    case Op::Copy: std::copy(file, file + n, param); return;
    case Op::Transpose: transpose_copy(param, ft.shape[0], file, ft.shape[1], ft.shape[0], ft.shape[1]); return;
    case Op::QkvWeight: {
      const int64_t C = d.shape[0];
      transpose_copy(param, C, file + d.part * C, 3 * C, C, C);
      return;
    }
    case Op::QkvBias: std::copy(file + d.part * n, file + (d.part + 1) * n, param); return;
  }
}

// One arena parameter -> file values (the inverse of to_param).
void from_param(const FileTensor& ft, const Dest& d, const float* param, float* file) {
  const int64_t n = shape_numel(d.shape);
  switch (d.op) {
    case Op::Copy: std::copy(param, param + n, file); return;
    case Op::Transpose: transpose_copy(file, ft.shape[1], param, ft.shape[0], ft.shape[1], ft.shape[0]); return;
    case Op::QkvWeight: {
      const int64_t C = d.shape[0];
      transpose_copy(file + d.part * C, 3 * C, param, C, C, C);
      return;
    }
    case Op::QkvBias: std::copy(param, param + n, file + d.part * n); return;
  }
}

std::span<const float> param_values(const ParamArena& arena, const std::string& name) {
  const ParamInfo* p = arena.find(name);
  require(p != nullptr, "internal: no parameter named '", name, "'");
  return {arena.data() + p->offset, static_cast<size_t>(p->numel)};
}

// ---------------------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------------------
void check_present(const SafetensorsFile& file, const Plan& plan) {
  for (const auto& ft : plan.tensors) {
    const SafetensorsEntry* e = file.find(ft.name);
    require(e != nullptr, "the ", layout_name(plan.layout), "-layout checkpoint is missing tensor '", ft.name,
            "' (expected shape ", shape_str(ft.shape), ")");
    require(e->shape == ft.shape, "tensor '", ft.name, "' has shape ", shape_str(e->shape),
            " but the config implies ", shape_str(ft.shape));
    require(dtype_is_float(e->dtype), "tensor '", ft.name, "' has dtype ", dtype_name(e->dtype),
            "; weights must be F32, F16, BF16 or F64");
  }
}

void check_no_unexpected(const SafetensorsFile& file, const Plan& plan, const GPTConfig& cfg) {
  std::set<std::string> known(plan.ignored);
  for (const auto& ft : plan.tensors) known.insert(ft.name);
  for (const auto& e : file.entries()) {
    if (known.count(e.name)) continue;
    if (e.name == plan.tied_copy) {
      const Shape emb{cfg.vocab_size, cfg.emb_dim};
      require(e.shape == emb && dtype_is_float(e.dtype), "tensor '", e.name, "' (tied to '", plan.tied_source,
              "') has dtype ", dtype_name(e.dtype), " and shape ", shape_str(e.shape), "; expected a float ",
              shape_str(emb));
      continue;
    }
    throw Error(detail::concat("unexpected tensor '", e.name, "' ", shape_str(e.shape), " in a ",
                               layout_name(plan.layout), "-layout checkpoint for this config (", cfg.n_layers,
                               " layers, qkv_bias ", cfg.qkv_bias, ", tie_weights ", cfg.tie_weights, ")"));
  }
}

// The plan must name every arena parameter exactly once with its shape; guards against layout drift.
void check_plan_covers(const Plan& plan, const ParamArena& arena) {
  std::map<std::string, Shape> dests;
  for (const auto& ft : plan.tensors)
    for (const auto& d : ft.dests) dests.emplace(d.param, d.shape);
  const size_t n = arena.params().size() + arena.int8_params().size();
  require(dests.size() == n, "internal: checkpoint plan has ", dests.size(), " parameters, the model ", n);
  std::vector<ParamInfo> all = arena.params();
  all.insert(all.end(), arena.int8_params().begin(), arena.int8_params().end());
  for (const auto& p : all) {
    const auto it = dests.find(p.name);
    require(it != dests.end() && it->second == p.shape, "internal: checkpoint plan lacks parameter '", p.name,
            "' ", shape_str(p.shape));
  }
}

Plan load_plan(const GPTConfig& cfg, const SafetensorsFile& file) {
  const CheckpointLayout layout = detect_layout(file);
  if (layout == kBook) return make_plan(cfg, kBook, "");
  require_hf_compatible(cfg, "load");
  require(cfg.qkv_bias, "the Hugging Face GPT-2 layout has attention biases (c_attn.bias) but the config says "
          "qkv_bias is false");
  return make_plan(cfg, kHF, file.find("transformer.wte.weight") ? "transformer." : "");
}
}  // namespace ckpt

// ---------------------------------------------------------------------------------------------------------
// Saving
// ---------------------------------------------------------------------------------------------------------
std::vector<uint8_t> save_safetensors(const GPTModel& model, CheckpointLayout layout) {
  return save_safetensors(model.config(), model.params(), CheckpointNaming{layout, true, false});
}

CheckpointNaming checkpoint_naming(const SafetensorsFile& file) {
  CheckpointNaming n;
  n.layout = detect_layout(file);
  n.hf_prefix = n.layout == kHF && file.find("transformer.wte.weight") != nullptr;
  n.tied_copy = file.find(n.layout == kHF ? "lm_head.weight" : "out_head.weight") != nullptr;
  return n;
}

std::vector<uint8_t> save_safetensors(const GPTConfig& cfg, const ParamArena& arena, const CheckpointNaming& naming,
                                      Dtype storage, const std::map<std::string, std::string>& metadata) {
  require(arena.int8_params().empty(), "cannot save the model: parameter '",
          arena.int8_params().empty() ? "" : arena.int8_params()[0].name,
          "' is stored as int8 (the model was loaded with int8 weights, which are inference-only); save from a "
          "float32 load");
  const CheckpointLayout layout = naming.layout;
  if (layout == kHF) require_hf_compatible(cfg, "save");
  const Plan plan = make_plan(cfg, layout, naming.hf_prefix ? "transformer." : "");
  std::deque<std::vector<float>> owned;  // transposed / fused tensors; deque keeps them in place
  std::vector<SafetensorsTensorRef> refs;
  for (const auto& ft : plan.tensors) {
    if (ft.dests.size() == 1 && ft.dests[0].op == Op::Copy) {
      refs.push_back({ft.name, ft.shape, param_values(arena, ft.dests[0].param)});
      continue;
    }
    auto& values = owned.emplace_back(static_cast<size_t>(shape_numel(ft.shape)), 0.0f);  // zero c_attn bias
    for (const auto& d : ft.dests) from_param(ft, d, param_values(arena, d.param).data(), values.data());
    refs.push_back({ft.name, ft.shape, values});
  }
  // A tied model's file may store the shared matrix under the head's name too (state_dict() does): write
  // the same values there, so the file has exactly the original's tensors.
  if (naming.tied_copy && !plan.tied_copy.empty())
    refs.push_back({plan.tied_copy, {cfg.vocab_size, cfg.emb_dim}, param_values(arena, "tok_emb.weight")});
  std::map<std::string, std::string> meta = metadata;
  meta["format"] = "pt";  // what transformers checks
  return write_safetensors(refs, meta, storage);
}

// ---------------------------------------------------------------------------------------------------------
// Training checkpoints: the optimizer state names the weights it belongs to
// ---------------------------------------------------------------------------------------------------------
namespace {
constexpr const char* kFingerprintKey = "weights_fingerprint";
}  // namespace

std::string weights_fingerprint(const ParamArena& params) {
  // FNV-1a, 64-bit (offset basis and prime from the reference, isthe.com/chongo/tech/comp/fnv), byte by byte
  // over each parameter's float32 values, little-endian as the targets (x86-64, wasm) store them.
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& p : params.params()) {
    const auto* bytes = reinterpret_cast<const uint8_t*>(params.data() + p.offset);
    const size_t n = static_cast<size_t>(p.numel) * sizeof(float);
    for (size_t i = 0; i < n; ++i) h = (h ^ bytes[i]) * 0x100000001b3ULL;
  }
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::vector<uint8_t> save_training_state(const AdamW& optimizer, const ParamArena& weights) {
  return optimizer.save_state({{kFingerprintKey, weights_fingerprint(weights)}});
}

std::string check_training_state(std::span<const uint8_t> optimizer_state, const ParamArena& weights,
                                 const std::map<std::string, std::string>& model_metadata) {
  const SafetensorsFile f = SafetensorsFile::parse(optimizer_state);  // the header only; load_state reads the rest
  const auto& meta = f.metadata();
  const auto step = meta.find("step");
  require(step != meta.end(), "optimizer state has no 'step' in its metadata");
  const int64_t opt_step = parse_step_count(step->second, "optimizer state 'step'");
  const auto model_step_text = model_metadata.find("step");
  const int64_t model_step = model_step_text == model_metadata.end()
                                 ? -1 : parse_step_count(model_step_text->second, "model.safetensors metadata 'step'");
  const auto expected = meta.find(kFingerprintKey);
  if (expected == meta.end()) {
    require(model_step < 0 || model_step == opt_step, "the optimizer state is from step ", opt_step,
            " but model.safetensors holds the weights after step ", model_step,
            ": the two files come from different saves");
    return detail::concat("the optimizer state (step ", opt_step, ") has no '", kFingerprintKey,
                          "' (it was written before Blockscope recorded one), so whether it belongs to these weights "
                          "cannot be checked");
  }
  const std::string actual = weights_fingerprint(weights);
  const std::string model_step_words =
      model_step < 0 ? std::string("other weights") : detail::concat("the weights after step ", model_step);
  require(actual == expected->second && (model_step < 0 || model_step == opt_step), "the optimizer state is from step ",
          opt_step, " but model.safetensors holds ", model_step_words, " (weights fingerprint ", actual, "; the state ",
          "was saved with ", expected->second, "): the two files come from different saves (a save interrupted "
          "between its renames?)");
  return "";
}

}  // namespace blockscope
