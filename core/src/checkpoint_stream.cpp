// ModelStreamLoader: a checkpoint's model.safetensors read front to back, in chunks of any size, straight
// into the model's parameters. The file itself is never held: in wasm, where memory only ever grows, holding
// it next to the parameters would leave memory at twice the weights for good. What stays in memory besides
// the parameters: the header, a carry of at most one value split between two chunks, a batch of converted
// rows, and — only for a tensor that must be rearranged (a GPT-2 Conv1D weight is transposed, the fused
// c_attn split into Q, K and V) — that one tensor staged in float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "blockscope/checkpoint.hpp"
#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "checkpoint_plan.hpp"

namespace blockscope {

using namespace ckpt;

namespace {
uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}
uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? std::numeric_limits<uint64_t>::max() : r;
}

// Floats converted per batch: rows are handed to the model a batch at a time (256 KiB of floats).
constexpr int64_t kBatchFloats = 64 * 1024;

// FNV-1a over a row's float bits (+0 and -0 alike): compares the two copies of a tied embedding when the
// first one cannot be read back as float32 from the model.
uint64_t row_hash(const float* v, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t b = 0;
    const float x = v[i] == 0.0f ? 0.0f : v[i];
    std::memcpy(&b, &x, 4);
    h = (h ^ b) * 1099511628211ull;
  }
  return h;
}
}  // namespace

uint64_t max_safetensors_bytes(const GPTConfig& cfg) {
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v < 0 ? 0 : v); };
  const uint64_t C = u(cfg.emb_dim), V = u(cfg.vocab_size), T = u(cfg.context_length), L = u(cfg.n_layers);
  uint64_t values = u(GPTModel::count_parameters(cfg));
  values = sat_add(values, sat_mul(V, C));  // a tied head's stored copy, or an untied one counted twice
  values = sat_add(values, sat_mul(L, sat_add(sat_mul(2, sat_mul(T, T)), sat_mul(4, C) + 2)));  // masks, biases
  return sat_add(sat_mul(values, 8), 8 + kMaxSafetensorsHeaderBytes);
}

void require_safetensors_size(const GPTConfig& cfg, uint64_t file_size) {
  const uint64_t limit = max_safetensors_bytes(cfg);
  require(file_size <= limit, "model.safetensors is ", bytes_str(static_cast<double>(file_size)), " (", file_size,
          " bytes), more than any checkpoint of this config (", GPTModel::count_parameters(cfg),
          " parameters) can be; the limit is ", bytes_str(static_cast<double>(limit)), " (", limit, " bytes)");
}

struct ModelStreamLoader::Impl {
  enum class Phase { Length, Header, Data, Failed, Finished };
  // What happens to one file tensor's values as they arrive.
  enum class Kind {
    Skip,     // a causal-mask buffer
    Rows,     // one parameter in the same layout: converted rows go straight to the model
    Stage,    // rearranged into its parameters once complete
    Compare,  // the second copy of a tied embedding: checked against the first
  };

  GPTConfig cfg;
  LoadOptions opts;
  uint64_t file_size = 0;
  uint64_t received = 0;
  Phase phase = Phase::Length;
  std::vector<uint8_t> header;  // the first 8 + N bytes
  uint64_t header_len = 0;

  std::optional<SafetensorsFile> file;  // header only
  Plan plan;
  CheckpointNaming naming;
  std::optional<GPTModel> model;
  std::vector<const SafetensorsEntry*> order;  // by data offset
  std::map<std::string, const FileTensor*> planned;

  // The tensor being received.
  size_t cur = 0;                   // index into order
  const SafetensorsEntry* entry = nullptr;
  const FileTensor* ft = nullptr;   // its plan (null for Skip and the tied copy)
  Kind kind = Kind::Skip;
  uint64_t entry_bytes = 0;         // bytes of it received
  int64_t done_values = 0;          // values of it converted
  uint8_t carry[8] = {};            // a value split between chunks
  size_t carry_len = 0;
  std::vector<float> batch;         // converted values not yet handed on (Rows, Compare)
  std::vector<float> staged;        // the whole tensor (Stage)

  // The tied embedding: the first of its two copies to arrive is loaded, the second compared with it.
  bool tied_seen = false;
  std::vector<uint64_t> tied_rows;  // row hashes of the first copy when it cannot be read back as float32

  Impl(const GPTConfig& c, uint64_t size, const LoadOptions& o) : cfg(c), opts(o), file_size(size) {
    check_parameter_budget(cfg, opts);
    require_safetensors_size(cfg, file_size);
    require(file_size >= 8, "safetensors file is ", file_size, " bytes; it needs at least 8 for the header length");
  }

