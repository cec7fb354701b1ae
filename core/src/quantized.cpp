// Weight formats and Q8Matrix: storage, quantization of arriving rows, and the forward product through the
// int8 kernels (SIMD128 in the wasm SIMD build, the generic twin elsewhere).
#include "blockscope/quantized.hpp"

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"
#include "kernels/dispatch.hpp"

namespace blockscope {

WeightFormat parse_weight_format(std::string_view name) {
  if (name == "f32") return WeightFormat::F32;
  if (name == "int8") return WeightFormat::Int8;
  throw Error(detail::concat("unknown weight format '", name, "': expected 'f32' or 'int8'"));
}

const char* weight_format_name(WeightFormat format) { return format == WeightFormat::Int8 ? "int8" : "f32"; }

Q8Matrix::Q8Matrix(int64_t rows, int64_t cols) : rows_(rows), cols_(cols), groups_((cols + kQ8Group - 1) / kQ8Group) {
  require(rows >= 0 && cols >= 0, "an int8 matrix needs sizes >= 0, got ", rows, " x ", cols);
  const char* what = "the int8 matrix size";
  codes_.assign(to_size(checked_mul(rows, row_stride(), what), what), 0);
  scales_.assign(to_size(checked_mul(rows, groups_, what), what), 0.0f);
}

int64_t Q8Matrix::bytes() const {
  return static_cast<int64_t>(codes_.size() + scales_.size() * sizeof(float));
}

void Q8Matrix::set_rows(int64_t row0, int64_t nrows, const float* values) {
  require(row0 >= 0 && nrows >= 0 && row0 + nrows <= rows_, "rows [", row0, ", ", row0 + nrows,
          ") are outside an int8 matrix of ", rows_, " rows");
  for (int64_t r = 0; r < nrows; ++r)
    kernels::q8_quantize_row(codes_.data() + (row0 + r) * row_stride(), scales_.data() + (row0 + r) * groups_,
                             values + r * cols_, cols_);
}

void Q8Matrix::dequantize_row(int64_t r, float* out) const {
  kernels::q8_dequantize_rows(out, codes_.data(), scales_.data(), r, 1, groups_, cols_);
}

void Q8Matrix::linear_forward(float* out, const float* inp, const float* bias, int64_t N) const {
  kernels::q8_linear(kernels::active().q8_gemv, out, inp, codes_.data(), scales_.data(), bias, N, cols_, rows_);
}

}  // namespace blockscope
