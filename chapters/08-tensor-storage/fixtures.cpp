// The worked tensor and the model-shaped stand-ins of chapter 8.
#include "fixtures.hpp"

namespace ch08 {

// region: model-shape-stand-ins
std::vector<NamedTensor> model_shape_fixture() {
  // Toy sizes: V = 5 words, m = 3 features per word, a context of 2 words and
  // h = 4 hidden units give C [V, m], H [h, 2m] and U [V, h]. T = 2 tokens and
  // a head width of 3 give Q, K and V [T, width], and two heads [2, T, width].
  std::vector<NamedTensor> tensors;
  tensors.push_back({"toy Bengio C", llm::Tensor::zeros({5, 3})});
  tensors.push_back({"toy Bengio H", llm::Tensor::zeros({4, 6})});
  tensors.push_back({"toy Bengio U", llm::Tensor::zeros({5, 4})});
  tensors.push_back({"toy Transformer Q (one head)", llm::Tensor::zeros({2, 3})});
  tensors.push_back({"toy Transformer K (one head)", llm::Tensor::zeros({2, 3})});
  tensors.push_back({"toy Transformer V (one head)", llm::Tensor::zeros({2, 3})});
  tensors.push_back({"toy Transformer Q head stack", llm::Tensor::zeros({2, 2, 3})});
  return tensors;
}
// endregion: model-shape-stand-ins

// region: worked-tensor-fixture
llm::Tensor worked_tensor() {
  return llm::Tensor({2, 2, 3}, {10.0, 11.0, 12.0, 20.0, 21.0, 22.0,  //
                                 30.0, 31.0, 32.0, 40.0, 41.0, 42.0});
}
// endregion: worked-tensor-fixture

}  // namespace ch08