  void write(std::span<const uint8_t> bytes) {
    require(phase != Phase::Failed, "the checkpoint stream already failed; start a new load");
    require(phase != Phase::Finished, "the checkpoint stream is finished");
    require(bytes.size() <= file_size - received, "received more than the announced ", file_size, " bytes");
    try {
      while (!bytes.empty()) bytes = step(bytes);
    } catch (...) {
      phase = Phase::Failed;
      model.reset();  // give the memory back at once
      throw;
    }
  }

  // Consumes a prefix of `bytes`; returns the rest.
  std::span<const uint8_t> step(std::span<const uint8_t> bytes) {
    if (phase == Phase::Length || phase == Phase::Header) {
      const size_t want = phase == Phase::Length ? 8 - header.size() : 8 + header_len - header.size();
      const size_t n = std::min(want, bytes.size());
      header.insert(header.end(), bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      received += n;
      if (phase == Phase::Length && header.size() == 8) {
        header_len = SafetensorsFile::header_length(header, file_size);
        header.reserve(static_cast<size_t>(8 + header_len));
        phase = Phase::Header;
      }
      if (phase == Phase::Header && header.size() == 8 + header_len) start_data();
      return bytes.subspan(n);
    }
    // Data: a tensor's bytes.
    require(cur < order.size(), "internal: checkpoint bytes after the last tensor");
    const uint64_t left = entry->end - entry->begin - entry_bytes;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left, bytes.size()));
    consume(bytes.first(n));
    entry_bytes += n;
    received += n;
    if (entry_bytes == entry->end - entry->begin) finish_entry();
    return bytes.subspan(n);
  }

  // The header is complete: check everything a header can tell, then allocate the model (the only large
  // allocation, after every check).
  void start_data() { start_data(SafetensorsFile::parse_header(header, file_size)); }
  void start_data(SafetensorsFile parsed) {
    file = std::move(parsed);
    plan = load_plan(cfg, *file);
    check_present(*file, plan);
    check_no_unexpected(*file, plan, cfg);
    naming = checkpoint_naming(*file);
    // The platform's budget for what the model does next, or more if the caller allowed larger weights.
    const MemoryBudget budget{std::max(MemoryBudget::kDefaultBytes, opts.max_parameter_bytes)};
    model.emplace(cfg, GPTModel::Uninitialized{}, budget, opts.weights);
    check_plan_covers(plan, model->params());
    for (const auto& t : plan.tensors) planned[t.name] = &t;
    for (const auto& e : file->entries()) order.push_back(&e);
    std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
    header.clear();
    header.shrink_to_fit();
    phase = Phase::Data;
    cur = 0;
    begin_entry();
  }

  // Sets up the tensor at `cur` (finishing empty ones at once).
  void begin_entry() {
    if (cur == order.size()) return;
    entry = order[cur];
    entry_bytes = 0;
    done_values = 0;
    carry_len = 0;
    const auto it = planned.find(entry->name);
    ft = it == planned.end() ? nullptr : it->second;
    const bool tied = !plan.tied_copy.empty() && (entry->name == plan.tied_copy || entry->name == plan.tied_source);
    if (tied && tied_seen) {
      kind = Kind::Compare;
    } else if (tied) {
      // Whichever copy arrives first is loaded as the embedding; the other is compared with it.
      tied_seen = true;
      ft = planned.at(plan.tied_source);
      kind = Kind::Rows;
    } else if (!ft) {
      kind = Kind::Skip;
    } else if (ft->dests.size() == 1 && ft->dests[0].op == Op::Copy) {
      kind = Kind::Rows;
    } else {
      kind = Kind::Stage;
      staged.assign(static_cast<size_t>(entry->numel), 0.0f);
    }
    if (entry->end == entry->begin) finish_entry();
  }

  // Converts whole values of `bytes` (after any carried partial value) and hands them on.
  void consume(std::span<const uint8_t> bytes) {
    if (kind == Kind::Skip) return;
    const size_t w = static_cast<size_t>(dtype_size(entry->dtype));
    if (carry_len) {
      const size_t n = std::min(w - carry_len, bytes.size());
      std::memcpy(carry + carry_len, bytes.data(), n);
      carry_len += n;
      bytes = bytes.subspan(n);
      if (carry_len < w) return;
      convert({carry, w});
      carry_len = 0;
    }
    const size_t whole = bytes.size() / w * w;
    for (size_t off = 0; off < whole;) {  // in batches, so a 100 MB chunk needs no 400 MB buffer
      const size_t n = std::min(whole - off, static_cast<size_t>(kBatchFloats) * w);
      convert(bytes.subspan(off, n));
      off += n;
    }
    carry_len = bytes.size() - whole;
    std::memcpy(carry, bytes.data() + whole, carry_len);
  }

  void convert(std::span<const uint8_t> raw) {
    const int64_t n = static_cast<int64_t>(raw.size()) / dtype_size(entry->dtype);
    float* dst = nullptr;
    if (kind == Kind::Stage) {
      dst = staged.data() + done_values;
    } else {
      batch.resize(static_cast<size_t>(n));
      dst = batch.data();
    }
    convert_to_float32(entry->dtype, raw, {dst, static_cast<size_t>(n)});
    for (int64_t i = 0; i < n; ++i)
      require(std::isfinite(dst[i]), "tensor '", entry->name, "' contains a non-finite value (", dst[i],
              ") at flat index ", done_values + i);
    if (kind == Kind::Rows) deliver_rows(dst, n);
    if (kind == Kind::Compare) compare(dst, n);
    done_values += n;
  }

  // Values [done_values, done_values + n) of a same-layout tensor: the complete rows among them go to the
  // model; a row split between batches waits in `pending`.
  std::vector<float> pending;
  void deliver_rows(const float* v, int64_t n) {
    const Dest& d = ft->dests[0];
    const int64_t cols = d.shape.size() >= 2 ? d.shape.back() : std::max<int64_t>(1, shape_numel(d.shape));
    int64_t pos = done_values;
    while (n > 0) {
      if (!pending.empty() || pos % cols != 0 || n < cols) {
        const int64_t take = std::min(n, cols - static_cast<int64_t>(pending.size()));
        pending.insert(pending.end(), v, v + take);
        v += take, n -= take, pos += take;
        if (static_cast<int64_t>(pending.size()) == cols) {
          put_rows(d.param, pos / cols - 1, 1, pending.data(), cols);
          pending.clear();
        }
        continue;
      }
      const int64_t rows = n / cols;
      put_rows(d.param, pos / cols, rows, v, cols);
      v += rows * cols, n -= rows * cols, pos += rows * cols;
    }
  }

  void put_rows(const std::string& param, int64_t row0, int64_t nrows, const float* v, int64_t cols) {
    if (!plan.tied_copy.empty() && param == "tok_emb.weight" && !f32_values(param))
      for (int64_t r = 0; r < nrows; ++r) tied_rows.push_back(row_hash(v + r * cols, cols));
    write_param_rows(param, row0, nrows, v);
  }

  // The second copy of the tied embedding against the first: exactly, value by value, when the model keeps
  // it in float32; by row otherwise.
  void compare(const float* v, int64_t n) {
    const std::string& copy = plan.tied_copy;
    const std::string& source = plan.tied_source;
    if (const float* first = f32_values("tok_emb.weight")) {
      for (int64_t i = 0; i < n; ++i) {
        const int64_t at = done_values + i;
        if (v[i] == first[at]) continue;
        const bool copy_now = entry->name == copy;
        throw Error(detail::concat("tensor '", copy, "' differs from '", source, "' at flat index ", at, " (",
                                   copy_now ? v[i] : first[at], " vs ", copy_now ? first[at] : v[i],
                                   ") but the config ties them (",
                                   plan.layout == CheckpointLayout::Book ? "tie_weights is true"
                                                                         : "tie_word_embeddings is true or absent",
                                   ")"));
      }
      return;
    }
    const int64_t C = cfg.emb_dim;
    pending.insert(pending.end(), v, v + n);
    size_t used = 0;
    const int64_t start = done_values + n - static_cast<int64_t>(pending.size());  // flat index of pending[0]
    for (; pending.size() - used >= static_cast<size_t>(C); used += static_cast<size_t>(C)) {
      const int64_t row = (start + static_cast<int64_t>(used)) / C;
      require(row_hash(pending.data() + used, C) == tied_rows[static_cast<size_t>(row)], "tensor '", copy,
              "' differs from '", source, "' in row ", row, " but the config ties them");
    }
    pending.erase(pending.begin(), pending.begin() + static_cast<std::ptrdiff_t>(used));
  }

  void finish_entry() {
    if (kind == Kind::Stage) {
      for (const auto& d : ft->dests) {
        if ((d.op == Op::Transpose || d.op == Op::QkvWeight) && model->params().q8(d.param)) {
          put_transposed_rows(d);
          continue;
        }
        const Shape& s = d.shape;
        std::vector<float> values(static_cast<size_t>(shape_numel(s)));
        to_param(*ft, d, staged.data(), values.data());
        const int64_t cols = s.size() >= 2 ? s.back() : std::max<int64_t>(1, shape_numel(s));
        write_param_rows(d.param, 0, shape_numel(s) / cols, values.data());
      }
      staged.clear();
      staged.shrink_to_fit();
    }
    pending.clear();
    ++cur;
    begin_entry();
  }

  // A transposed (Conv1D) or Q/K/V-split destination stored as int8 takes the staged values a row at a time
  // (row o is column o of the file tensor, or of its part), so no second full-size float32 copy is made.
  void put_transposed_rows(const Dest& d) {
    const int64_t rows = d.shape[0], cols = d.shape[1], stride = ft->shape[1];
    const int64_t off = d.op == Op::QkvWeight ? d.part * rows : 0;
    std::vector<float> row(static_cast<size_t>(cols));
    for (int64_t o = 0; o < rows; ++o) {
      for (int64_t k = 0; k < cols; ++k) row[static_cast<size_t>(k)] = staged[static_cast<size_t>(k * stride + off + o)];
      write_param_rows(d.param, o, 1, row.data());
    }
  }

  // The one place values enter the model.
  void write_param_rows(const std::string& name, int64_t row0, int64_t nrows, const float* v) {
    if (Q8Matrix* q = model->params().q8(name)) return q->set_rows(row0, nrows, v);  // int8: quantized here
    const std::span<float> dst = model->params().get(name);
    const ParamInfo* p = model->params().find(name);
    const int64_t cols = p->shape.size() >= 2 ? p->shape.back() : std::max<int64_t>(1, p->numel);
    std::copy(v, v + nrows * cols, dst.data() + row0 * cols);
  }
  // The parameter's float32 values if the model keeps it in float32, else null.
  const float* f32_values(const std::string& name) {
    return model->params().q8(name) ? nullptr : model->params().get(name).data();
  }

  GPTModel finish() {
    require(phase != Phase::Failed, "the checkpoint stream failed; start a new load");
    require(phase != Phase::Finished, "the checkpoint stream is already finished");
    require(received == file_size && phase == Phase::Data && cur == order.size(), "received ", received, " of ",
            file_size, " bytes of model.safetensors");
    phase = Phase::Finished;
    GPTModel m = std::move(*model);
    model.reset();
    return m;
  }
};

