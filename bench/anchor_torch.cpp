// libtorch on the same work in float64, single-threaded: the matrix
// products, the chapter-16 chain and the attention probe forward+backward.
// Built only when libtorch-dev is installed.
#if defined(LLM_BENCH_TORCH)
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_cases.hpp"
#include "decoder_cases.hpp"

namespace bench {
namespace {

torch::Tensor tensor_of(std::vector<double> values, std::vector<std::int64_t> shape) {
  return torch::tensor(values, torch::kFloat64).reshape(shape).clone();
}

torch::Tensor parameter(std::vector<std::int64_t> shape, std::uint64_t seed, double scale) {
  std::size_t count = 1;
  for (std::int64_t extent : shape) count *= static_cast<std::size_t>(extent);
  std::vector<double> values = sample_values(count, seed);
  for (double& value : values) value *= scale;
  return tensor_of(std::move(values), std::move(shape)).requires_grad_(true);
}

torch::Tensor indices(const std::vector<std::size_t>& values, std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> wide(values.begin(), values.end());
  return torch::tensor(wide, torch::kInt64).reshape(shape).clone();
}

void matmul_torch(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::size_t count = static_cast<std::size_t>(n * n);
  const torch::Tensor a = tensor_of(sample_values(count, 1), {n, n});
  const torch::Tensor b = tensor_of(sample_values(count, 2), {n, n});
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  set_flops(state, 2.0 * static_cast<double>(n * n * n));
}

void matmul_batched_torch(benchmark::State& state) {
  const auto batch = static_cast<std::int64_t>(kBatch);
  const auto n = static_cast<std::int64_t>(kBatchedSize);
  const torch::Tensor a =
      tensor_of(sample_values(kBatch * kBatchedSize * kBatchedSize, 3), {batch, n, n});
  const torch::Tensor b = tensor_of(sample_values(kBatchedSize * kBatchedSize, 4), {n, n});
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(torch::matmul(a, b));
  set_flops(state, 2.0 * static_cast<double>(batch * n * n * n));
}

void zero_grads(std::initializer_list<torch::Tensor> parameters) {
  for (const torch::Tensor& p : parameters) p.mutable_grad().zero_();
}

void chain_torch(benchmark::State& state, ChainSize size) {
  const auto b = static_cast<std::int64_t>(size.batch);
  const auto t = static_cast<std::int64_t>(size.time);
  const auto v = static_cast<std::int64_t>(size.vocabulary);
  const auto c = static_cast<std::int64_t>(size.channels);
  const auto h = static_cast<std::int64_t>(size.hidden);
  const torch::Tensor embeddings = parameter({v, c}, 11, 0.5);
  const torch::Tensor w1 = parameter({c, h}, 12, 0.2);
  const torch::Tensor w2 = parameter({h, v}, 13, 0.2);
  const torch::Tensor ids = indices(token_ids(size.batch * size.time, size.vocabulary, 0), {b, t});
  const torch::Tensor targets =
      indices(token_ids(size.batch * size.time, size.vocabulary, 1), {b * t});
  const auto step = [&] {
    const torch::Tensor logits =
        torch::matmul(torch::silu(torch::matmul(torch::embedding(embeddings, ids), w1)), w2);
    const torch::Tensor loss =
        torch::nll_loss(torch::log_softmax(logits.reshape({b * t, v}), 1), targets);
    loss.backward();
    zero_grads({embeddings, w1, w2});
  };
  step();
  for (auto _ : state) step();
}

void attention_torch(benchmark::State& state) {
  const AttentionSize size = kAttention;
  const auto b = static_cast<std::int64_t>(size.batch);
  const auto t = static_cast<std::int64_t>(size.time);
  const auto c = static_cast<std::int64_t>(size.channels);
  const auto heads = static_cast<std::int64_t>(size.heads);
  const std::int64_t d = c / heads;
  const torch::Tensor x = parameter({b, t, c}, 21, 1.0);
  const torch::Tensor wq = parameter({c, c}, 22, 0.1);
  const torch::Tensor wk = parameter({c, c}, 23, 0.1);
  const torch::Tensor wv = parameter({c, c}, 24, 0.1);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const auto split = [&](const torch::Tensor& u) {
    return u.reshape({b, t, heads, d}).transpose(1, 2);
  };
  const auto step = [&] {
    const torch::Tensor q = split(torch::matmul(x, wq));
    const torch::Tensor k = split(torch::matmul(x, wk));
    const torch::Tensor v = split(torch::matmul(x, wv));
    const torch::Tensor weights =
        torch::log_softmax(torch::matmul(q, k.transpose(2, 3)) * scale, 3).exp();
    const torch::Tensor loss =
        torch::matmul(weights, v).transpose(1, 2).contiguous().reshape({b * t * c}).sum();
    loss.backward();
    zero_grads({x, wq, wk, wv});
  };
  step();
  for (auto _ : state) step();
}

#if defined(LLM_BENCH_DECODER)
// The decoder of src/llm/models/ written with the PyTorch C++ frontend:
// token embedding, pre-norm blocks (RMSNorm, causal multi-head attention with
// rotary embeddings on adjacent pairs, SwiGLU), a final RMSNorm and the tied
// head, the mean NLL, AdamW with decay on the weights only. It starts from our
// model's initial values and our rotary tables.
class TorchDecoder {
 public:
  explicit TorchDecoder(const DecoderSize& size) : size_(size) {
    const llm::DecoderModel model = initial_decoder(size);
    for (InitialValue& value : initial_values(model)) {
      parameters_[value.name] =
          tensor_of(std::move(value.values), std::move(value.shape)).requires_grad_(true);
      (value.name.ends_with(".gain") ? no_decay_ : decay_).push_back(parameters_[value.name]);
    }
    const llm::RotaryTable& rotary = model.blocks().front().attention().rotary();
    const auto table = [&](const llm::SharedTensor& values) {
      const llm::Tensor dense = values.slice(0, 0, size.context).materialize();
      return tensor_of({dense.values().begin(), dense.values().end()},
                       {static_cast<std::int64_t>(size.context),
                        static_cast<std::int64_t>(size.width / size.heads / 2)});
    };
    cosines_ = table(rotary.cosines());
    sines_ = table(rotary.sines());
    epsilon_ = decoder_config(size).block.epsilon;
    const DecoderBatch batch = decoder_batch(size);
    ids_ = indices(batch.ids, {static_cast<std::int64_t>(size.batch),
                               static_cast<std::int64_t>(size.context)});
    targets_ = indices(batch.targets, {static_cast<std::int64_t>(size.batch * size.context)});
    const auto options = torch::optim::AdamWOptions(kLearningRate)
                             .betas({kBeta1, kBeta2})
                             .eps(kEpsilon)
                             .weight_decay(kWeightDecay);
    std::vector<torch::optim::OptimizerParamGroup> groups;
    groups.emplace_back(decay_, std::make_unique<torch::optim::AdamWOptions>(options));
    groups.emplace_back(no_decay_, std::make_unique<torch::optim::AdamWOptions>(
                                       torch::optim::AdamWOptions(options).weight_decay(0.0)));
    optimizer_ = std::make_unique<torch::optim::AdamW>(std::move(groups), options);
  }

