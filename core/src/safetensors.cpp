// safetensors: header parsing and validation, dtype conversion to float32, and the F32 writer.
// No model knowledge here; checkpoint.cpp maps tensor names onto a GPTModel.
#include "blockscope/safetensors.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>
#include <nlohmann/json.hpp>

#include "blockscope/error.hpp"
#include "json_reader.hpp"

namespace blockscope {

// Values are copied out with memcpy as little-endian; both targets (x86-64, wasm32) are little-endian.
static_assert(std::endian::native == std::endian::little, "safetensors reading assumes a little-endian host");

namespace {
using json = nlohmann::json;

struct DtypeInfo {
  Dtype dtype;
  const char* name;
  int64_t size;
};
constexpr DtypeInfo kDtypes[] = {  // indexed by Dtype
    {Dtype::Bool, "BOOL", 1},       {Dtype::U8, "U8", 1},   {Dtype::I8, "I8", 1},   {Dtype::F8_E5M2, "F8_E5M2", 1},
    {Dtype::F8_E4M3, "F8_E4M3", 1}, {Dtype::I16, "I16", 2}, {Dtype::U16, "U16", 2}, {Dtype::F16, "F16", 2},
    {Dtype::BF16, "BF16", 2},       {Dtype::I32, "I32", 4}, {Dtype::U32, "U32", 4}, {Dtype::F32, "F32", 4},
    {Dtype::F64, "F64", 8},         {Dtype::I64, "I64", 8}, {Dtype::U64, "U64", 8},
};

constexpr bool table_matches_enum() {
  for (size_t i = 0; i < std::size(kDtypes); ++i)
    if (static_cast<size_t>(kDtypes[i].dtype) != i) return false;
  return std::size(kDtypes) == static_cast<size_t>(Dtype::U64) + 1;
}
static_assert(table_matches_enum(), "kDtypes must list every Dtype in enum order");

const DtypeInfo& info(Dtype d) { return kDtypes[static_cast<size_t>(d)]; }

const std::string kMetadataKey = "__metadata__";
}  // namespace

const char* dtype_name(Dtype d) { return info(d).name; }
int64_t dtype_size(Dtype d) { return info(d).size; }
bool dtype_is_float(Dtype d) { return d == Dtype::F32 || d == Dtype::F16 || d == Dtype::BF16 || d == Dtype::F64; }

// std::bit_cast is missing from Emscripten 3.1.6's libc++; memcpy is the portable equivalent.
uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu;
  const uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // +-inf, or NaN keeping its payload
  } else if (exponent != 0) {
    bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);  // normal: rebias the exponent
  } else {
    // +-0 or subnormal: mantissa * 2^-24, exact in float32 (a power-of-two scaling of a 10-bit integer).
    bits = sign | bits_of(static_cast<float>(mantissa) * 0x1p-24f);
  }
  return float_of(bits);
}

// bfloat16 is the top half of a float32.
float bfloat16_to_float(uint16_t b) { return float_of(static_cast<uint32_t>(b) << 16); }

uint16_t float_to_half(float x) {
  const uint32_t u = bits_of(x);
  const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));  // NaN, quiet
  if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520 (or inf) rounds to inf
  if (a < 0x38800000u) {
    // Below 2^-14, half's smallest normal: a subnormal k * 2^-24. x * 2^24 is exact (a power-of-two scaling)
    // and nearbyint rounds it to the nearest integer, ties to even (the default rounding mode); k = 1024
    // is the smallest normal's encoding, which is right.
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::nearbyint(float_of(a) * 0x1p24f)));
  }
  // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits, rounding to nearest even; a carry out
  // of the mantissa correctly bumps the exponent (at most to 0x7bff here, given the range check above).
  const uint32_t rebased = a - 0x38000000u;
  return static_cast<uint16_t>(sign | ((rebased + 0x0fffu + ((rebased >> 13) & 1u)) >> 13));
}

