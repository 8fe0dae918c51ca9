// The chapter-40 anchor: the book's chapter-32 decoder written in the PyTorch
// C++ frontend (libtorch) and trained on Tiny Shakespeare exactly as
// `make train` trains ours: the same data file and split, the same batches
// (the same SplitMix64 windows), the same initial weights (drawn by our
// xavier_uniform in the order DecoderModel::initialized draws them), the same
// schedule and evaluation windows. Only the arithmetic is libtorch's: its
// kernels, its autograd, its AdamW and its gradient clipping, in float32 or
// float64, on one thread or more.
//
//   llm-train-anchor [--config FILE.json] [--dtype float32|float64]
//                    [--threads N] [--blas-threads N] [--init xavier|gpt2] [--data PATH]
//                    [--log FILE.json]
//
// --threads sets libtorch's intra-op threads (OpenMP, for element-wise work);
// --blas-threads sets OpenBLAS's own pool, which runs the matrix products
// (default: the same number). Both count the calling thread, so 2 and 2 put
// three threads on two cores, and an idle worker of either library keeps
// polling for a while before it sleeps: the float64 run took twice as long
// as on one thread (docs/train-runs/README.md has the times).
//
// `make train-anchor` runs it (docs/training-run.md). It is a benchmark
// program, built only in the benchmark build (-DLLM_BENCH=ON) with libtorch.
#include <dlfcn.h>
#include <getopt.h>
#include <torch/torch.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <numbers>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../../src/apps/command_line.hpp"
#include "llm/nn/init.hpp"
#include "llm/text/text_dataset.hpp"
#include "llm/training/random_windows.hpp"
#include "llm/training/run_measurement.hpp"
#include "llm/training/train_run_config.hpp"

namespace {

using Json = nlohmann::json;

// ---------------------------------------------------------------- options

struct Options {
  std::string config_path;  // empty: the defaults
  std::string dtype = "float32";
  int threads = 1;
  int blas_threads = 0;  // 0 (not given): as many as --threads
  std::string init = "xavier";
  std::string architecture = "chapter32";
  std::string data = LLM_TINY_SHAKESPEARE;
  std::string log_path;  // empty: no log file
};

[[noreturn]] void usage(const std::string& problem) {
  std::cerr << "llm-train-anchor: " << problem << "\n"
            << "usage: llm-train-anchor [--config FILE.json] [--dtype float32|float64]\n"
            << "                        [--threads N] [--blas-threads N] [--init xavier|gpt2]\n"
            << "                        [--data PATH]\n"
            << "                        [--architecture chapter32|gpt2] [--log FILE.json]\n";
  std::exit(2);
}

// A thread count: a whole number from 1 to 1024.
int thread_argument(const char* option, const char* text) {
  const std::optional<unsigned long long> value = llm::apps::parse_whole_number(text);
  if (!value || *value < 1 || *value > 1024) {
    usage(std::string(option) + " must be a whole number from 1 to 1024, got '" + text + "'");
  }
  return static_cast<int>(*value);
}

Options parse_options(int argc, char** argv) {
  Options options;
  const option long_options[] = {{"config", required_argument, nullptr, 'c'},
                                 {"dtype", required_argument, nullptr, 'd'},
                                 {"threads", required_argument, nullptr, 't'},
                                 {"init", required_argument, nullptr, 'i'},
                                 {"architecture", required_argument, nullptr, 'a'},
                                 {"data", required_argument, nullptr, 'D'},
                                 {"log", required_argument, nullptr, 'l'},
                                 {"blas-threads", required_argument, nullptr, 'b'},
                                 {nullptr, 0, nullptr, 0}};
  int c = 0;
  while ((c = getopt_long(argc, argv, "", long_options, nullptr)) != -1) {
    switch (c) {
      case 'c':
        options.config_path = optarg;
        break;
      case 'd':
        options.dtype = optarg;
        break;
      case 't':
        options.threads = thread_argument("--threads", optarg);
        break;
      case 'b':
        options.blas_threads = thread_argument("--blas-threads", optarg);
        break;
      case 'i':
        options.init = optarg;
        break;
      case 'a':
        options.architecture = optarg;
        break;
      case 'D':
        options.data = optarg;
        break;
      case 'l':
        options.log_path = optarg;
        break;
      default:
        usage("unknown option");
    }
  }
  if (optind != argc) usage(std::string("unexpected argument ") + argv[optind]);
  if (options.dtype != "float32" && options.dtype != "float64") {
    usage("--dtype must be float32 or float64, got " + options.dtype);
  }
  if (options.blas_threads == 0) options.blas_threads = options.threads;
  if (options.init != "xavier" && options.init != "gpt2") {
    usage("--init must be xavier or gpt2, got " + options.init);
  }
  if (options.architecture != "chapter32" && options.architecture != "gpt2") {
    usage("--architecture must be chapter32 or gpt2, got " + options.architecture);
  }
  return options;
}

// ---------------------------------------------------------------- clocks

// The three clocks and the load average of src/llm/training/run_measurement.hpp,
// written as make train's log writes them, so the two logs compare like with like.
Json clocks_json(const llm::RunClocks& clocks) {
  return {{"wall_seconds", clocks.wall},
          {"thread_cpu_seconds", clocks.thread_cpu},
          {"process_cpu_seconds", clocks.process_cpu}};
}

Json load_average() {
  const auto loads = llm::load_average();
  if (!loads) return nullptr;
  return Json::array({(*loads)[0], (*loads)[1], (*loads)[2]});
}

// The core OpenBLAS chose on this CPU (what OPENBLAS_VERBOSE=2 prints).
std::string openblas_core() {
  using CoreName = char* (*)();
  if (auto name = reinterpret_cast<CoreName>(dlsym(RTLD_DEFAULT, "openblas_get_corename"))) {
    return name();
  }
  return "not loaded";
}

// OpenBLAS runs libtorch's matrix products here (Debian's libtorch links
// libblas.so.3); its own thread pool ignores at::set_num_threads, so it is
// told directly when the process has it.
int set_openblas_threads(int threads) {
  using SetThreads = void (*)(int);
  using GetThreads = int (*)();
  if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(threads);
  }
  if (auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "openblas_get_num_threads"))) {
    return get();
  }
  return -1;
}

