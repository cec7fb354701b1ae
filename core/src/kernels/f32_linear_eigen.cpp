// The matrix products of linear_forward / linear_backward through Eigen, for builds without hand-written kernels
// for them (native: Eigen's products use the CPU's full vector width). Same contracts as f32_linear and
// f32_linear_backward; kernels/dispatch.cpp picks these or the SIMD128 kernels, so a wasm SIMD128 build links no
// Eigen product at all. Native builds compile this file with OpenMP: Eigen then splits large products over
// blockscope::threads() threads (threads.hpp; defined here, next to the only code that reads the setting).
#include <Eigen/Core>
#include <algorithm>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "blockscope/threads.hpp"
#include "kernels/dispatch.hpp"

namespace blockscope {

#ifdef _OPENMP
namespace {
// One thread until someone asks for more (Eigen's own default would be every core, for every caller).
[[maybe_unused]] const int kSingleThreadByDefault = (Eigen::setNbThreads(1), 1);
}  // namespace

int available_threads() { return std::max(1, omp_get_num_procs()); }
int set_threads(int count) {
  Eigen::setNbThreads(std::clamp(count, 1, available_threads()));
  return threads();
}
int threads() { return Eigen::nbThreads(); }
#else
int available_threads() { return 1; }
int set_threads(int) { return 1; }
int threads() { return 1; }
#endif

}  // namespace blockscope

namespace blockscope::kernels {

namespace {
using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatMap = Eigen::Map<RowMatrix>;
using ConstMatMap = Eigen::Map<const RowMatrix>;
}  // namespace

void f32_linear__eigen(float* out, const float* inp, const float* weight, const float* bias, int64_t N, int64_t C,
                       int64_t OC) {
  MatMap y(out, N, OC);
  const ConstMatMap x(inp, N, C);
  const ConstMatMap w(weight, OC, C);
  y.noalias() = x * w.transpose();
  if (bias) y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, OC);
}

void f32_linear_backward__eigen(float* dinp, float* dweight, float* dbias, const float* dout, const float* inp,
                                const float* weight, int64_t N, int64_t C, int64_t OC) {
  const ConstMatMap dy(dout, N, OC);
  if (dinp) MatMap(dinp, N, C).noalias() += dy * ConstMatMap(weight, OC, C);
  if (dweight) MatMap(dweight, OC, C).noalias() += dy.transpose() * ConstMatMap(inp, N, C);
  if (dbias) Eigen::Map<Eigen::RowVectorXf>(dbias, OC) += dy.colwise().sum();
}

}  // namespace blockscope::kernels