uint16_t float_to_bfloat16(float x) {
  const uint32_t u = bits_of(x);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);  // NaN, quiet
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// ---------------------------------------------------------------------------------------------------------
// Header JSON: the core's parse_json, rejecting duplicate keys (the spec disallows them) and nesting deeper
// than a header needs (root > entry > shape array).
// ---------------------------------------------------------------------------------------------------------
namespace {
using detail::short_dump;

json parse_header_json(std::string_view text) {
  return detail::parse_json(text, "safetensors header", {3, "a header can", "tensor name"});
}

uint64_t json_u64(const json& v, const std::string& name, const char* what) {
  require(v.is_number_unsigned(), "safetensors: tensor '", name, "' ", what, " must be non-negative integers, got ",
          short_dump(v));
  return v.get<uint64_t>();
}

Dtype parse_dtype(const json& v, const std::string& name) {
  require(v.is_string(), "safetensors: tensor '", name, "' dtype must be a string, got ", short_dump(v));
  const auto& s = v.get_ref<const std::string&>();
  for (const auto& d : kDtypes)
    if (s == d.name) return d.dtype;
  throw Error(detail::concat("safetensors: tensor '", name, "' has unknown dtype '", s,
                             "' (known: BOOL, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, "
                             "I64, U64)"));
}

// Fills shape and numel; rejects negative, non-integer and overflowing dimensions.
void parse_shape(const json& v, SafetensorsEntry& e) {
  require(v.is_array(), "safetensors: tensor '", e.name, "' shape must be an array, got ", short_dump(v));
  e.numel = 1;
  for (const auto& d : v) {
    require(!(d.is_number_integer() && !d.is_number_unsigned()), "safetensors: tensor '", e.name,
            "' has a negative dimension in shape ", short_dump(v));
    const uint64_t dim = json_u64(d, e.name, "shape dimensions");
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    require(dim <= kMax && (dim == 0 || static_cast<uint64_t>(e.numel) <= kMax / dim), "safetensors: tensor '",
            e.name, "' shape ", short_dump(v), " has more elements than fit in int64");
    e.shape.push_back(static_cast<int64_t>(dim));
    e.numel *= static_cast<int64_t>(dim);
  }
  require(e.numel <= std::numeric_limits<int64_t>::max() / dtype_size(e.dtype), "safetensors: tensor '", e.name,
          "' shape ", short_dump(v), " has more bytes than fit in int64");
}

void parse_offsets(const json& v, SafetensorsEntry& e, uint64_t buffer_size) {
  require(v.is_array() && v.size() == 2, "safetensors: tensor '", e.name,
          "' data_offsets must be [begin, end], got ", short_dump(v));
  e.begin = json_u64(v[0], e.name, "data_offsets");
  e.end = json_u64(v[1], e.name, "data_offsets");
  require(e.begin <= e.end, "safetensors: tensor '", e.name, "' data_offsets [", e.begin, ", ", e.end,
          ") are reversed (begin > end)");
  require(e.end <= buffer_size, "safetensors: tensor '", e.name, "' data_offsets [", e.begin, ", ", e.end,
          ") run past the end of the ", buffer_size, "-byte data buffer");
  const uint64_t expected = static_cast<uint64_t>(e.numel * dtype_size(e.dtype));
  require(e.end - e.begin == expected, "safetensors: tensor '", e.name, "' is ", dtype_name(e.dtype), " ",
          shape_str(e.shape), " = ", expected, " bytes, but data_offsets [", e.begin, ", ", e.end, ") hold ",
          e.end - e.begin);
}

SafetensorsEntry parse_entry(const std::string& name, const json& v, uint64_t buffer_size) {
  require(v.is_object(), "safetensors: tensor '", name, "' must be an object with dtype, shape and data_offsets, "
          "got ", v.type_name());
  for (const auto& [key, value] : v.items())
    require(key == "dtype" || key == "shape" || key == "data_offsets", "safetensors: tensor '", name,
            "' has the unknown field '", detail::excerpt(key), "' (expected dtype, shape, data_offsets)");
  for (const char* key : {"dtype", "shape", "data_offsets"})
    require(v.contains(key), "safetensors: tensor '", name, "' is missing '", key, "'");
  SafetensorsEntry e;
  e.name = name;
  e.dtype = parse_dtype(v["dtype"], name);
  parse_shape(v["shape"], e);
  parse_offsets(v["data_offsets"], e, buffer_size);
  return e;
}

std::map<std::string, std::string> parse_metadata(const json& v) {
  require(v.is_object(), "safetensors: __metadata__ must be an object of strings, got ", v.type_name());
  std::map<std::string, std::string> m;
  for (const auto& [key, value] : v.items()) {
    require(value.is_string(), "safetensors: __metadata__ value '", detail::excerpt(key),
            "' must be a string, got ", short_dump(value));
    m.emplace(key, value.get<std::string>());
  }
  return m;
}

// The ranges must tile [0, buffer_size) exactly (the reference implementation's rule): sorted by begin, each
// starts where the previous one ended. Empty tensors occupy no bytes but still may not sit inside another.
void check_tiling(const std::vector<SafetensorsEntry>& entries, uint64_t buffer_size) {
  std::vector<const SafetensorsEntry*> order;
  for (const auto& e : entries) order.push_back(&e);
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t cursor = 0;
  const SafetensorsEntry* prev = nullptr;
  for (const auto* e : order) {
    require(e->begin >= cursor, "safetensors: tensors '", prev ? prev->name : "", "' [", prev ? prev->begin : 0,
            ", ", prev ? prev->end : 0, ") and '", e->name, "' [", e->begin, ", ", e->end,
            ") overlap in the data buffer");
    require(e->begin == cursor, "safetensors: bytes [", cursor, ", ", e->begin,
            ") of the data buffer belong to no tensor (a hole before '", e->name, "')");
    cursor = e->end;
    prev = e;
  }
  require(cursor == buffer_size, "safetensors: the data buffer has ", buffer_size - cursor,
          " bytes after the last tensor", prev ? " ('" + prev->name + "')" : std::string(),
          "; tensors must cover it exactly");
}

uint64_t read_header_length(std::span<const uint8_t> bytes, uint64_t file_size) {
  require(bytes.size() >= 8 && file_size >= 8, "safetensors file is ", std::min<uint64_t>(bytes.size(), file_size),
          " bytes; it needs at least 8 for the header length");
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  require(n <= kMaxSafetensorsHeaderBytes, "safetensors header length ", n, " exceeds the limit of ",
          kMaxSafetensorsHeaderBytes, " bytes");
  require(n <= file_size - 8, "safetensors header length ", n, " runs past the end of the ", file_size,
          "-byte file");
  return n;
}

// Parses the header text (bytes 8 .. 8 + header_len), checking entries against a data buffer of data_size
// bytes.
void parse_header_into(std::span<const uint8_t> bytes, uint64_t header_len, uint64_t data_size,
                       std::map<std::string, std::string>& metadata, std::vector<SafetensorsEntry>& entries) {
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + 8), static_cast<size_t>(header_len));
  const json header = parse_header_json(text);
  require(header.is_object(), "safetensors header must be a JSON object, got ", header.type_name());
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey)
      metadata = parse_metadata(value);
    else
      entries.push_back(parse_entry(key, value, data_size));  // json objects iterate sorted by key
  }
  check_tiling(entries, data_size);
}
}  // namespace

