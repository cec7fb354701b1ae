// ParamArena: one flat buffer, named slices.
#include "blockscope/param_arena.hpp"

#include <algorithm>
#include <cstring>

#include "blockscope/checked.hpp"
#include "blockscope/error.hpp"

namespace blockscope {

ParamArena::ParamArena(int64_t capacity) {
  require(capacity >= 0, "parameter arena capacity must be >= 0, got ", capacity);
  data_.assign(to_size(capacity, "the parameter arena's capacity"), 0.0f);
}

ParamArena ParamArena::zeros_like(const ParamArena& other) {
  ParamArena a(other.capacity());
  a.params_ = other.params_;
  a.index_ = other.index_;
  a.used_ = other.used_;
  return a;
}

float* ParamArena::take(const std::string& name, const Shape& shape) {
  require(find(name) == nullptr, "duplicate parameter name '", name, "'");
  const int64_t n = shape_numel(shape);
  require(n <= capacity() - used_, "parameter '", name, "' ", shape_str(shape), " does not fit: ", used_,
          " + ", n, " > capacity ", capacity());
  index_.emplace(name, params_.size());
  params_.push_back({name, shape, used_, n});
  float* p = data_.data() + used_;
  used_ += n;
  return p;
}

const ParamInfo* ParamArena::find(const std::string& name) const {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &params_[it->second];
}

std::span<float> ParamArena::get(const std::string& name) {
  const ParamInfo* p = find(name);
  require(p != nullptr, "no parameter named '", name, "'");
  return {data_.data() + p->offset, static_cast<size_t>(p->numel)};
}

std::span<const float> ParamArena::get(const std::string& name) const {
  const ParamInfo* p = find(name);
  require(p != nullptr, "no parameter named '", name, "'");
  return {data_.data() + p->offset, static_cast<size_t>(p->numel)};
}

void ParamArena::zero() { std::fill(data_.begin(), data_.end(), 0.0f); }

GradMap::GradMap(const ParamArena& params, ParamArena& grads) : params_(params.data()), grads_(grads.data()) {
  require(grads.capacity() == params.capacity() && grads.params().size() == params.params().size(),
          "gradient arena layout differs from the parameter arena (", grads.capacity(), " vs ", params.capacity(),
          " floats)");
}

void ParamArena::assign(const std::string& name, const Shape& shape, std::span<const float> values) {
  const ParamInfo* p = find(name);
  require(p != nullptr, "no parameter named '", name, "'");
  require(p->shape == shape, "parameter '", name, "' has shape ", shape_str(p->shape), ", got ", shape_str(shape));
  require(static_cast<int64_t>(values.size()) == p->numel, "parameter '", name, "' needs ", p->numel,
          " values, got ", values.size());
  std::copy(values.begin(), values.end(), data_.begin() + p->offset);
}

}  // namespace blockscope
