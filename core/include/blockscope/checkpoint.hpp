// Model checkpoints: config.json + model.safetensors in the book's state_dict layout or Hugging Face GPT-2's,
// loaded into / saved from a GPTModel. Byte-level API for wasm; directory helpers exist only in native builds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/gpt_model.hpp"
#include "blockscope/optimizer.hpp"
#include "blockscope/safetensors.hpp"

namespace blockscope {

// Book: GPTModel.state_dict() names, the arena's own (`tok_emb.weight`, `trf_blocks.0.att.W_query.weight`, ...;
//   `trf_blocks.{i}.att.mask` buffers are ignored; tied models have no `out_head.weight`, or one equal to
//   `tok_emb.weight`). Config: GPTConfig's keys.
// HuggingFace: GPT2LMHeadModel / GPT2Model names, with or without the `transformer.` prefix (`wte.weight`,
//   `h.0.attn.c_attn.weight`, ...). Conv1D weights are stored (in, out) and c_attn fuses Q|K|V along `out`;
//   the loader transposes and splits them once. `h.{i}.attn.bias` / `.masked_bias` buffers are ignored.
//   Tied per the config's `tie_word_embeddings` (default true): `lm_head.weight` is then optional and must
//   equal `wte.weight`; untied files must have it. Always pre-norm with attention biases.
enum class CheckpointLayout { Book, HuggingFace };
// The one table of layout names (checkpoint.cpp): "book" and "huggingface", which also accepts "hf" (the
// CLI's --layout spelling). layout_name gives the canonical name; parse_layout accepts any listed name and
// otherwise throws Error "<what> must be book, huggingface or hf, got 'x'".
const char* layout_name(CheckpointLayout layout);
CheckpointLayout parse_layout(std::string_view name, const char* what = "the checkpoint layout");

struct LoadOptions {
  // The most bytes the model's float32 weights may take, checked against the config before anything is built.
  // The portable budget by default, the same on every platform: a checkpoint loads in the CLI and in a page
  // alike, or both refuse it with the same message. 0 refuses every model.
  int64_t max_parameter_bytes = MemoryBudget::kPortableBytes;
  // Int8: the token embedding and every Linear matrix are quantized as their rows arrive (Q8_0-like, one scale
  // per 32 values; quantized.hpp) and never held in float32; the model is then inference-only.
  WeightFormat weights = WeightFormat::F32;

  // The JavaScript API's keys: "maxParameterBytes" (an integer >= 0) and "weights" ("f32" / "int8"), both
  // optional with the defaults above; unknown keys rejected by name.
  static LoadOptions from_json(const nlohmann::json& j);
  nlohmann::json to_json() const;
};

// Parses config.json. Hugging Face keys (`n_embd`, `n_layer`, `n_head`, `n_positions` or `n_ctx`,
// `vocab_size`, `layer_norm_epsilon`, `tie_word_embeddings`; `model_type` must be "gpt2" and
// `activation_function` "gelu_new"/"gelu_pytorch_tanh" if present; other keys are ignored) or the book's keys
// (GPTConfig::from_json, strict). Throws Error naming the offending key.
GPTConfig read_config(std::string_view config_json);

// Throws Error unless `cfg` can be written in the Hugging Face GPT-2 layout (pre-norm only); `action` is the
// verb for the message ("save", "load").
void require_hf_compatible(const GPTConfig& cfg, const char* action);

// Book if the file has `tok_emb.weight`, HuggingFace if it has `wte.weight` or `transformer.wte.weight`.
CheckpointLayout detect_layout(const SafetensorsFile& file);

// Throws Error ("the model needs 621.8 MiB of float32 weights (163009536 parameters); the limit is 512.0 MiB
// (LoadOptions::max_parameter_bytes, ...)") if the config's parameters (GPTModel::parameter_bytes) exceed
// opts.max_parameter_bytes. Validates the config first.
void check_parameter_budget(const GPTConfig& cfg, const LoadOptions& opts);

// Reads config.json and model.safetensors bytes into a model, checking in this order: config, parameter
// budget (before allocating anything), safetensors structure, layout, then every expected tensor present
// with the shape the config implies and a float dtype, no unexpected tensor, tied copies equal; values are
// converted to float32 and rejected by tensor name if NaN or +-inf.
GPTModel load_model(std::string_view config_json, std::span<const uint8_t> safetensors_bytes,
                    const LoadOptions& opts = {});
GPTModel load_model(const GPTConfig& cfg, const SafetensorsFile& file, const LoadOptions& opts = {});

// Writes the model's weights as F32 in `layout` (metadata {"format": "pt"}, as transformers expects).
// HuggingFace: names carry the `transformer.` prefix (what save_pretrained writes for GPT2LMHeadModel);
// untied models also get `lm_head.weight` (and config_json says tie_word_embeddings: false); a model without
// qkv_bias gets zero c_attn biases (the same function). Post-norm models cannot be saved as GPT-2: Error.
std::vector<uint8_t> save_safetensors(const GPTModel& model, CheckpointLayout layout);

// How a checkpoint file names its tensors, so that what Blockscope writes back for it (trained weights,
// gradients) carries exactly the same names: the layout, GPT-2's "transformer." prefix (what
// save_pretrained writes) or none, and whether a tied model's file also stores the shared matrix under the
// head's name (`lm_head.weight` / `out_head.weight`, as state_dict() does).
struct CheckpointNaming {
  CheckpointLayout layout = CheckpointLayout::Book;
  bool hf_prefix = true;
  bool tied_copy = false;
};
CheckpointNaming checkpoint_naming(const SafetensorsFile& file);

// Loads a checkpoint from model.safetensors bytes that arrive in order, in chunks of any size, without ever
// holding the file (wasm streams a download through it; load_model and load_model_dir use it too). As soon as
// the header is complete it is checked like load_model's (structure, layout, every tensor's presence, shape
// and dtype) and only then is the model allocated; each tensor's values then go straight into the
// parameters as they arrive, converted to float32 and checked for NaN/inf by tensor name. Only a tensor that
// must be rearranged (a GPT-2 Conv1D weight, transposed; c_attn, split into Q/K/V) is staged whole. A tied
// embedding stored twice is loaded from whichever copy comes first and the other compared with it.
// The file size is known up front and checked against the config (max_safetensors_bytes).
class ModelStreamLoader {
 public:
  ModelStreamLoader(const GPTConfig& cfg, uint64_t file_size, const LoadOptions& opts = {});
  ~ModelStreamLoader();
  ModelStreamLoader(ModelStreamLoader&&) noexcept;
  // Consumes the file's next bytes. Throws Error naming the problem (header, tensor, value, more bytes than
  // announced); the loader is then failed, its memory released, and every later call throws.
  void write(std::span<const uint8_t> bytes);
  uint64_t received() const;
  uint64_t file_size() const;
  bool header_parsed() const;
  // How the file names its tensors, and its __metadata__ (once the header is parsed; Error before).
  const CheckpointNaming& naming() const;
  const std::map<std::string, std::string>& metadata() const;
  // The model, once all file_size bytes have arrived ("received N of M bytes" otherwise). Once only.
  GPTModel finish();