uint64_t SafetensorsFile::header_length(std::span<const uint8_t> first8, uint64_t file_size) {
  return read_header_length(first8, file_size);
}

SafetensorsFile SafetensorsFile::parse(std::span<const uint8_t> bytes) {
  const uint64_t header_len = read_header_length(bytes, bytes.size());
  SafetensorsFile f;
  f.data_ = bytes.subspan(static_cast<size_t>(8 + header_len));
  parse_header_into(bytes, header_len, f.data_.size(), f.metadata_, f.entries_);
  return f;
}

SafetensorsFile SafetensorsFile::parse_header(std::span<const uint8_t> head, uint64_t file_size) {
  const uint64_t header_len = read_header_length(head, file_size);
  require(head.size() - 8 >= header_len, "internal: parse_header needs the whole ", header_len, "-byte header, got ",
          head.size() - 8, " bytes of it");
  SafetensorsFile f;
  f.has_data_ = false;
  parse_header_into(head, header_len, file_size - 8 - header_len, f.metadata_, f.entries_);
  return f;
}

const SafetensorsEntry* SafetensorsFile::find(std::string_view name) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                   [](const SafetensorsEntry& e, std::string_view n) { return e.name < n; });
  return it != entries_.end() && it->name == name ? &*it : nullptr;
}

