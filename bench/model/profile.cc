// The model bench's per-part profile: GPT-2-small's forward (random weights, 32 tokens, every attention, the tied
// LM head) through src/core/model's steps, each step timed on its own, 12 layers summed; the best of `rounds`.
// scripts/profile-model.sh builds it natively (cmake target model_profile) and as WebAssembly with the module's
// flags, runs both, then bench/model/ort-parts.mjs: onnxruntime-web's nodes of the same shapes, set beside these.
//
//   model_profile [rounds] [n]     prints one line per part: name, ms (best round), share of the total
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "attention.h"
#include "model/forward.h"
#include "model/linear.h"
#include "model/mlp.h"
#include "model/norms.h"

namespace {

namespace m = attention::model;

// CPU time, not wall time: the machine the bench runs on is shared and loaded.
#ifdef __EMSCRIPTEN__
EM_JS(double, now_ms, (), {
  const u = process.cpuUsage();  // this process's, in µs
  return (u.user + u.system) / 1000;
});
#else
double now_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}
#endif

std::vector<float> random(size_t size, float scale, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(size);
  for (float& x : v) x = normal(gen);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int n = argc > 2 ? std::atoi(argv[2]) : 32;
  const int layers = 12, d = 768, H = 12, d_k = 64, d_ff = 3072, V = 50257;
  const int block = (16 << 20) / (d * 4);  // the LM head's rows per call, as model.js
  std::mt19937 gen(7);
  struct Layer {
    std::vector<float> qkv, b_qkv, o, b_o, up, b_up, down, b_down, g, b;
  };
  std::vector<Layer> w(layers);
  for (Layer& l : w) {
    l = {random(size_t(d) * 3 * d, 0.02f, gen), random(3 * d, 0.02f, gen),
         random(size_t(d) * d, 0.02f, gen),     random(d, 0.02f, gen),
         random(size_t(d) * d_ff, 0.02f, gen),  random(d_ff, 0.02f, gen),
         random(size_t(d_ff) * d, 0.02f, gen),  random(d, 0.02f, gen),
         std::vector<float>(d, 1.0f),           std::vector<float>(d, 0.0f)};
  }
  const std::vector<float> wte = random(size_t(V) * d, 0.02f, gen);
  std::vector<float> x = random(size_t(n) * d, 1.0f, gen), normed(x.size()), flat(size_t(n) * 3 * d), q(size_t(n) * d),
                     k(q.size()), v(q.size()), heads(q.size()), concat(q.size()), attn(q.size()), residual(q.size()),
                     hidden(size_t(n) * d_ff), out(q.size()), weights(size_t(H) * n * n), logits(size_t(n) * block);

  const char* names[] = {"layernorm (2 per layer)",
                         "qkv linear [n,768]x[768,2304]",
                         "split heads",
                         "attention (weights kept)",
                         "merge heads",
                         "W_o linear [n,768]x[768,768]",
                         "residual sums",
                         "mlp up [n,768]x[768,3072]",
                         "gelu (tanh)",
                         "mlp down [n,3072]x[3072,768]",
                         "final norm",
                         "logits [n,768]x[50257,768]^T"};
  constexpr int kParts = 12;
  double best[kParts], total_best = 1e300;
  std::fill(best, best + kParts, 1e300);
  for (int round = 0; round < rounds; ++round) {
    double part[kParts] = {};
    double t = now_ms();
    auto lap = [&](int i) {
      const double now = now_ms();
      part[i] += now - t;
      t = now;
    };
    for (const Layer& l : w) {
      const m::Matrix qkv = m::matrix(l.qkv.data(), d, 3 * d, attention::WeightLayout::kInOut);
      m::norm(attention::NormKind::kLayerNorm, x.data(), n, d, l.g.data(), l.b.data(), 1e-5f, normed.data());
      lap(0);
      m::linear(normed.data(), n, qkv, l.b_qkv.data(), flat.data());
      lap(1);
      float* split[3] = {q.data(), k.data(), v.data()};
      for (int p = 0; p < 3; ++p) {
        for (int h = 0; h < H; ++h) {
          for (int i = 0; i < n; ++i) {
            std::copy_n(flat.data() + size_t(i) * 3 * d + p * d + h * d_k, d_k, split[p] + (size_t(h) * n + i) * d_k);
          }
        }
      }
      lap(2);
      attention::AttentionOptions options;
      options.causal = attention::Causal::kTopLeft;
      attention::AttentionResult result{heads.data(), weights.data()};
      attention::scaled_dot_product_attention({1, H, H, n, n, d_k, d_k}, q.data(), k.data(), v.data(), options, result);
      lap(3);
      for (int h = 0; h < H; ++h) {
        for (int i = 0; i < n; ++i) {
          std::copy_n(heads.data() + (size_t(h) * n + i) * d_k, d_k, concat.data() + size_t(i) * d + h * d_k);
        }
      }
      lap(4);
      m::linear(concat.data(), n, m::matrix(l.o.data(), d, d, attention::WeightLayout::kInOut), l.b_o.data(),
                attn.data());
      lap(5);
      for (size_t i = 0; i < x.size(); ++i) residual[i] = x[i] + attn[i];
      lap(6);
      m::norm(attention::NormKind::kLayerNorm, residual.data(), n, d, l.g.data(), l.b.data(), 1e-5f, normed.data());
      lap(0);
      m::linear(normed.data(), n, m::matrix(l.up.data(), d, d_ff, attention::WeightLayout::kInOut), l.b_up.data(),
                hidden.data());
      lap(7);
      m::activate(attention::Activation::kGeluTanh, hidden.data(), size_t(n) * d_ff);
      lap(8);
      m::linear(hidden.data(), n, m::matrix(l.down.data(), d_ff, d, attention::WeightLayout::kInOut), l.b_down.data(),
                out.data());
      lap(9);
      for (size_t i = 0; i < x.size(); ++i) x[i] = (residual[i] + out[i]) * 0.5f;  // halved: stays bounded
      lap(6);
    }
    m::norm(attention::NormKind::kLayerNorm, x.data(), n, d, w[0].g.data(), w[0].b.data(), 1e-5f, normed.data());
    lap(10);
    m::ModelConfig c;
    c.len = n;
    c.d_model = d;
    for (int v0 = 0; v0 < V; v0 += block) {
      m::logits(c, normed.data(), wte.data() + size_t(v0) * d, nullptr, std::min(block, V - v0), logits.data());
    }
    lap(11);
    double total = 0;
    for (int i = 0; i < kParts; ++i) {
      best[i] = std::min(best[i], part[i]);
      total += part[i];
    }
    total_best = std::min(total_best, total);
  }
  double sum = 0;
  for (double b : best) sum += b;
  for (int i = 0; i < kParts; ++i) std::printf("%-32s %8.2f ms  %5.1f%%\n", names[i], best[i], 100 * best[i] / sum);
  std::printf("%-32s %8.2f ms  (best whole round %.2f ms; CPU time)\n", "sum of parts' best", sum, total_best);
  return 0;
}
