// The model's matrix product (src/core/model/linear.h) alone: GFLOP/s (2·rows·in·out per call, CPU time, the best of
// `rounds`) on GPT-2-small's shapes at several row counts, both weight layouts ([in, out]: GPT-2's Conv1D; [out, in]:
// torch.nn.Linear, the LM head), then the attention API's output projection (attention.h's output_projection:
// concat·W_o + b_o, W_o [768, 768]) at the same row counts. scripts/profile-model.sh --gemm builds it as WebAssembly
// (SIMD128, as the model module) and natively, and runs both.
//
//   model_gemm [rounds] [rows...]     prints one line per shape and layout: GFLOP/s at each row count
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>
#include <vector>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

#include "attention.h"
#include "model/linear.h"

namespace {

namespace m = attention::model;

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

std::vector<float> random(size_t size, std::mt19937& gen) {
  std::normal_distribution<float> normal(0.0f, 0.02f);
  std::vector<float> v(size);
  for (float& x : v) x = normal(gen);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  std::vector<int> row_counts;
  for (int i = 2; i < argc; ++i) row_counts.push_back(std::atoi(argv[i]));
  if (row_counts.empty()) row_counts = {1, 8, 32, 96, 128, 512};
  struct Shape {
    int in, out;
    const char* name;
  };
  const Shape shapes[] = {{768, 768, "768x768"},
                          {768, 2304, "768x2304"},
                          {768, 3072, "768x3072"},
                          {3072, 768, "3072x768"},
                          {768, 4096, "768x4096 (LM head block)"}};
  std::mt19937 gen(7);
  std::printf("%-28s %-7s", "shape (in x out)", "layout");
  for (int rows : row_counts) std::printf(" %7d", rows);
  std::printf("   (rows; GFLOP/s, best of %d)\n", rounds);
  // GFLOP/s of `product` on x [rows, in] (best of `rounds`, ~0.2 GFLOP per round).
  auto time_rows = [&](int in, int out, auto product) {
    for (int rows : row_counts) {
      const std::vector<float> x = random(size_t(rows) * in, gen);
      std::vector<float> y(size_t(rows) * out);
      const double flops = 2.0 * rows * in * out;
      const int calls = std::max(1, int(2e8 / flops));
      double best = 1e300;
      for (int r = 0; r < rounds; ++r) {
        const double t = now_ms();
        for (int c = 0; c < calls; ++c) product(x.data(), rows, y.data());
        best = std::min(best, (now_ms() - t) / calls);
      }
      std::printf(" %7.1f", flops / best / 1e6);
    }
    std::printf("\n");
  };
  for (const Shape& s : shapes) {
    const std::vector<float> w = random(size_t(s.in) * s.out, gen), b = random(s.out, gen);
    for (auto layout : {attention::WeightLayout::kInOut, attention::WeightLayout::kOutIn}) {
      std::printf("%-28s %-7s", s.name, layout == attention::WeightLayout::kInOut ? "in,out" : "out,in");
      const m::Matrix matrix = m::matrix(w.data(), s.in, s.out, layout);
      time_rows(s.in, s.out, [&](const float* x, int rows, float* y) { m::linear(x, rows, matrix, b.data(), y); });
    }
  }
  const std::vector<float> w_o = random(768 * 768, gen), b_o = random(768, gen);
  std::printf("%-28s %-7s", "768x768 W_o (output_proj.)", "in,out");
  time_rows(768, 768, [&](const float* x, int rows, float* y) {
    attention::output_projection(x, rows, 768, w_o.data(), b_o.data(), 768, y);
  });
  return 0;
}