const SafetensorsEntry& SafetensorsFile::at(std::string_view name) const {
  const SafetensorsEntry* e = find(name);
  require(e != nullptr, "safetensors file has no tensor '", name, "'");
  return *e;
}

std::span<const uint8_t> SafetensorsFile::raw(const SafetensorsEntry& e) const {
  require(has_data_, "internal: tensor '", e.name, "' read from a header-only safetensors file");
  return data_.subspan(static_cast<size_t>(e.begin), static_cast<size_t>(e.end - e.begin));
}

namespace {
template <typename Bits, typename Convert>
void convert_each(std::span<const uint8_t> src, std::span<float> out, Convert convert) {
  for (size_t i = 0; i < out.size(); ++i) {
    Bits b;
    std::memcpy(&b, src.data() + i * sizeof(Bits), sizeof(Bits));
    out[i] = convert(b);
  }
}

float f64_to_f32(double d) {
  // Out-of-range double -> float conversion is undefined behaviour in C++; saturate to +-inf instead.
  if (d > FLT_MAX) return std::numeric_limits<float>::infinity();
  if (d < -FLT_MAX) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(d);
}
}  // namespace

void convert_to_float32(Dtype dtype, std::span<const uint8_t> src, std::span<float> out) {
  require(dtype_is_float(dtype), "safetensors: dtype ", dtype_name(dtype), " does not convert to float32; only F32, "
          "F16, BF16 and F64 do");
  require(src.size() == out.size() * static_cast<size_t>(dtype_size(dtype)), "internal: converting ", src.size(),
          " bytes of ", dtype_name(dtype), " into ", out.size(), " floats");
  if (src.empty()) return;  // memcpy with a null pointer would be undefined
  switch (dtype) {
    case Dtype::F32: std::memcpy(out.data(), src.data(), src.size()); return;
    case Dtype::F16: convert_each<uint16_t>(src, out, half_to_float); return;
    case Dtype::BF16: convert_each<uint16_t>(src, out, bfloat16_to_float); return;
    case Dtype::F64: convert_each<double>(src, out, f64_to_f32); return;
    default: return;  // unreachable: dtype_is_float
  }
}

void SafetensorsFile::read_float32(const SafetensorsEntry& e, std::span<float> out) const {
  require(static_cast<int64_t>(out.size()) == e.numel, "safetensors: tensor '", e.name, "' has ", e.numel,
          " elements, the destination ", out.size());
  require(dtype_is_float(e.dtype), "safetensors: tensor '", e.name, "' has dtype ", dtype_name(e.dtype),
          "; only F32, F16, BF16 and F64 convert to float32");
  convert_to_float32(e.dtype, raw(e), out);
}

Tensor SafetensorsFile::tensor(std::string_view name) const {
  const SafetensorsEntry& e = at(name);
  Tensor t(e.shape);
  read_float32(e, t.data);
  return t;
}