// ---------------------------------------------------------------- model

// A standard normal draw from two SplitMix64 draws (Box-Muller), for the
// GPT-2-style initialization experiment.
double standard_normal(llm::SplitMix64& generator) {
  const double u1 = 1.0 - generator.next_unit();  // (0, 1]: log is finite
  const double u2 = generator.next_unit();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

struct Initializer {
  std::string kind;
  llm::SplitMix64 generator;
  torch::ScalarType dtype;
  std::size_t layers;

  // A [rows, columns] matrix: Xavier-uniform (ours, chapter 17) or, for
  // --init gpt2, N(0, 0.02) with residual projections N(0, 0.02 / sqrt(2N))
  // as nanoGPT's model.py initializes them.
  torch::Tensor matrix(std::size_t rows, std::size_t columns, bool residual_projection = false) {
    std::vector<double> values;
    if (kind == "xavier") {
      const llm::Tensor drawn = llm::xavier_uniform(rows, columns, generator);
      values.assign(drawn.values().begin(), drawn.values().end());
    } else {
      const double deviation =
          residual_projection ? 0.02 / std::sqrt(2.0 * static_cast<double>(layers)) : 0.02;
      values.resize(rows * columns);
      for (double& value : values) value = deviation * standard_normal(generator);
    }
    return torch::tensor(values, torch::kFloat64)
        .reshape({static_cast<std::int64_t>(rows), static_cast<std::int64_t>(columns)})
        .to(dtype)
        .requires_grad_(true);
  }
  torch::Tensor ones(std::size_t width) const {
    return torch::ones({static_cast<std::int64_t>(width)}, dtype).requires_grad_(true);
  }
};

// One block's parameters; the GPT-2 comparison leaves `gate` undefined.
struct Block {
  torch::Tensor attention_gain, query, key, value, output, feed_forward_gain, gate, up, down;
};

// A block's two gains (ones) and its attention projections Q, K, V and O
// [D, D], drawn in that order (O as a residual projection); each model then
// draws its own feed-forward matrices.
Block attention_block(Initializer& draw, std::size_t width) {
  Block block;
  block.attention_gain = draw.ones(width);
  block.feed_forward_gain = draw.ones(width);
  block.query = draw.matrix(width, width);
  block.key = draw.matrix(width, width);
  block.value = draw.matrix(width, width);
  block.output = draw.matrix(width, width, true);
  return block;
}

// What the training loop needs of a model: its parameters in AdamW's two
// groups and its loss. Both models keep N blocks and a final gain.
class AnchorModel {
 public:
  virtual ~AnchorModel() = default;
  /// Parameters of two or more dimensions: AdamW decays them (nanoGPT's rule).
  virtual std::vector<torch::Tensor> matrices() const = 0;
  /// The rest, the norm gains of every block and the final one: no decay.
  std::vector<torch::Tensor> gains() const {
    std::vector<torch::Tensor> result;
    for (const Block& b : blocks_) {
      result.push_back(b.attention_gain);
      result.push_back(b.feed_forward_gain);
    }
    result.push_back(final_gain_);
    return result;
  }
  /// The mean next-token NLL of `targets` [B, T] given `inputs` [B, T].
  virtual torch::Tensor loss(const torch::Tensor& inputs, const torch::Tensor& targets) const = 0;

 protected:
  std::vector<Block> blocks_;
  torch::Tensor final_gain_;
};

torch::Tensor causal_attention(const torch::Tensor& q, const torch::Tensor& k,
                               const torch::Tensor& v, const torch::Tensor& future) {
  const auto tokens = q.size(-2);
  const torch::Tensor scores =
      q.matmul(k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  const torch::Tensor weights =
      torch::softmax(scores.masked_fill(future.slice(0, 0, tokens).slice(1, 0, tokens),
                                        -std::numeric_limits<double>::infinity()),
                     -1);
  return weights.matmul(v);
}

// Causal multi-head attention of x [B, T, D] with one block's projections:
// Q, K and V split into heads [B, H, T, Dh], `position` applied to the
// queries and keys (RoPE, or nothing), attention, heads merged, projected.
// Q, K and V are recorded in that order, whatever the compiler's order of
// argument evaluation: the order fixes how autograd sums x's gradient.
template <class Position>
torch::Tensor multi_head_attention(const torch::Tensor& x, const Block& b, std::int64_t heads,
                                   const torch::Tensor& future, Position position) {
  const auto batch = x.size(0), tokens = x.size(1), width = x.size(2) / heads;
  const auto split = [&](const torch::Tensor& u) {
    return u.reshape({batch, tokens, heads, width}).transpose(1, 2);
  };
  const torch::Tensor q = position(split(x.matmul(b.query)));
  const torch::Tensor k = position(split(x.matmul(b.key)));
  const torch::Tensor v = split(x.matmul(b.value));
  return causal_attention(q, k, v, future)
      .transpose(1, 2)
      .reshape({batch, tokens, x.size(2)})
      .matmul(b.output);
}

torch::Tensor tied_loss(const torch::Tensor& hidden, const torch::Tensor& embedding,
                        const torch::Tensor& targets) {
  const torch::Tensor logits = hidden.matmul(embedding.t());  // [B, T, V]
  return torch::nn::functional::cross_entropy(logits.reshape({-1, logits.size(-1)}),
                                              targets.reshape({-1}));
}

// The chapter-32 decoder: token embedding E [V, D]; N pre-norm blocks
// (RMSNorm, causal multi-head attention with RoPE on adjacent pairs, residual;
// RMSNorm, SwiGLU, residual); a final RMSNorm; the tied head E^T. No biases.
class AnchorDecoder : public AnchorModel {
 public:
  AnchorDecoder(const llm::TrainRunConfig& config, std::size_t vocabulary, torch::ScalarType dtype,
                const std::string& init)
      : config_(config) {
    Initializer draw{init, llm::SplitMix64(config.init_seed), dtype, config.layers};
    const std::size_t d = config.model_width, f = config.feed_forward_width;
    embedding_ = draw.matrix(vocabulary, d);  // V * D draws first, as DecoderModel draws them
    for (std::size_t layer = 0; layer < config.layers; ++layer) {
      Block block = attention_block(draw, d);
      block.gate = draw.matrix(d, f);
      block.up = draw.matrix(d, f);
      block.down = draw.matrix(f, d, true);
      blocks_.push_back(block);
    }
    final_gain_ = draw.ones(d);
    // RoPE's tables in double, then the run's type: angle t * base^(-2p / Dh).
    const std::size_t head_width = d / config.heads, pairs = head_width / 2;
    std::vector<double> cosines, sines;
    for (std::size_t t = 0; t < config.context; ++t) {
      for (std::size_t p = 0; p < pairs; ++p) {
        const double frequency = std::pow(
            config.rope_base, -2.0 * static_cast<double>(p) / static_cast<double>(head_width));
        cosines.push_back(std::cos(static_cast<double>(t) * frequency));
        sines.push_back(std::sin(static_cast<double>(t) * frequency));
      }
    }
    const auto t = static_cast<std::int64_t>(config.context);
    const auto p = static_cast<std::int64_t>(pairs);
    cosines_ = torch::tensor(cosines, torch::kFloat64).reshape({t, p}).to(dtype);
    sines_ = torch::tensor(sines, torch::kFloat64).reshape({t, p}).to(dtype);
    future_ = torch::ones({t, t}, torch::kBool).triu(1);
  }

  // Parameters that decay (matrices) and that do not (gains), as nanoGPT's
  // configure_optimizers splits them (dim >= 2).
  std::vector<torch::Tensor> matrices() const override {
    std::vector<torch::Tensor> result{embedding_};
    for (const Block& b : blocks_) {
      for (const auto& m : {b.query, b.key, b.value, b.output, b.gate, b.up, b.down})
        result.push_back(m);
    }
    return result;
  }

  // The mean next-token NLL of `targets` [B, T] given `inputs` [B, T].
  torch::Tensor loss(const torch::Tensor& inputs, const torch::Tensor& targets) const override {
    torch::Tensor x = torch::embedding(embedding_, inputs);  // [B, T, D]
    for (const Block& b : blocks_) {
      x = x + attention(rms_norm(x, b.attention_gain), b);
      x = x + feed_forward(rms_norm(x, b.feed_forward_gain), b);
    }
    return tied_loss(rms_norm(x, final_gain_), embedding_, targets);
  }

 private:
  torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& gain) const {
    return x * torch::rsqrt(x.pow(2).mean(-1, true) + config_.rms_epsilon) * gain;
  }

  // Turns each adjacent pair (x_2p, x_2p+1) of every head by t * w_p.
  torch::Tensor rotate(const torch::Tensor& x) const {  // [B, H, T, Dh]
    const auto sizes = x.sizes().vec();
    const torch::Tensor pairs = x.reshape({sizes[0], sizes[1], sizes[2], sizes[3] / 2, 2});
    const torch::Tensor a = pairs.select(-1, 0), b = pairs.select(-1, 1);
    const torch::Tensor c = cosines_.slice(0, 0, sizes[2]), s = sines_.slice(0, 0, sizes[2]);
    return torch::stack({a * c - b * s, a * s + b * c}, -1).reshape(sizes);
  }

  torch::Tensor attention(const torch::Tensor& x, const Block& b) const {
    return multi_head_attention(x, b, static_cast<std::int64_t>(config_.heads), future_,
                                [this](const torch::Tensor& u) { return rotate(u); });
  }

  torch::Tensor feed_forward(const torch::Tensor& x, const Block& b) const {
    return (torch::silu(x.matmul(b.gate)) * x.matmul(b.up)).matmul(b.down);
  }

  llm::TrainRunConfig config_;
  torch::Tensor embedding_;
  torch::Tensor cosines_, sines_, future_;
};

// nanoGPT's model.py at this configuration, for comparison: learned
// position embeddings P [T, D] added to the token embeddings; blocks of
// LayerNorm (no bias, epsilon 1e-5), causal attention (no RoPE), LayerNorm,
// MLP 4D with exact GELU; a final LayerNorm; the tied head. Normal(0, 0.02)
// initialization, the two residual projections 0.02 / sqrt(2N).
class Gpt2Decoder : public AnchorModel {
 public:
  Gpt2Decoder(const llm::TrainRunConfig& config, std::size_t vocabulary, torch::ScalarType dtype)
      : config_(config) {
    Initializer draw{"gpt2", llm::SplitMix64(config.init_seed), dtype, config.layers};
    const std::size_t d = config.model_width;
    embedding_ = draw.matrix(vocabulary, d);
    positions_ = draw.matrix(config.context, d);
    for (std::size_t layer = 0; layer < config.layers; ++layer) {
      Block block = attention_block(draw, d);
      block.up = draw.matrix(d, 4 * d);
      block.down = draw.matrix(4 * d, d, true);
      blocks_.push_back(block);
    }
    final_gain_ = draw.ones(d);
    const auto t = static_cast<std::int64_t>(config.context);
    future_ = torch::ones({t, t}, torch::kBool).triu(1);
  }

  std::vector<torch::Tensor> matrices() const override {
    std::vector<torch::Tensor> result{embedding_, positions_};
    for (const Block& b : blocks_) {
      for (const auto& m : {b.query, b.key, b.value, b.output, b.up, b.down}) result.push_back(m);
    }
    return result;
  }

  torch::Tensor loss(const torch::Tensor& inputs, const torch::Tensor& targets) const override {
    const auto tokens = inputs.size(1);
    torch::Tensor x = torch::embedding(embedding_, inputs) + positions_.slice(0, 0, tokens);
    for (const Block& b : blocks_) {
      x = x + attention(layer_norm(x, b.attention_gain), b);
      x = x + torch::gelu(layer_norm(x, b.feed_forward_gain).matmul(b.up)).matmul(b.down);
    }
    return tied_loss(layer_norm(x, final_gain_), embedding_, targets);
  }

 private:
  static torch::Tensor layer_norm(const torch::Tensor& x, const torch::Tensor& gain) {
    return torch::layer_norm(x, {x.size(-1)}, gain, {}, 1e-5);
  }

  torch::Tensor attention(const torch::Tensor& x, const Block& b) const {
    return multi_head_attention(x, b, static_cast<std::int64_t>(config_.heads), future_,
                                [](const torch::Tensor& u) { return u; });
  }

  llm::TrainRunConfig config_;
  torch::Tensor embedding_, positions_;
  torch::Tensor future_;
};

// ---------------------------------------------------------------- data

torch::Tensor ids_tensor(const std::vector<llm::TokenId>& ids, std::size_t batch,
                         std::size_t context) {
  std::vector<std::int64_t> wide(ids.begin(), ids.end());
  return torch::tensor(wide, torch::kInt64)
      .reshape({static_cast<std::int64_t>(batch), static_cast<std::int64_t>(context)});
}

// The model's mean loss on one batch of windows.
torch::Tensor batch_loss(const AnchorModel& model, const llm::WindowBatch& batch) {
  return model.loss(ids_tensor(batch.inputs, batch.batch, batch.context),
                    ids_tensor(batch.targets, batch.batch, batch.context));
}

// The mean of the batches' mean losses (nanoGPT's estimate_loss), no graph.
double mean_loss(const AnchorModel& model, const std::vector<llm::WindowBatch>& batches) {
  torch::NoGradGuard no_grad;
  double sum = 0;
  for (const llm::WindowBatch& b : batches) {
    sum += batch_loss(model, b).item<double>();
  }
  return sum / static_cast<double>(batches.size());
}

// Every tiling window of a partition, in batches of at most `batch` rows;
// the token-weighted mean loss.
double full_pass_loss(const AnchorModel& model, std::span<const llm::TokenId> tokens,
                      std::size_t batch, std::size_t context) {
  torch::NoGradGuard no_grad;
  const std::vector<std::size_t> offsets = llm::tiling_offsets(tokens.size(), context);
  double sum = 0;
  for (std::size_t start = 0; start < offsets.size(); start += batch) {
    const std::size_t rows = std::min(batch, offsets.size() - start);
    const llm::WindowBatch b = llm::windows_at(
        tokens, std::span<const std::size_t>(offsets).subspan(start, rows), context);
    sum += batch_loss(model, b).item<double>() * static_cast<double>(rows);
  }
  return sum / static_cast<double>(offsets.size());
}

std::vector<llm::WindowBatch> fixed_batches(std::span<const llm::TokenId> tokens,
                                            const llm::TrainRunConfig& config, std::uint64_t seed) {
  llm::SplitMix64 generator(seed);
  std::vector<llm::WindowBatch> batches;
  for (std::size_t i = 0; i < config.eval_batches; ++i) {
    batches.push_back(llm::sample_windows(tokens, config.batch_size, config.context, generator));
  }
  return batches;
}

}  // namespace

