#include "reference.h"

#include <cmath>
#include <limits>
#include <vector>

namespace attention::reference {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

}  // namespace

KeyVerdict key_verdict(const AttentionDims& d, const AttentionOptions& o, int b, int h, int i, int j) {
  if (o.causal == Causal::kTopLeft && j > i) return {false, 0};
  if (o.causal == Causal::kBottomRight && j > i + d.len_k - d.len_q) return {false, 0};
  const int position = o.causal == Causal::kBottomRight ? i + d.len_k - d.len_q : i;  // the query's key position
  if (o.window > 0 && position - j >= o.window) return {false, 0};
  const Mask& m = o.mask;
  if (m.kind == MaskKind::kNone) return {true, 0};
  const int index[4] = {m.dims[0] == 1 ? 0 : b, m.dims[1] == 1 ? 0 : h, m.dims[2] == 1 ? 0 : i, m.dims[3] == 1 ? 0 : j};
  const long flat =
      ((static_cast<long>(index[0]) * m.dims[1] + index[1]) * m.dims[2] + index[2]) * m.dims[3] + index[3];
  if (m.kind == MaskKind::kBoolean) return {static_cast<const uint8_t*>(m.data)[flat] != 0, 0};
  const double add = static_cast<const float*>(m.data)[flat];
  return {add != kNegInf, add};
}

void scaled_dot_product_attention(const AttentionDims& d, const float* q, const float* k, const float* v,
                                  const AttentionOptions& o, const AttentionResult& r) {
  const double scale = o.has_scale ? o.scale : 1.0 / std::sqrt(static_cast<double>(d.d_k));
  const int group = d.num_heads / d.num_kv_heads;
  std::vector<double> scores(d.len_k);
  for (int b = 0; b < d.batch; ++b) {
    for (int h = 0; h < d.num_heads; ++h) {
      const long bh = static_cast<long>(b) * d.num_heads + h;
      const long bh_kv = static_cast<long>(b) * d.num_kv_heads + h / group;
      for (int i = 0; i < d.len_q; ++i) {
        const long row = (bh * d.len_q + i) * d.len_k;
        double max = kNegInf;
        for (int j = 0; j < d.len_k; ++j) {
          double dot = 0;
          for (int c = 0; c < d.d_k; ++c) {
            dot += static_cast<double>(q[(bh * d.len_q + i) * d.d_k + c]) * k[(bh_kv * d.len_k + j) * d.d_k + c];
          }
          const KeyVerdict verdict = key_verdict(d, o, b, h, i, j);
          const double capped = o.softcap > 0 ? std::tanh(dot * scale / o.softcap) * o.softcap : dot * scale;
          scores[j] = verdict.open ? capped + verdict.add : kNegInf;
          if (r.raw_scores) r.raw_scores[row + j] = static_cast<float>(dot);
          if (r.scaled_scores) r.scaled_scores[row + j] = static_cast<float>(dot * scale);
          if (r.scores) r.scores[row + j] = static_cast<float>(scores[j]);
          if (scores[j] > max) max = scores[j];
        }
        double sum = 0;
        for (int j = 0; j < d.len_k; ++j) {
          scores[j] = max == kNegInf ? 0 : std::exp(scores[j] - max);
          sum += scores[j];
        }
        for (int j = 0; j < d.len_k; ++j) {
          scores[j] = sum == 0 ? 0 : scores[j] / sum;
          if (r.weights) r.weights[row + j] = static_cast<float>(scores[j]);
        }
        for (int c = 0; c < d.d_v; ++c) {
          double out = 0;
          for (int j = 0; j < d.len_k; ++j) out += scores[j] * v[(bh_kv * d.len_k + j) * d.d_v + c];
          r.output[(bh * d.len_q + i) * d.d_v + c] = static_cast<float>(out);
        }
      }
    }
  }
}

void multi_head_attention(const ProjectionDims& d, const float* x, const float* context, const ProjectionWeights& w,
                          const AttentionOptions& o, const MultiHeadResult& r) {
  if (!context) context = x;
  const int H = d.num_heads, H_kv = d.num_kv_heads;
  // out[b, h, l, c] = input[b, l, :]·weight[:, h·width + c] + bias[h·width + c]
  auto project = [&](const float* input, int len, int d_in, const float* weight, const float* bias, int heads,
                     int width, std::vector<float>& out) {
    out.assign(static_cast<size_t>(d.batch) * heads * len * width, 0);
    for (int b = 0; b < d.batch; ++b)
      for (int h = 0; h < heads; ++h)
        for (int l = 0; l < len; ++l)
          for (int c = 0; c < width; ++c) {
            const int col = h * width + c;
            double sum = bias ? bias[col] : 0;
            for (int e = 0; e < d_in; ++e) {
              sum += static_cast<double>(input[(static_cast<long>(b) * len + l) * d_in + e]) *
                     weight[static_cast<long>(e) * heads * width + col];
            }
            out[((static_cast<size_t>(b) * heads + h) * len + l) * width + c] = static_cast<float>(sum);
          }
  };
  std::vector<float> q, k, v, heads(static_cast<size_t>(d.batch) * H * d.len_q * d.d_v);
  project(x, d.len_q, d.d_model, w.w_q, w.b_q, H, d.d_k, q);
  project(context, d.len_k, d.d_context, w.w_k, w.b_k, H_kv, d.d_k, k);
  project(context, d.len_k, d.d_context, w.w_v, w.b_v, H_kv, d.d_v, v);
  if (r.q) std::copy(q.begin(), q.end(), r.q);
  if (r.k) std::copy(k.begin(), k.end(), r.k);
  if (r.v) std::copy(v.begin(), v.end(), r.v);

  AttentionResult per_head = r.attention;
  per_head.output = heads.data();
  reference::scaled_dot_product_attention({d.batch, H, H_kv, d.len_q, d.len_k, d.d_k, d.d_v}, q.data(), k.data(),
                                          v.data(), o, per_head);
  if (r.attention.output) std::copy(heads.begin(), heads.end(), r.attention.output);

  const int width = H * d.d_v;
  std::vector<float> concat(static_cast<size_t>(d.batch) * d.len_q * width);
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < H; ++h)
      for (int l = 0; l < d.len_q; ++l)
        for (int c = 0; c < d.d_v; ++c)
          concat[(static_cast<size_t>(b) * d.len_q + l) * width + h * d.d_v + c] =
              heads[((static_cast<size_t>(b) * H + h) * d.len_q + l) * d.d_v + c];
  if (r.concat) std::copy(concat.begin(), concat.end(), r.concat);
  if (d.d_out == 0) {
    std::copy(concat.begin(), concat.end(), r.output);
    return;
  }
  for (int row = 0; row < d.batch * d.len_q; ++row)
    for (int c = 0; c < d.d_out; ++c) {
      double sum = w.b_o ? w.b_o[c] : 0;
      for (int e = 0; e < width; ++e)
        sum += static_cast<double>(concat[static_cast<size_t>(row) * width + e]) *
               w.w_o[static_cast<long>(e) * d.d_out + c];
      r.output[static_cast<size_t>(row) * d.d_out + c] = static_cast<float>(sum);
    }
}

}  // namespace attention::reference
