// embind bindings of the lesson's residual-gradient-flow network (ResidualMLP: forward, the backward pass of y.sum(),
// its gradients). Part of both modules (the light one and the full one, wasm/CMakeLists.txt). Marshalling only.
#include "blockscope/residual_mlp.hpp"
#include "marshal.hpp"

namespace blockscope::wasm {

namespace {

class ResidualMLPHandle {
 public:
  ResidualMLPHandle(const std::string& config, double seed)
      : mlp_([&] {
          return ResidualMLP(ResidualMLPConfig::from_json(json_from(config, "residual MLP config")), seed_of(seed));
        }()) {}
  // x (B, dim) -> y (B, dim)
  val forward(val x, double B_) {
    return guarded([&] {
      const int64_t B = integer_of(B_, "B", 0, INT32_MAX);
      std::vector<float> in = floats_from(x, "input");
      const int64_t d = mlp_.config().dim;
      require(B > 0 && static_cast<int64_t>(in.size()) == B * d, "input needs B x dim = ", B, " x ", d,
              " values, got ", in.size());
      out_ = mlp_.forward(Tensor({B, d}, std::move(in)));
      return view(out_.data);
    });
  }
  // Gradients of y.sum(); returns each layer's weight-gradient norm, layer 1 first.
  val backwardSum() {
    return guarded([&] {
      mlp_.backward_sum();
      norms_ = mlp_.weight_grad_norms();
      return view(norms_);
    });
  }
  val getGradient(const std::string& name) {
    return guarded([&] {
      const auto g = mlp_.grads().get(name);
      return view(g.data(), g.size());
    });
  }
  val config() const {
    return guarded([&] {
      const auto& c = mlp_.config();
      return json_to_js({{"depth", c.depth}, {"dim", c.dim}, {"activation", activation_name(c.activation)},
                         {"residual", c.residual}, {"layer_norm", c.layer_norm}, {"init_std", c.init_std}});
    });
  }
  ParamArena& arena() { return mlp_.params(); }

 private:
  ResidualMLP mlp_;
  Tensor out_;
  std::vector<float> norms_;
};

}  // namespace
}  // namespace blockscope::wasm

EMSCRIPTEN_BINDINGS(blockscope_residual_mlp) {
  using namespace emscripten;
  using namespace blockscope::wasm;
  with_parameters(bind_class<ResidualMLPHandle>("ResidualMLP")
                      .constructor(&make_handle<ResidualMLPHandle, std::string, double>, allow_raw_pointers())
                      .function("forward", &ResidualMLPHandle::forward)
                      .function("backwardSum", &ResidualMLPHandle::backwardSum)
                      .function("getGradient", &ResidualMLPHandle::getGradient)
                      .function("config", &ResidualMLPHandle::config));
}