  torch::Tensor loss() {
    const auto b = static_cast<std::int64_t>(size_.batch);
    const auto t = static_cast<std::int64_t>(size_.context);
    const auto v = static_cast<std::int64_t>(size_.vocabulary);
    torch::Tensor x = torch::embedding(at("token_embedding.weight"), ids_);
    for (std::size_t layer = 0; layer < size_.layers; ++layer) {
      const std::string prefix = "blocks." + std::to_string(layer) + ".";
      x = x + attention(rms_norm(x, at(prefix + "attention_norm.gain")), prefix + "attention.");
      const torch::Tensor h = rms_norm(x, at(prefix + "ffn_norm.gain"));
      x = x + torch::matmul(torch::silu(torch::matmul(h, at(prefix + "ffn.gate.weight"))) *
                                torch::matmul(h, at(prefix + "ffn.up.weight")),
                            at(prefix + "ffn.down.weight"));
    }
    const torch::Tensor logits =
        torch::matmul(rms_norm(x, at("final_norm.gain")), at("token_embedding.weight").t());
    return torch::nll_loss(torch::log_softmax(logits.reshape({b * t, v}), 1), targets_);
  }

  // One step: forward, backward, AdamW, zero-grad; the loss before the update.
  double step() {
    const torch::Tensor value = loss();
    value.backward();
    optimizer_->step();
    optimizer_->zero_grad();
    return value.item<double>();
  }

 private:
  const torch::Tensor& at(const std::string& name) { return parameters_.at(name); }

  torch::Tensor rms_norm(const torch::Tensor& x, const torch::Tensor& gain) const {
    return x * torch::rsqrt(x.pow(2).mean(-1, true) + epsilon_) * gain;
  }

