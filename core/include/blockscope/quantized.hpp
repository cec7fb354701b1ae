// Int8 weights (inference only): the weight-format option and Q8Matrix, a (rows, cols) matrix stored as int8
// codes with one float32 scale per group of kQ8Group consecutive values of a row (llama.cpp's Q8_0 scheme).
// A model loaded with WeightFormat::Int8 keeps its Linear matrices and token embedding this way.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace blockscope {

enum class WeightFormat { F32, Int8 };

// "f32" / "int8"; anything else throws Error naming the value and the accepted names.
WeightFormat parse_weight_format(std::string_view name);
const char* weight_format_name(WeightFormat format);

// Values per scale, along a row (the input dimension of a Linear weight).
inline constexpr int64_t kQ8Group = 32;

// Each group g of row r: scale = max|w| / 127 (0 for an all-zero group), code = round(w / scale) in
// [-127, 127], so |w - code * scale| <= scale / 2. Rows are padded with zero codes to a whole number of
// groups (row_stride() bytes apart), so kernels never see a partial group.
class Q8Matrix {
 public:
  Q8Matrix() = default;
  // Zero codes and scales; throws Error for negative sizes or a size that overflows.
  Q8Matrix(int64_t rows, int64_t cols);

  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  int64_t groups() const { return groups_; }                  // scales per row
  int64_t row_stride() const { return groups_ * kQ8Group; }   // codes per row, padding included
  const int8_t* codes() const { return codes_.data(); }       // (rows, row_stride())
  const float* scales() const { return scales_.data(); }      // (rows, groups())
  // Bytes held: codes plus scales (1.125 bytes per value when cols is a multiple of 32).
  int64_t bytes() const;

  // Quantizes rows [row0, row0 + nrows) from float32 values (nrows, cols).
  void set_rows(int64_t row0, int64_t nrows, const float* values);
  // The float32 values code * scale of row r, (cols).
  void dequantize_row(int64_t r, float* out) const;

  // out (N, rows) = inp (N, cols) @ dequantized^T + bias (rows, or null). One input row (decoding) takes an
  // int8 x int8 GEMV with the input quantized per group like the weights; more rows dequantize 64-row
  // panels and take the float32 GEMM.
  void linear_forward(float* out, const float* inp, const float* bias, int64_t N) const;

 private:
  int64_t rows_ = 0, cols_ = 0, groups_ = 0;
  std::vector<int8_t> codes_;
  std::vector<float> scales_;
};

}  // namespace blockscope
