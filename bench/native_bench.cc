// The project's own core built natively (g++ -O3 -msse4.2): the bench's limit for 128-bit SIMD.
// Runs one case on the input files written by bench/run.mjs and prints one JSON line, like the JS children.
//
//   attention_native_bench --n=512 --heads=1 --causal=0 --weights=1 --long=0 --quick=0 --data=<prefix>
//   reads <prefix>.q .k .v (float32 [heads, n, 64]), .rows (int32), .ref (float64 [rows, 64])
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "attention.h"

namespace {

constexpr int32_t kD = 64;

template <typename T>
std::vector<T> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::vector<T> out(static_cast<size_t>(in.tellg()) / sizeof(T));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size() * sizeof(T)));
  return out;
}

double now_ms() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
}

// A field of /proc/self/status in bytes ("VmRSS", "VmHWM"), or -1.
int64_t status_bytes(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::string prefix = std::string(field) + ":";
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size())) * 1024;
  }
  return -1;
}

// As in bench/common.mjs: resets the high-water mark of resident memory and returns the resident bytes now.
int64_t start_memory_window() {
  std::ofstream("/proc/self/clear_refs") << "5";
  return status_bytes("VmRSS");
}

int64_t peak_rss_bytes() {
  const int64_t hwm = status_bytes("VmHWM");
  if (hwm >= 0) return hwm;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> arg;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) arg[a.substr(2, eq - 2)] = a.substr(eq + 1);
  }
  const int32_t n = std::stoi(arg["n"]), heads = std::stoi(arg["heads"]);
  const bool causal = arg["causal"] == "1", with_weights = arg["weights"] == "1";
  const bool long_case = arg["long"] == "1", quick = arg["quick"] == "1";
  const std::string& data = arg["data"];

  const int64_t rss_bare = start_memory_window();
  const auto q = read_file<float>(data + ".q");
  const auto k = read_file<float>(data + ".k");
  const auto v = read_file<float>(data + ".v");
  const auto rows = read_file<int32_t>(data + ".rows");
  const auto ref = read_file<double>(data + ".ref");

  const int64_t input_bytes = static_cast<int64_t>((q.size() + k.size() + v.size()) * sizeof(float) +
                                                   rows.size() * sizeof(int32_t) + ref.size() * sizeof(double));
  const attention::AttentionDims dims{1, heads, heads, n, n, kD, kD};
  attention::AttentionOptions options;
  options.causal = causal ? attention::Causal::kTopLeft : attention::Causal::kNone;
  const size_t output_size = static_cast<size_t>(heads) * n * kD;
  const size_t weights_size = static_cast<size_t>(heads) * n * n;

  std::vector<float> output;
  auto call = [&] {
    output = std::vector<float>(output_size);                     // [heads, n, d]
    std::vector<float> weights(with_weights ? weights_size : 0);  // [heads, n, n]
    attention::AttentionResult result;
    result.output = output.data();
    result.weights = with_weights ? weights.data() : nullptr;
    attention::scaled_dot_product_attention(dims, q.data(), k.data(), v.data(), options, result);
  };

  call();
  double max_error = 0;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (int32_t c = 0; c < kD; ++c) {
      const double e = std::abs(output[static_cast<size_t>(rows[r]) * kD + c] - ref[r * kD + c]);
      if (!(e <= max_error)) max_error = e;
    }
  }

  const int warmup = quick ? 0 : (long_case ? 1 : 2);
  const int min_samples = quick ? 2 : (long_case ? 3 : 7);
  const int max_samples = quick ? 2 : 400;
  const double budget_ms = quick || long_case ? 0 : 1500;
  double t0 = now_ms();
  for (int i = 0; i < warmup; ++i) call();
  const double estimate = warmup ? (now_ms() - t0) / warmup : 1;
  const int batch = estimate < 0.25 ? static_cast<int>(std::ceil(1 / std::max(estimate, 1e-3))) : 1;
  std::vector<double> times;
  const double start = now_ms();
  while (static_cast<int>(times.size()) < max_samples &&
         (static_cast<int>(times.size()) < min_samples || now_ms() - start < budget_ms)) {
    t0 = now_ms();
    for (int i = 0; i < batch; ++i) call();
    times.push_back((now_ms() - t0) / batch);
  }
  std::sort(times.begin(), times.end());
  const size_t m = times.size();
  const double median = m % 2 ? times[m / 2] : (times[m / 2 - 1] + times[m / 2]) / 2;
  std::printf(
      "{\"medianMs\":%.6f,\"minMs\":%.6f,\"samples\":%zu,\"batch\":%d,\"maxAbsError\":%.3e,\"peakBytes\":%lld,"
      "\"simd\":\"%s\"}\n",
      median, times.front(), m, batch, max_error,
      static_cast<long long>(std::max<int64_t>(0, peak_rss_bytes() - rss_bare - input_bytes)),
      attention::simd_instruction_sets().c_str());
  return 0;
}
