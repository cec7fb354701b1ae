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

ParamArena::ParamArena(int64_t capacity, Int8Predicate int8) : ParamArena(capacity) { int8_ = std::move(int8); }

ParamArena ParamArena::zeros_like(const ParamArena& other) {
  ParamArena a(other.capacity());
  a.params_ = other.params_;
  a.index_ = other.index_;
  a.used_ = other.used_;
  return a;
}

float* ParamArena::take(const std::string& name, const Shape& shape) {
  require(find(name) == nullptr && q8(name) == nullptr, "duplicate parameter name '", name, "'");
  const int64_t n = shape_numel(shape);
  if (int8_ && int8_(name, shape)) {
    require(shape.size() == 2, "parameter '", name, "' ", shape_str(shape), " cannot be stored as int8: not a matrix");
    int8_params_.push_back({name, shape, -1, n});
    int8_values_.push_back(std::make_unique<Q8Matrix>(shape[0], shape[1]));
    int8_numel_ += n;
    return nullptr;
  }
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

const Q8Matrix* ParamArena::q8(const std::string& name) const {
  for (size_t i = 0; i < int8_params_.size(); ++i)
    if (int8_params_[i].name == name) return int8_values_[i].get();
  return nullptr;
}
Q8Matrix* ParamArena::q8(const std::string& name) {
  return const_cast<Q8Matrix*>(static_cast<const ParamArena&>(*this).q8(name));
}

int64_t ParamArena::int8_bytes() const {
  int64_t n = 0;
  for (const auto& m : int8_values_) n += m->bytes();
  return n;
}

namespace {
void require_f32(const ParamInfo* p, const ParamArena& arena, const std::string& name) {
  if (p) return;
  require(arena.q8(name) == nullptr, "parameter '", name,
          "' is stored as int8 (the model was loaded with int8 weights, which are inference-only); its float32 "
          "values are not available");
  throw Error(detail::concat("no parameter named '", name, "'"));
}
}  // namespace

std::span<float> ParamArena::get(const std::string& name) {
  const ParamInfo* p = find(name);
  require_f32(p, *this, name);
  return {data_.data() + p->offset, static_cast<size_t>(p->numel)};
}

std::span<const float> ParamArena::get(const std::string& name) const {
  const ParamInfo* p = find(name);
  require_f32(p, *this, name);
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
