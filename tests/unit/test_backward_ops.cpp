// Tests for the backward kernels of ops.hpp against PyTorch autograd (tests/golden/grad_ops.json, written by
// tests/reference/make_grad_goldens.py): LayerNorm, Linear, the activations, fused softmax cross-entropy and
// dropout, each with a random upstream gradient, within |a - e| <= 1e-5 + 1e-5 |e|. Also: gradients
// accumulate (+=), and cross-entropy stays finite for huge logits.
#include <catch2/catch.hpp>
#include <cmath>

#include "blockscope/layer_norm.hpp"
#include "blockscope/linear.hpp"
#include "blockscope/ops.hpp"
#include "support/golden.hpp"

using namespace blockscope;

TEST_CASE("layernorm backward matches torch.nn.LayerNorm autograd", "[backward][golden]") {
  for (const char* name : {"layer_norm_affine_3x5x8", "layer_norm_eps_1e-3"}) {
    SECTION(name) {
      const auto& c = golden::find_case("grad_ops.json", name);
      LayerNorm ln(c.config().at("emb_dim").get<int64_t>(), c.config().at("eps").get<float>());
      c.load_params(*ln.own_params());
      const Tensor x = c.input("x"), dy = c.input("dy");
      const int64_t rows = x.rows();
      std::vector<float> y(x.data.size()), mean(rows), rstd(rows), dx(x.data.size(), 0.0f);
      ln.forward(y.data(), mean.data(), rstd.data(), x.ptr(), rows);
      golden::check_close("LayerNorm", y, c.output("y"));
      ParamArena grads = ParamArena::zeros_like(*ln.own_params());
      ln.backward(dx.data(), dy.ptr(), x.ptr(), mean.data(), rstd.data(), rows, GradMap(*ln.own_params(), grads));
      golden::check_close("LayerNorm backward", dx, c.output("dx"));
      CHECK(golden::check_grads("LayerNorm backward", c, grads) == 2);
    }
  }
}

TEST_CASE("activation backward matches PyTorch for GELU (tanh and erf), ReLU and tanh", "[backward][golden]") {
  for (const char* name : {"act_gelu_tanh", "act_gelu_erf", "act_relu", "act_tanh"}) {
    SECTION(name) {
      const auto& c = golden::find_case("grad_ops.json", name);
      const Activation kind = parse_activation(c.config().at("kind").get<std::string>().c_str());
      const Tensor x = c.input("x"), dy = c.input("dy");
      std::vector<float> y(x.data.size()), dx(x.data.size(), 0.0f);
      activation_forward(kind, y.data(), x.ptr(), x.numel());
      golden::check_close("activations", y, c.output("y"));
      activation_backward(kind, dx.data(), x.ptr(), dy.ptr(), x.numel());
      golden::check_close("activation backward", dx, c.output("dx"));
    }
  }
}

TEST_CASE("linear backward matches torch.nn.Linear autograd with and without bias", "[backward][golden]") {
  for (const char* name : {"linear_bias_5to7", "linear_nobias_8to3"}) {
    SECTION(name) {
      const auto& c = golden::find_case("grad_ops.json", name);
      const int64_t in = c.config().at("in_features"), out = c.config().at("out_features");
      const bool bias = c.config().at("bias");
      ParamArena params(Linear::num_params(in, out, bias));
      const Linear lin(params, "", in, out, bias);
      c.load_params(params);
      const Tensor x = c.input("x"), dy = c.input("dy");
      const int64_t N = x.rows();
      std::vector<float> y(static_cast<size_t>(N * out)), dx(x.data.size(), 0.0f);
      lin.forward(y.data(), x.ptr(), N);
      golden::check_close("Linear", y, c.output("y"));
      ParamArena grads = ParamArena::zeros_like(params);
      lin.backward(dx.data(), dy.ptr(), x.ptr(), N, GradMap(params, grads));
      golden::check_close("Linear backward", dx, c.output("dx"));
      CHECK(golden::check_grads("Linear backward", c, grads) == (bias ? 2 : 1));
    }
  }
}

TEST_CASE("linear backward accumulates into existing gradients, as autograd's .grad does", "[backward]") {
  const auto& c = golden::find_case("grad_ops.json", "linear_bias_5to7");
  ParamArena params(Linear::num_params(5, 7, true));
  const Linear lin(params, "", 5, 7, true);
  c.load_params(params);
  const Tensor x = c.input("x"), dy = c.input("dy");
  ParamArena once = ParamArena::zeros_like(params), twice = ParamArena::zeros_like(params);
  std::vector<float> dx1(x.data.size(), 0.0f), dx2(x.data.size(), 0.0f);
  lin.backward(dx1.data(), dy.ptr(), x.ptr(), x.rows(), GradMap(params, once));
  lin.backward(dx2.data(), dy.ptr(), x.ptr(), x.rows(), GradMap(params, twice));
  lin.backward(dx2.data(), dy.ptr(), x.ptr(), x.rows(), GradMap(params, twice));
  for (int64_t i = 0; i < params.capacity(); ++i) REQUIRE(twice.data()[i] == 2.0f * once.data()[i]);
  for (size_t i = 0; i < dx1.size(); ++i) REQUIRE(dx2[i] == 2.0f * dx1[i]);
}

TEST_CASE("fused softmax cross-entropy matches F.cross_entropy and its gradient", "[backward][golden]") {
  for (const char* name : {"cross_entropy_6x11", "cross_entropy_large"}) {
    SECTION(name) {
      const auto& c = golden::find_case("grad_ops.json", name);
      Tensor logits = c.input("logits");
      Shape shape;
      const auto targets = c.input_ids("targets", &shape);
      const int64_t N = logits.dim(0), V = logits.dim(1);
      std::vector<float> losses(static_cast<size_t>(N));
      const double loss = cross_entropy_forward(losses.data(), logits.ptr(), targets.data(), N, V);
      REQUIRE(std::isfinite(loss));
      golden::check_close("cross-entropy", std::vector<float>{static_cast<float>(loss)}, c.output("loss"));
      cross_entropy_backward(logits.ptr(), targets.data(), N, V, 1.0f);
      golden::check_close("cross-entropy backward", logits, c.output("dlogits"));
    }
  }
}

TEST_CASE("dropout with a shared mask matches PyTorch's scaling and gradient", "[backward][golden]") {
  const auto& c = golden::find_case("grad_ops.json", "dropout_p0.25");
  const double p = c.config().at("p");
  const auto mask = golden::dropout_scale(c, "mask", p);
  const Tensor x = c.input("x"), dy = c.input("dy");
  std::vector<float> y(x.data.size()), dx(x.data.size(), 0.0f);
  dropout_apply(y.data(), x.ptr(), mask.data(), x.numel());
  golden::check_close("dropout", y, c.output("y"), 0.0f, 0.0f);  // one float product each: exact
  dropout_backward(dx.data(), dy.ptr(), mask.data(), x.numel());
  golden::check_close("dropout backward", dx, c.output("dx"), 0.0f, 0.0f);
}
