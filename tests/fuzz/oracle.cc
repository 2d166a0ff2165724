// The fuzz target's oracle (oracle.h): the dot products in double and the checks of one call's outputs.
#include "oracle.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace attention::fuzz {

std::string g_case;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "attention_fuzz: %s\n  case: %s\n", what.c_str(), g_case.c_str());
  std::fflush(stderr);
  std::abort();
}

Dots dots(const AttentionDims& d, const float* q, const float* k, const AttentionOptions& o) {
  Dots out;
  const int64_t size = product({d.batch, d.num_heads, d.len_q, d.len_k});
  out.dot.resize(size);
  out.dot_abs.resize(size);
  const double scale = std::abs(kernels_scale(d, o));
  const int group = d.num_heads / d.num_kv_heads;
  int64_t at = 0;
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.num_heads; ++h)
      for (int i = 0; i < d.len_q; ++i)
        for (int j = 0; j < d.len_k; ++j, ++at) {
          const float* q_row = q + ((int64_t{b} * d.num_heads + h) * d.len_q + i) * d.d_k;
          const float* k_row = k + ((int64_t{b} * d.num_kv_heads + h / group) * d.len_k + j) * d.d_k;
          double dot = 0, dot_abs = 0;
          for (int c = 0; c < d.d_k; ++c) {
            dot += double{q_row[c]} * k_row[c];
            dot_abs += std::abs(double{q_row[c]} * k_row[c]);
          }
          out.dot[at] = dot;
          out.dot_abs[at] = dot_abs;
          if (!(std::abs(dot) * scale <= kSureOverflow)) out.must_overflow = true;
          if (!(std::abs(dot) <= kSureOverflow)) out.raw_must_overflow = true;
          if (!(dot_abs < kMayOverflow)) out.raw_may_overflow = true;
          if (!(dot_abs < kMayOverflow) || !(dot_abs * scale < kMayOverflow)) out.may_overflow = true;
          const reference::KeyVerdict verdict = reference::key_verdict(d, o, b, h, i, j);
          if (verdict.open && !(dot_abs * scale + std::abs(verdict.add) < kMayOverflow)) out.may_overflow = true;
        }
  return out;
}

bool values_may_overflow(const AttentionDims& d, const float* v) {
  const int64_t n = product({d.batch, d.num_kv_heads, d.len_k, d.d_v});
  return std::any_of(v, v + n, [](float x) { return !(std::abs(x) < kMayOverflow); });
}