  // [B, H, T, Dh]: pairs (2p, 2p + 1) turned by the angles of their positions.
  torch::Tensor rotate(const torch::Tensor& x) const {
    const torch::Tensor pairs = x.reshape({x.size(0), x.size(1), x.size(2), x.size(3) / 2, 2});
    const torch::Tensor a = pairs.select(4, 0);
    const torch::Tensor b = pairs.select(4, 1);
    return torch::stack({a * cosines_ - b * sines_, a * sines_ + b * cosines_}, 4)
        .reshape(x.sizes());
  }

  torch::Tensor attention(const torch::Tensor& x, const std::string& prefix) {
    const std::int64_t b = x.size(0), t = x.size(1), d = x.size(2);
    const auto heads = static_cast<std::int64_t>(size_.heads);
    const auto split = [&](const torch::Tensor& u) {
      return u.reshape({b, t, heads, d / heads}).transpose(1, 2);
    };
    const torch::Tensor q = rotate(split(torch::matmul(x, at(prefix + "query.weight"))));
    const torch::Tensor k = rotate(split(torch::matmul(x, at(prefix + "key.weight"))));
    const torch::Tensor v = split(torch::matmul(x, at(prefix + "value.weight")));
    const torch::Tensor scores =
        torch::matmul(q, k.transpose(2, 3)) / std::sqrt(static_cast<double>(d / heads));
    const torch::Tensor future =
        torch::ones({t, t}, torch::TensorOptions().dtype(torch::kBool)).triu(1);
    const torch::Tensor weights = torch::softmax(scores.masked_fill(future, -INFINITY), 3);
    const torch::Tensor merged = torch::matmul(weights, v).transpose(1, 2).reshape({b, t, d});
    return torch::matmul(merged, at(prefix + "output.weight"));
  }

  DecoderSize size_;
  std::map<std::string, torch::Tensor> parameters_;
  std::vector<torch::Tensor> decay_, no_decay_;
  torch::Tensor cosines_, sines_, ids_, targets_;
  double epsilon_ = 0.0;
  std::unique_ptr<torch::optim::AdamW> optimizer_;
};

void decoder_step_torch(benchmark::State& state, DecoderSize size) {
  TorchDecoder model(size);
  model.step();
  for (auto _ : state) benchmark::DoNotOptimize(model.step());
}

void decoder_forward_torch(benchmark::State& state, DecoderSize size) {
  TorchDecoder model(size);
  model.step();
  torch::NoGradGuard no_grad;
  for (auto _ : state) benchmark::DoNotOptimize(model.loss().item<double>());
}

void decoder_forward_backward_torch(benchmark::State& state, DecoderSize size) {
  TorchDecoder model(size);
  model.step();
  for (auto _ : state) model.loss().backward();
}

void decoder_step_threads_torch(benchmark::State& state, DecoderSize size) {
  at::set_num_threads(static_cast<int>(state.range(0)));
  TorchDecoder model(size);
  model.step();
  for (auto _ : state) benchmark::DoNotOptimize(model.step());
  at::set_num_threads(1);
}

const int registered_decoder = [] {
  register_decoder_benchmarks(
      "torch", {decoder_step_torch, decoder_forward_torch, decoder_forward_backward_torch,
                decoder_step_threads_torch});
  return 0;
}();
#endif

}  // namespace

BENCHMARK(matmul_torch)
    ->Name("matmul/torch")
    ->ArgsProduct({kMatmulSizes})
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(matmul_batched_torch)
    ->Name("matmul_batched/torch")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(chain_torch, book, kBookChain)
    ->Name("chain/torch/book")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(chain_torch, wide, kWideChain)
    ->Name("chain/torch/wide")
    ->Apply(repeated)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(attention_torch)->Name("attention/torch")->Apply(repeated)->Unit(benchmark::kMicrosecond);

}  // namespace bench

#endif

#if defined(LLM_BENCH_TORCH) && defined(LLM_BENCH_DECODER)
namespace bench {
std::vector<double> decoder_losses_torch(const DecoderSize& size) {
  TorchDecoder model(size);
  std::vector<double> losses;
  for (std::size_t k = 0; k < kComparedSteps; ++k) losses.push_back(model.step());
  return losses;
}
}  // namespace bench
#endif

#if defined(LLM_BENCH_TORCH)
namespace bench {
/// One intra-op and one inter-op thread, so libtorch is timed single-threaded.
void use_one_torch_thread() {
  at::set_num_threads(1);
  at::set_num_interop_threads(1);
}
}  // namespace bench
#endif
