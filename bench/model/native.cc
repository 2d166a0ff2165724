// The model bench's native contender (bench/model/run.mjs): the same C++ forward (src/core/model/forward.h), built
// natively with g++ -O3 -msse4.2, on the same checkpoint and the same token ids, walked as attention-wasm/model walks
// it: the embeddings of the ids used, then each layer with its weights read from model.safetensors for that layer's
// call only, the final norm, and the LM head by blocks of 16 MiB of the vocabulary's rows.
//
//   model_native_bench <checkpoint folder> <ids, comma-separated> <layers> <heads>
// then one command per line on stdin:
//   run          one forward; prints {"totalMs", "coreMs", "readMs", "cpuMs"} (coreMs: the forward's calls only;
//                cpuMs: the process's CPU time)
//   dump <file>  writes the last run's attentions [L, H, n, n] then its logits [n, V], float32
//   quit
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "model/forward.h"

namespace {

namespace m = attention::model;

struct Entry {
  long long offset = 0;
  long long count = 0;
};

double cpu_ms() {  // this process's user + system time
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

double now_ms() {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(Clock::now().time_since_epoch()).count();
}

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "model_native_bench: %s\n", message.c_str());
  std::exit(2);
}

class Checkpoint {
 public:
  explicit Checkpoint(const std::string& dir) {
    std::ifstream list(dir + "/weights.txt");
    if (!list) die("cannot read " + dir + "/weights.txt");
    std::string name;
    Entry e;
    while (list >> name >> e.offset >> e.count) entries_[name] = e;
    fd_ = open((dir + "/model.safetensors").c_str(), O_RDONLY);
    if (fd_ < 0) die("cannot open " + dir + "/model.safetensors");
  }
  ~Checkpoint() { close(fd_); }

  long long count(const std::string& name) const { return at(name).count; }

  // Rows [first, first + rows) of a tensor whose rows are `width` floats (all of it when rows < 0), into out.
  void read(const std::string& name, std::vector<float>& out, long long first = 0, long long rows = -1,
            long long width = 1) const {
    const Entry& e = at(name);
    const long long count = rows < 0 ? e.count : rows * width;
    out.resize(static_cast<size_t>(count));
    char* to = reinterpret_cast<char*>(out.data());
    long long done = 0, bytes = count * 4, from = e.offset + first * width * 4;
    while (done < bytes) {
      const ssize_t got = pread(fd_, to + done, static_cast<size_t>(bytes - done), from + done);
      if (got <= 0) die("short read of " + name);
      done += got;
    }
  }

 private:
  const Entry& at(const std::string& name) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) die("no tensor " + name);
    return it->second;
  }
  std::map<std::string, Entry> entries_;
  int fd_ = -1;
};