void check_sdpa(const AttentionDims& d, const float* v, const AttentionOptions& o, const Oracle& oracle,
                const std::string& code, const SdpaBuffers* steps, const float* output) {
  const Dots& dt = oracle.dt;
  const SdpaBuffers& ref = oracle.ref;
  if (code == "OUTPUT_OVERFLOW") {
    if (!values_may_overflow(d, v)) fail("OUTPUT_OVERFLOW although every |v| stays below 1e38");
    return;
  }
  if (!code.empty()) {
    if (code != "SCORE_OVERFLOW") fail("valid call threw " + code);
    if (!dt.may_overflow) fail("SCORE_OVERFLOW although every score stays below 1e38");
    return;
  }
  // The unscaled q·k is an error only when it is returned (steps); a small scale brings it back otherwise.
  if (dt.must_overflow || (steps && dt.raw_must_overflow)) {
    fail("a score beyond float32 range did not throw SCORE_OVERFLOW");
  }

  const double scale = kernels_scale(d, o);
  const int group = d.num_heads / d.num_kv_heads;
  // A softcap's own rounding (s / softcap, the kernels' tanh within a few ulps, · softcap): at most a few ulps of
  // softcap, since |tanh| ≤ 1 and x·sech²(x) ≤ 0.45; its slope is at most 1, so it carries s's error no further.
  const double cap_error = o.softcap > 0 ? 32 * kEps * o.softcap : 0;
  // Only a multi-head projection can make v non-finite (x·W_v beyond float32); outputs then carry 0·inf.
  const bool v_finite = all_finite(v, product({d.batch, d.num_kv_heads, d.len_k, d.d_v}));
  std::vector<bool> open(d.len_k);

  for (int b = 0; b < d.batch; ++b) {
    for (int h = 0; h < d.num_heads; ++h) {
      const float* v_bh = v + (int64_t{b} * d.num_kv_heads + h / group) * d.len_k * d.d_v;
      for (int i = 0; i < d.len_q; ++i) {
        const int64_t row = ((int64_t{b} * d.num_heads + h) * d.len_q + i) * d.len_k;
        const auto where = [&] {
          return " at b=" + std::to_string(b) + " h=" + std::to_string(h) + " i=" + std::to_string(i);
        };
        bool any_open = false;      // the mask leaves some key open
        bool kernels_open = false;  // some open key kept a finite score in the kernels
        bool may_vanish = false;    // some open key's score + mask may round to -inf
        double row_error = 0, weight_sum = 0;
        for (int j = 0; j < d.len_k; ++j) {
          const int64_t at = row + j;
          const reference::KeyVerdict verdict = reference::key_verdict(d, o, b, h, i, j);
          open[j] = verdict.open;
          const double scaled_abs = dt.dot_abs[at] * std::abs(scale);
          const double underflow = (d.d_k + 1) * kSubnormalStep * std::abs(scale);
          if (verdict.open) {
            any_open = true;
            const double error = (d.d_k + 4) * kEps * scaled_abs + underflow +
                                 2 * kEps * std::abs(dt.dot[at] * scale + verdict.add) + kEps * std::abs(verdict.add) +
                                 cap_error + kTiny;
            row_error = std::max(row_error, error);
            if (!(scaled_abs + std::abs(verdict.add) < kMayOverflow)) may_vanish = true;
          }
          if (!steps) continue;

          const auto entry = [&] { return where() + " j=" + std::to_string(j); };
          const double raw = steps->raw_scores[at], scaled = steps->scaled_scores[at], score = steps->scores[at];
          const double weight = steps->weights[at];
          if (!std::isfinite(raw) || !std::isfinite(scaled))
            fail("non-finite raw or scaled score without an error" + entry());
          const double raw_bound = (d.d_k + 1) * kEps * dt.dot_abs[at] + kEps * std::abs(ref.raw_scores[at]) + kTiny;
          if (std::isfinite(ref.raw_scores[at]) && !(std::abs(raw - ref.raw_scores[at]) <= raw_bound)) {
            fail("raw score " + num(raw) + " vs reference " + num(ref.raw_scores[at]) + entry());
          }
          const double scaled_bound =
              (d.d_k + 4) * kEps * scaled_abs + underflow + kEps * std::abs(ref.scaled_scores[at]) + kTiny;
          if (std::isfinite(ref.scaled_scores[at]) && !(std::abs(scaled - ref.scaled_scores[at]) <= scaled_bound)) {
            fail("scaled score " + num(scaled) + " vs reference " + num(ref.scaled_scores[at]) + entry());
          }
          if (!(weight >= 0 && weight <= 1)) fail("weight " + num(weight) + " outside [0, 1]" + entry());
          if (!verdict.open) {
            if (score != kNegInf || ref.scores[at] != kNegInf) fail("masked score is not -inf" + entry());
            if (weight != 0) fail("masked weight " + num(weight) + " is not exactly 0" + entry());
            continue;
          }
          if (std::isnan(score) || score == -kNegInf) fail("open score is " + num(score) + entry());
          if (score == kNegInf) {
            if (!may_vanish) fail("open score is -inf" + entry());
            if (weight != 0) fail("weight " + num(weight) + " of a -inf score" + entry());
            continue;
          }
          kernels_open = true;
          weight_sum += weight;
          const double score_bound = (d.d_k + 4) * kEps * scaled_abs + underflow + 2 * kEps * std::abs(ref.scores[at]) +
                                     kEps * std::abs(verdict.add) + cap_error + kTiny;
          if (std::isfinite(ref.scores[at]) && !(std::abs(score - ref.scores[at]) <= score_bound)) {
            fail("score " + num(score) + " vs reference " + num(ref.scores[at]) + entry());
          }
        }

        const float* out = output + (row / d.len_k) * d.d_v;
        const float* ref_out = &ref.output[(row / d.len_k) * d.d_v];
        if (!any_open || (steps && !kernels_open)) {
          for (int c = 0; c < d.d_v; ++c) {
            if (out[c] != 0 && v_finite) fail("row without open keys has output " + num(out[c]) + where());
          }
          if (steps) {
            for (int j = 0; j < d.len_k; ++j) {
              if (steps->weights[row + j] != 0)
                fail("row without open keys has weight " + num(steps->weights[row + j]) + where());
            }
          }
          continue;
        }
        const double sum_slack = (d.len_k + 8) * 2 * kEps;
        if (steps && !(std::abs(weight_sum - 1) <= sum_slack)) fail("weights sum to " + num(weight_sum) + where());
        if (!steps && may_vanish) continue;

        const bool trusted = row_error <= kTrustedInputError;
        const double weight_rel = 3 * row_error + (d.len_k + 16) * kEps;
        if (steps && trusted) {
          for (int j = 0; j < d.len_k; ++j) {
            const double w = steps->weights[row + j], r = ref.weights[row + j];
            if (open[j] && !(std::abs(w - r) <= weight_rel * r + kWeightFloor)) {
              fail("weight " + num(w) + " vs reference " + num(r) + where() + " j=" + std::to_string(j) +
                   " (row input error " + num(row_error) + ")");
            }
          }
        }
        if (!v_finite) continue;
        for (int c = 0; c < d.d_v; ++c) {
          double spread = 0, total = 0, largest = 0;
          for (int j = 0; j < d.len_k; ++j) {
            const double magnitude = std::abs(double{v_bh[int64_t{j} * d.d_v + c]});
            spread += ref.weights[row + j] * magnitude;
            total += magnitude;
            if (open[j]) largest = std::max(largest, magnitude);
          }
          if (!(spread < kMayOverflow && largest < kMayOverflow)) continue;
          const auto entry = [&] { return where() + " c=" + std::to_string(c); };
          if (!(std::abs(out[c]) <= largest * (1 + sum_slack) + kTiny)) {
            fail("output " + num(out[c]) + " outside the values' range ±" + num(largest) + entry());
          }
          if (!trusted) continue;
          const double bound = (weight_rel + (2 * d.len_k + 24) * kEps) * spread + kWeightFloor * total + kTiny +
                               kEps * std::abs(ref_out[c]);
          if (!(std::abs(out[c] - ref_out[c]) <= bound)) {
            fail("output " + num(out[c]) + " vs reference " + num(ref_out[c]) + entry() + " (bound " + num(bound) +
                 ")");
          }
        }
      }
    }
  }
}

}  // namespace attention::fuzz