  struct Impl;  // checkpoint_stream.cpp

 private:
  std::unique_ptr<Impl> impl_;
};

// The most bytes a model.safetensors for `cfg` can hold: its tensors in the widest float dtype (F64), a
// tied copy of the embedding, the causal-mask buffers checkpoints may carry, plus the largest header.
// Loaders refuse a larger file from its size alone (require_safetensors_size: the one message for it).
uint64_t max_safetensors_bytes(const GPTConfig& cfg);
void require_safetensors_size(const GPTConfig& cfg, uint64_t file_size);
// Writes `values` — the model's parameters or anything laid out like them (gradients, AdamW moments) — as
// F32 tensors named and shaped as `naming` says: Conv1D weights transposed, Q|K|V fused into c_attn, a tied
// head's values (for gradients: the folded gradient of both uses) under both names when tied_copy.
// `storage` F16 or BF16 rounds every value to that type (half the bytes; see write_safetensors). `metadata` is
// written next to {"format": "pt"} (a training checkpoint's "step").
std::vector<uint8_t> save_safetensors(const GPTConfig& cfg, const ParamArena& values, const CheckpointNaming& naming,
                                      Dtype storage = Dtype::F32,
                                      const std::map<std::string, std::string>& metadata = {});
// The config.json matching save_safetensors(model, layout); read_config reads it back to the same config
// (HuggingFace layout: with qkv_bias true).
std::string config_json(const GPTModel& model, CheckpointLayout layout);

// Training checkpoints: model.safetensors + config.json + optimizer.safetensors (AdamW's state). The optimizer
// state's metadata names the weights it was saved with, so a directory holding one save's weights next to
// another save's optimizer state (a save killed between two renames) is refused rather than resumed:
//   optimizer.safetensors: "step" (AdamW's update count) and "weights_fingerprint" ("fnv1a64:" + 16 hex digits);
//   model.safetensors: "step", the update after which these weights were saved (TrainingRun's weights_step).
inline constexpr const char* kOptimizerStateFile = "optimizer.safetensors";
// FNV-1a (64-bit) of the float32 parameters' little-endian bytes in the arena's order, as "fnv1a64:<16 hex>":
// independent of the file's layout and tensor names, and equal after an F32 save and load.
std::string weights_fingerprint(const ParamArena& params);
// AdamW::save_state() with the fingerprint of `weights`, the parameters it was saved next to.
std::vector<uint8_t> save_training_state(const AdamW& optimizer, const ParamArena& weights);
// Checks optimizer-state bytes against the weights they are about to be resumed with (`weights`, loaded from a
// model.safetensors whose __metadata__ is `model_metadata`). Error if the fingerprint differs or the two files
// name different steps: "the optimizer state is from step 20 but model.safetensors holds the weights after
// step 40 (weights fingerprint fnv1a64:... there, fnv1a64:... expected): the two files come from different
// saves ...". State written before fingerprints existed has none: it is accepted (nothing to compare) and the
// returned text is a warning saying so; "" otherwise.
std::string check_training_state(std::span<const uint8_t> optimizer_state, const ParamArena& weights,
                                 const std::map<std::string, std::string>& model_metadata);

#ifndef __EMSCRIPTEN__
// Native only: a model directory holds config.json and model.safetensors.
GPTModel load_model_dir(const std::string& dir, const LoadOptions& opts = {});
// The model and how its file names tensors, so what is written back for it (trained weights, gradients)
// carries exactly the original's names.
struct NamedModel {
  GPTModel model;
  CheckpointNaming naming;
  std::map<std::string, std::string> metadata;  // model.safetensors' __metadata__
};
NamedModel load_model_dir_named(const std::string& dir, const LoadOptions& opts = {});
// Creates `dir` if needed; the two files are written as one commit (write_dir_atomic).
void save_model_dir(const GPTModel& model, const std::string& dir, CheckpointLayout layout);
void save_model_dir(const GPTModel& model, const std::string& dir, const CheckpointNaming& naming,
                    Dtype storage = Dtype::F32);
// Size limits of the files Blockscope reads whole (a file over its limit is refused from its size, unread).
inline constexpr uint64_t kMaxConfigFileBytes = uint64_t{16} << 20;     // config.json: 16 MiB
inline constexpr uint64_t kMaxTokenizerFileBytes = uint64_t{64} << 20;  // vocab.json, merges.txt, ...: 64 MiB
inline constexpr uint64_t kMaxDataFileBytes = uint64_t{2} << 30;        // anything else (data, prompts): 2 GiB
// The whole file at `path`, which must be a regular file (or a symlink to one) of at most `max_bytes`
// bytes: Error "cannot open 'PATH': reason", "'PATH' is a directory", "'PATH' is not a regular file (a
// character device)" or "'PATH' is N bytes; the limit for <what> is M". The file is opened non-blocking and
// checked with fstat before any read, so a FIFO is refused ("(a pipe)") instead of waiting for a writer; the
// size is checked on the open file before anything is allocated, and at most that many bytes are ever read.
std::vector<uint8_t> read_file_bytes(const std::string& path, uint64_t max_bytes = kMaxDataFileBytes,
                                     const char* what = "a file read whole");

// Files of one directory written as one commit. Each goes to a temporary of its own in `dir` (a fresh name,
// ".NAME.<pid>-<random>.tmp", created O_CREAT | O_EXCL | O_NOFOLLOW: a planted symlink or another writer's
// temporary is never opened), is fsynced and closed; if any of that fails (a full disk ...) every temporary
// is removed, no file of `dir` has changed, and the Error says why: "cannot write 'DIR/NAME': No space left
// on device". Then the names in `remove` are unlinked (a stale file that would not match the new ones), the
// files are renamed into place in their order, and the directory is fsynced. Renames are atomic one by one,
// not together: a crash between two leaves old and new files side by side, which readers must detect
// (check_training_state), and its temporaries, which the next commit of the same names removes once their
// process is gone. `dir` is created if missing.
struct DirFile {
  std::string name;  // a plain file name inside the directory
  std::span<const uint8_t> bytes;
};
// Test seams (tests/cli simulate kills and full disks through them; production code leaves them empty).
struct CommitHooks {
  // Non-zero: writing file `name` fails with this errno after half its bytes (ENOSPC: a full disk).
  std::function<int(const std::string& name)> write_errno;
  // Called with 0, 1, ..., n: before each of the n renames and after the last, before the directory's fsync.
  std::function<void(size_t renamed)> at_rename;
};
void write_dir_atomic(const std::string& dir, std::span<const DirFile> files,
                      std::span<const std::string> remove = {}, const CommitHooks& hooks = {});
// One file through write_dir_atomic, into its parent directory; Error if `path` is a directory.
void write_file_atomic(const std::string& path, std::span<const uint8_t> bytes);
// Fails before any work whose result would be written to `dir` could not be: creates and removes a file in
// `dir`, or if it does not exist yet in its nearest existing ancestor (where saving would create it; nothing
// is left behind either way). Error "cannot write to <what> 'DIR': Permission denied" (or why not).
void require_writable_dir(const std::string& dir, const char* what);

// A training checkpoint as one commit: `extra` files first (tokenizer files), then config.json,
// optimizer.safetensors (with the weights' fingerprint; without `optimizer`, a stale one is removed instead)
// and model.safetensors last, whose metadata records `weights_step`. F32, in `naming`'s layout.
void save_training_checkpoint(const std::string& dir, const GPTModel& model, const CheckpointNaming& naming,
                              int64_t weights_step, const AdamW* optimizer, std::span<const DirFile> extra = {},
                              const CommitHooks& hooks = {});
#endif

}  // namespace blockscope