struct Sizes {
  int layers, d, heads, vocab;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) die("usage: model_native_bench <folder> <ids> <layers> <heads>");
  const Checkpoint ckpt(argv[1]);
  std::vector<int> ids;
  {
    std::stringstream list(argv[2]);
    std::string id;
    while (std::getline(list, id, ',')) ids.push_back(std::stoi(id));
  }
  Sizes s{};
  s.d = static_cast<int>(ckpt.count("ln_f.weight"));
  s.vocab = static_cast<int>(ckpt.count("wte.weight") / s.d);
  s.layers = std::atoi(argc > 3 ? argv[3] : "12");
  s.heads = std::atoi(argc > 4 ? argv[4] : "12");
  const int n = static_cast<int>(ids.size()), d = s.d, H = s.heads, V = s.vocab;

  m::ModelConfig c;
  c.len = n;
  c.d_model = d;
  c.num_heads = H;
  c.num_kv_heads = H;
  c.d_k = d / H;
  c.d_ff = 4 * d;
  c.norm = attention::NormKind::kLayerNorm;
  c.placement = attention::NormPlacement::kPreNorm;
  c.activation = attention::Activation::kGeluTanh;
  c.layout = attention::WeightLayout::kInOut;
  c.eps = 1e-5f;
  c.causal = true;

  const int block = (16 << 20) / (d * 4);  // the LM head's rows per call, as model.js
  std::vector<float> attentions(static_cast<size_t>(s.layers) * H * n * n), logits(static_cast<size_t>(n) * V);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line == "quit") break;
    if (line.rfind("dump ", 0) == 0) {
      std::ofstream out(line.substr(5), std::ios::binary);
      out.write(reinterpret_cast<const char*>(attentions.data()), attentions.size() * 4);
      out.write(reinterpret_cast<const char*>(logits.data()), logits.size() * 4);
      std::printf("{\"dumped\":true}\n");
      std::fflush(stdout);
      continue;
    }
    if (line != "run") die("unknown command " + line);
    double core = 0, read = 0, t;
    const double start = now_ms(), cpu_start = cpu_ms();
    auto timed = [&](double& into, auto body) {
      t = now_ms();
      body();
      into += now_ms() - t;
    };
    std::vector<float> tokens(static_cast<size_t>(n) * d), row, positions, x(static_cast<size_t>(n) * d);
    timed(read, [&] {
      for (int i = 0; i < n; ++i) {
        ckpt.read("wte.weight", row, ids[i], 1, d);
        std::copy(row.begin(), row.end(), tokens.begin() + static_cast<long>(i) * d);
      }
      ckpt.read("wpe.weight", positions, 0, n, d);
    });
    timed(core, [&] { m::embed(c, tokens.data(), positions.data(), nullptr, nullptr, nullptr, x.data()); });
    std::vector<float> w[12];
    const char* names[12] = {"ln_1.weight",        "ln_1.bias",        "attn.c_attn.weight", "attn.c_attn.bias",
                             "attn.c_proj.weight", "attn.c_proj.bias", "ln_2.weight",        "ln_2.bias",
                             "mlp.c_fc.weight",    "mlp.c_fc.bias",    "mlp.c_proj.weight",  "mlp.c_proj.bias"};
    std::vector<float> y(static_cast<size_t>(n) * d);
    for (int l = 0; l < s.layers; ++l) {
      timed(read, [&] {
        for (int i = 0; i < 12; ++i) ckpt.read("h." + std::to_string(l) + "." + names[i], w[i]);
      });
      m::LayerWeights lw;
      lw.norm1_weight = w[0].data();
      lw.norm1_bias = w[1].data();
      lw.w_qkv = w[2].data();
      lw.b_qkv = w[3].data();
      lw.w_o = w[4].data();
      lw.b_o = w[5].data();
      lw.norm2_weight = w[6].data();
      lw.norm2_bias = w[7].data();
      lw.w_up = w[8].data();
      lw.b_up = w[9].data();
      lw.w_down = w[10].data();
      lw.b_down = w[11].data();
      m::LayerResult r;
      r.output = y.data();
      r.weights = attentions.data() + static_cast<size_t>(l) * H * n * n;
      timed(core, [&] { m::layer(c, lw, x.data(), r); });
      std::swap(x, y);
    }
    std::vector<float> nw, nb, head, out;
    timed(read, [&] {
      ckpt.read("ln_f.weight", nw);
      ckpt.read("ln_f.bias", nb);
    });
    timed(core, [&] { m::final_norm(c, x.data(), nullptr, nullptr, nw.data(), nb.data(), y.data()); });
    for (int v0 = 0; v0 < V; v0 += block) {
      const int rows = std::min(block, V - v0);
      timed(read, [&] { ckpt.read("wte.weight", head, v0, rows, d); });
      out.resize(static_cast<size_t>(n) * rows);
      timed(core, [&] {
        m::logits(c, y.data(), head.data(), nullptr, rows, out.data());
        for (int i = 0; i < n; ++i)
          std::copy_n(out.data() + static_cast<size_t>(i) * rows, rows,
                      logits.data() + static_cast<size_t>(i) * V + v0);
      });
    }
    std::printf("{\"totalMs\":%.3f,\"coreMs\":%.3f,\"readMs\":%.3f,\"cpuMs\":%.3f}\n", now_ms() - start, core, read,
                cpu_ms() - cpu_start);
    std::fflush(stdout);
  }
  return 0;
}
