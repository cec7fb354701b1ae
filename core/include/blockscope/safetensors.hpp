// Hugging Face safetensors: a validating reader over a byte span (wasm passes fetched bytes) and an F32
// writer. It knows nothing of models; checkpoint.hpp maps tensor names onto a GPTModel.
// Format (github.com/huggingface/safetensors): u64 little-endian header length N, N bytes of JSON
// {name: {"dtype", "shape", "data_offsets": [begin, end]}, "__metadata__": {str: str}}, then the data buffer.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockscope/tensor.hpp"

namespace blockscope {

// The spec's fixed-size dtypes, in its order. F8_* are parsed (for sizes) but not converted.
enum class Dtype : uint8_t { Bool, U8, I8, F8_E5M2, F8_E4M3, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };
const char* dtype_name(Dtype d);  // "F32", as written in headers
int64_t dtype_size(Dtype d);      // bytes per element
// True for the dtypes SafetensorsFile::read_float32 converts: F32, F16, BF16, F64.
bool dtype_is_float(Dtype d);

// IEEE 754 binary16 / bfloat16 bit patterns -> float32, exactly (subnormals, +-inf and NaN included).
float half_to_float(uint16_t bits);
float bfloat16_to_float(uint16_t bits);
// float32 -> binary16 / bfloat16, rounding to nearest, ties to even, as PyTorch converts (binary16 overflows
// to +-inf from 65520 on). NaN stays a (quiet) NaN.
uint16_t float_to_half(float x);
uint16_t float_to_bfloat16(float x);

// The reference implementation's guard against huge JSON headers (100 MB).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

struct SafetensorsEntry {
  std::string name;
  Dtype dtype = Dtype::F32;
  Shape shape;
  int64_t numel = 0;
  uint64_t begin = 0, end = 0;  // byte range in the data buffer, [begin, end)
};

// A parsed, fully validated file. It views the caller's bytes, which must outlive it.
// Validation (each failure throws Error naming the tensor): at least 8 bytes; header length <= 100 MB and
// within the file; the header is one JSON object (duplicate keys anywhere rejected, nesting deeper than a
// header needs rejected); every entry has exactly "dtype" (a known name), "shape" (non-negative integers,
// element count without int64 overflow) and "data_offsets" ([begin, end], begin <= end <= buffer size,
// end - begin == numel * dtype size); "__metadata__", if present, maps strings to strings. The ranges must
// tile the data buffer exactly, as in the reference implementation: no overlap, no hole, no trailing byte.
// Alignment is NOT required (the reference writer does not guarantee it for mixed dtypes): values are
// read with memcpy, never through a cast pointer.
class SafetensorsFile {
 public:
  static SafetensorsFile parse(std::span<const uint8_t> bytes);
  // The header length N from a file's first 8 bytes, checked against the limit and the file's size (a
  // streaming reader needs it before the rest arrives). Throws Error like parse.
  static uint64_t header_length(std::span<const uint8_t> first8, uint64_t file_size);
  // Only the header: `head` holds the file's first 8 + N bytes (more are ignored) of a `file_size`-byte file.
  // Validated exactly as parse does, against a data buffer of file_size - 8 - N bytes, which is not there:
  // raw(), read_float32() and tensor() then throw. For loaders that stream the data (ModelStreamLoader).
  static SafetensorsFile parse_header(std::span<const uint8_t> head, uint64_t file_size);
  // The result views the bytes: parsing a temporary buffer would leave it dangling.
  static SafetensorsFile parse(std::vector<uint8_t>&& bytes) = delete;

  const std::vector<SafetensorsEntry>& entries() const { return entries_; }  // sorted by name
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const SafetensorsEntry* find(std::string_view name) const;
  // The entry called `name`; throws Error naming it if absent.
  const SafetensorsEntry& at(std::string_view name) const;
  // The entry's raw little-endian bytes.
  std::span<const uint8_t> raw(const SafetensorsEntry& e) const;

  // Converts the entry to float32 into `out` (size numel). Throws Error naming the tensor if its dtype is
  // not F32/F16/BF16/F64 or `out` has the wrong size. F64 values outside float range become +-inf.
  void read_float32(const SafetensorsEntry& e, std::span<float> out) const;
  Tensor tensor(std::string_view name) const;

 private:
  std::span<const uint8_t> data_;  // the data buffer (after the header)
  bool has_data_ = true;           // false for parse_header's result
  std::vector<SafetensorsEntry> entries_;
  std::map<std::string, std::string> metadata_;
};

// Converts n = out.size() values of a float dtype (F32, F16, BF16, F64; little-endian, any alignment) from
// `src` (n x dtype_size bytes) to float32. Throws Error for another dtype or a size mismatch.
void convert_to_float32(Dtype dtype, std::span<const uint8_t> src, std::span<float> out);

// A named float32 tensor to write; `data` is viewed, not copied, until write_safetensors returns.
struct SafetensorsTensorRef {
  std::string name;
  Shape shape;
  std::span<const float> data;
};

// Serializes the tensors, sorted by name and packed back to back, after a header padded with spaces to a
// multiple of 8 bytes (so every tensor starts 8-byte aligned in the file, like the reference writer).
// `storage` is F32 (the values as they are), F16 or BF16 (each value rounded to nearest, ties to even, as
// torch's .half() / .bfloat16() do: half the bytes). Throws Error on a duplicate or reserved ("__metadata__")
// name, a shape that does not match the data size, another storage dtype, or a finite value F16 cannot hold
// (|x| >= 65520 would become infinity: store as BF16 or F32 instead).
std::vector<uint8_t> write_safetensors(std::span<const SafetensorsTensorRef> tensors,
                                       const std::map<std::string, std::string>& metadata = {},
                                       Dtype storage = Dtype::F32);

}  // namespace blockscope