// ---------------------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------------------
namespace {
std::vector<const SafetensorsTensorRef*> sorted_checked(std::span<const SafetensorsTensorRef> tensors) {
  std::vector<const SafetensorsTensorRef*> order;
  for (const auto& t : tensors) {
    require(t.name != kMetadataKey, "safetensors: '__metadata__' is reserved and cannot name a tensor");
    require(shape_numel(t.shape) == static_cast<int64_t>(t.data.size()), "safetensors: tensor '", t.name,
            "' has shape ", shape_str(t.shape), " but ", t.data.size(), " values");
    order.push_back(&t);
  }
  std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
  for (size_t i = 1; i < order.size(); ++i)
    require(order[i]->name != order[i - 1]->name, "safetensors: tensor name '", order[i]->name, "' appears twice");
  return order;
}

std::string header_text(const std::vector<const SafetensorsTensorRef*>& order,
                        const std::map<std::string, std::string>& metadata, Dtype storage, uint64_t* buffer_size) {
  json header = json::object();
  if (!metadata.empty()) header[kMetadataKey] = metadata;
  uint64_t offset = 0;
  for (const auto* t : order) {
    const uint64_t bytes = t->data.size() * static_cast<uint64_t>(dtype_size(storage));
    header[t->name] = {{"dtype", dtype_name(storage)}, {"shape", t->shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  *buffer_size = offset;
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception& e) {  // e.g. a name that is not valid UTF-8
    throw Error(detail::concat("safetensors: cannot write the header: ", e.what()));
  }
  text.append((8 - text.size() % 8) % 8, ' ');  // pad so the data buffer starts 8-byte aligned
  return text;
}
// Writes t's values at p as 16-bit `convert(x)` little-endian words; returns the end.
template <typename Convert>
uint8_t* write_16bit(const SafetensorsTensorRef& t, uint8_t* p, Convert convert) {
  for (const float x : t.data) {
    const uint16_t v = convert(x);
    std::memcpy(p, &v, 2);  // the targets are little-endian (x86-64, wasm), as the format requires
    p += 2;
  }
  return p;
}

// F16 holds |x| < 65520; a finite value beyond would silently become infinity.
void check_half_range(const SafetensorsTensorRef& t) {
  for (size_t i = 0; i < t.data.size(); ++i) {
    const float x = t.data[i];
    require(!std::isfinite(x) || std::fabs(x) < 65520.0f, "safetensors: tensor '", t.name, "' holds ", x,
            " at index ", i, ", beyond F16's range (|x| <= 65504): store it as BF16 or F32");
  }
}
}  // namespace

std::vector<uint8_t> write_safetensors(std::span<const SafetensorsTensorRef> tensors,
                                       const std::map<std::string, std::string>& metadata, Dtype storage) {
  require(storage == Dtype::F32 || storage == Dtype::F16 || storage == Dtype::BF16,
          "safetensors: can write F32, F16 or BF16 tensors, not ", dtype_name(storage));
  const auto order = sorted_checked(tensors);
  if (storage == Dtype::F16)
    for (const auto* t : order) check_half_range(*t);
  uint64_t buffer_size = 0;
  const std::string text = header_text(order, metadata, storage, &buffer_size);
  std::vector<uint8_t> out(8 + text.size() + buffer_size);
  const uint64_t n = text.size();
  std::memcpy(out.data(), &n, 8);
  std::memcpy(out.data() + 8, text.data(), text.size());
  uint8_t* p = out.data() + 8 + text.size();
  for (const auto* t : order) {
    if (t->data.empty()) continue;  // memcpy from an empty span's null pointer is undefined
    if (storage == Dtype::F16) {
      p = write_16bit(*t, p, float_to_half);
    } else if (storage == Dtype::BF16) {
      p = write_16bit(*t, p, float_to_bfloat16);
    } else {
      std::memcpy(p, t->data.data(), t->data.size() * sizeof(float));
      p += t->data.size() * sizeof(float);
    }
  }
  return out;
}

}  // namespace blockscope