int main(int argc, char** argv) try {
  const Options options = parse_options(argc, argv);
  llm::TrainRunConfig config;
  if (!options.config_path.empty()) {
    std::ifstream file(options.config_path);
    if (!file) usage("cannot read --config " + options.config_path);
    std::stringstream text;
    text << file.rdbuf();
    config = llm::TrainRunConfig::from_json(text.str(), options.config_path);
  }
  const torch::ScalarType dtype = options.dtype == "float32" ? torch::kFloat32 : torch::kFloat64;
  at::set_num_interop_threads(1);
  at::set_num_threads(options.threads);
  const int openblas_threads = set_openblas_threads(options.blas_threads);

  // The data, exactly as `make train` reads it.
  const std::string text = llm::read_verified_text(options.data, llm::kTinyShakespeare);
  const llm::ByteVocabulary vocabulary = llm::ByteVocabulary::from_text(text);
  const llm::TextSplit split = llm::split_at_fraction(text, config.train_fraction);
  const std::vector<llm::TokenId> train = vocabulary.encode(split.train);
  const std::vector<llm::TokenId> validation = vocabulary.encode(split.validation);
  const auto eval_train = fixed_batches(train, config, config.eval_seed);
  const auto eval_validation = fixed_batches(validation, config, config.eval_seed + 1);

  torch::manual_seed(0);  // nothing here draws from torch's generator; fixed anyway
  std::unique_ptr<AnchorModel> owned;
  if (options.architecture == "chapter32") {
    owned = std::make_unique<AnchorDecoder>(config, vocabulary.size(), dtype, options.init);
  } else {
    owned = std::make_unique<Gpt2Decoder>(config, vocabulary.size(), dtype);
  }
  const AnchorModel& model = *owned;
  std::int64_t parameter_count = 0;
  for (const auto& group : {model.matrices(), model.gains()}) {
    for (const torch::Tensor& p : group) parameter_count += p.numel();
  }
  std::vector<torch::optim::OptimizerParamGroup> groups;
  auto group_options = [&](double decay) {
    return std::make_unique<torch::optim::AdamWOptions>(
        torch::optim::AdamWOptions(config.learning_rate)
            .betas({config.beta1, config.beta2})
            .eps(config.adam_epsilon)
            .weight_decay(decay));
  };
  groups.emplace_back(model.matrices(), group_options(config.weight_decay));
  groups.emplace_back(model.gains(), group_options(0.0));
  torch::optim::AdamW optimizer(groups, torch::optim::AdamWOptions(config.learning_rate));
  std::vector<torch::Tensor> all_parameters = model.matrices();
  for (const torch::Tensor& g : model.gains()) all_parameters.push_back(g);

  Json log = {{"program", "llm-train-anchor"},
              {"dtype", options.dtype},
              {"threads", options.threads},
              {"openblas_threads", openblas_threads},
              {"init", options.architecture == "gpt2" ? "gpt2" : options.init},
              {"architecture", options.architecture},
              {"torch_version", TORCH_VERSION},
              {"torch_parallel_info", at::get_parallel_info()},
              {"cpu_model_name", llm::cpuinfo_field("model name")},
              {"cpu_family", llm::cpuinfo_field("cpu family")},
              {"cpu_model", llm::cpuinfo_field("model")},
              {"openblas_core", openblas_core()},
              {"load_average_start", load_average()},
              {"config", Json::parse(config.to_json())},
              {"vocabulary_size", vocabulary.size()},
              {"train_tokens", train.size()},
              {"validation_tokens", validation.size()},
              {"parameters", parameter_count},
              {"tokens_per_iteration", config.batch_size * config.context}};
  std::cerr << "llm-train-anchor: " << options.architecture << ", " << options.dtype << ", "
            << options.threads << " thread(s), init "
            << (options.architecture == "gpt2" ? "gpt2" : options.init) << ", " << parameter_count
            << " parameters, " << config.iterations << " iterations of " << config.batch_size
            << " x " << config.context << " tokens\n";

  llm::SplitMix64 data_generator(config.data_seed);
  llm::RunClocks training{}, evaluation{};
  Json train_log = Json::array(), evaluations = Json::array();
  const auto evaluate = [&](std::size_t iteration) {
    const llm::RunClocks start = llm::RunClocks::now();
    const double train_loss = mean_loss(model, eval_train);
    const double validation_loss = mean_loss(model, eval_validation);
    evaluation += llm::RunClocks::now() - start;
    evaluations.push_back({{"iteration", iteration},
                           {"train_loss", train_loss},
                           {"validation_loss", validation_loss},
                           {"training_wall_seconds", training.wall},
                           {"load_average", load_average()}});
    std::fprintf(stderr, "step %zu: train loss %.4f, val loss %.4f\n", iteration, train_loss,
                 validation_loss);
  };
  const double tokens_per_iteration = static_cast<double>(config.batch_size * config.context);
  for (std::size_t iteration = 0; iteration < config.iterations; ++iteration) {
    if (iteration % config.eval_interval == 0) evaluate(iteration);
    const double rate = config.learning_rate_at(iteration);
    for (auto& group : optimizer.param_groups()) {
      static_cast<torch::optim::AdamWOptions&>(group.options()).lr(rate);
    }
    const llm::RunClocks start = llm::RunClocks::now();
    const llm::WindowBatch batch =
        llm::sample_windows(train, config.batch_size, config.context, data_generator);
    const torch::Tensor loss = batch_loss(model, batch);
    optimizer.zero_grad();
    loss.backward();
    double norm = 0;
    if (config.gradient_clip > 0) {
      norm = torch::nn::utils::clip_grad_norm_(all_parameters, config.gradient_clip);
    }
    optimizer.step();
    const double loss_value = loss.item<double>();
    training += llm::RunClocks::now() - start;
    if (iteration % config.log_interval == 0 || iteration + 1 == config.iterations) {
      train_log.push_back({{"iteration", iteration},
                           {"loss", loss_value},
                           {"learning_rate", rate},
                           {"gradient_norm", norm},
                           {"training_wall_seconds", training.wall}});
      const double per_second =
          tokens_per_iteration * static_cast<double>(iteration + 1) / training.wall;
      const double eta = training.wall / static_cast<double>(iteration + 1) *
                         static_cast<double>(config.iterations - iteration - 1);
      std::fprintf(stderr, "iter %zu/%zu: loss %.4f, lr %.2e, %.0f tok/s, ETA %s\n", iteration,
                   config.iterations, loss_value, rate, per_second,
                   llm::duration_text(eta).c_str());
    }
  }
  evaluate(config.iterations);
  const llm::RunClocks start = llm::RunClocks::now();
  const double validation_full =
      full_pass_loss(model, validation, config.batch_size, config.context);
  const llm::RunClocks full_pass = llm::RunClocks::now() - start;
  const double tokens = tokens_per_iteration * static_cast<double>(config.iterations);
  log["train_log"] = train_log;
  log["evaluations"] = evaluations;
  log["final"] = {{"iteration", config.iterations},
                  {"validation_loss_estimate", evaluations.back()["validation_loss"]},
                  {"train_loss_estimate", evaluations.back()["train_loss"]},
                  {"validation_loss_full_pass", validation_full},
                  {"validation_full_pass_windows",
                   llm::tiling_offsets(validation.size(), config.context).size()},
                  {"training", clocks_json(training)},
                  {"evaluation", clocks_json(evaluation)},
                  {"full_pass", clocks_json(full_pass)},
                  {"tokens_per_second_wall", tokens / training.wall},
                  {"tokens_per_second_process_cpu", tokens / training.process_cpu},
                  {"milliseconds_per_iteration_wall",
                   1e3 * training.wall / static_cast<double>(config.iterations)}};
  log["load_average_end"] = load_average();
  std::fprintf(stderr,
               "final: val loss %.4f (estimate, %zu batches), %.4f (full pass, %zu windows); "
               "training %s wall, %.1f s thread CPU, %.1f s process CPU, %.0f tok/s (wall); "
               "load %s\n",
               log["final"]["validation_loss_estimate"].get<double>(), config.eval_batches,
               validation_full, log["final"]["validation_full_pass_windows"].get<std::size_t>(),
               llm::duration_text(training.wall).c_str(), training.thread_cpu, training.process_cpu,
               tokens / training.wall, load_average().dump().c_str());
  if (!options.log_path.empty()) {
    std::ofstream(options.log_path) << log.dump(2) << "\n";
    std::cerr << "log: " << options.log_path << "\n";
  }
  return 0;
} catch (const std::exception& error) {
  std::cerr << "llm-train-anchor: " << error.what() << "\n";
  return 1;
}