ModelStreamLoader::ModelStreamLoader(const GPTConfig& cfg, uint64_t file_size, const LoadOptions& opts)
    : impl_(std::make_unique<Impl>(cfg, file_size, opts)) {}
ModelStreamLoader::~ModelStreamLoader() = default;
ModelStreamLoader::ModelStreamLoader(ModelStreamLoader&&) noexcept = default;
void ModelStreamLoader::write(std::span<const uint8_t> bytes) { impl_->write(bytes); }
uint64_t ModelStreamLoader::received() const { return impl_->received; }
uint64_t ModelStreamLoader::file_size() const { return impl_->file_size; }
bool ModelStreamLoader::header_parsed() const { return impl_->file.has_value(); }
const CheckpointNaming& ModelStreamLoader::naming() const {
  require(impl_->file.has_value(), "the checkpoint's header has not arrived yet");
  return impl_->naming;
}
const std::map<std::string, std::string>& ModelStreamLoader::metadata() const {
  require(impl_->file.has_value(), "the checkpoint's header has not arrived yet");
  return impl_->file->metadata();
}
GPTModel ModelStreamLoader::finish() { return impl_->finish(); }

GPTModel load_model(const GPTConfig& cfg, const SafetensorsFile& file, const LoadOptions& opts) {
  // An already parsed file: its tensors tile the data buffer, so fed in offset order they are the data.
  std::vector<const SafetensorsEntry*> order;
  uint64_t data_size = 0;
  for (const auto& e : file.entries()) {
    order.push_back(&e);
    data_size += e.end - e.begin;
  }
  std::sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->begin < b->begin; });
  ModelStreamLoader::Impl impl(cfg, std::max<uint64_t>(data_size, 8), opts);
  impl.file_size = data_size;
  impl.start_data(file);
  for (const auto* e : order) impl.write(file.raw(*e));
  return impl.finish();
}

GPTModel load_model(std::string_view config_json, std::span<const uint8_t> safetensors_bytes,
                    const LoadOptions& opts) {
  const GPTConfig cfg = read_config(config_json);
  check_parameter_budget(cfg, opts);  // before even parsing the tensors
  ModelStreamLoader loader(cfg, safetensors_bytes.size(), opts);
  loader.write(safetensors_bytes);
  return loader.finish();
}

}  // namespace blockscope
