// The SwiGLU feed-forward block of a decoder: two bias-free projections of
// the same input, one through SiLU acting as a gate on the other, and a third
// projection back out. Taught in chapter 20.
//
//     a = x W_gate        u = x W_up          (both [..., hidden])
//     h = SiLU(a) * u                          (elementwise)
//     y = h W_down                             ([..., out])
//
// with SiLU(a) = a * sigmoid(a). Every operation reads one position's
// features only, so each position of a sequence is transformed on its own:
// changing the input at one position changes the output at that position
// and nowhere else.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "llm/autograd/tensor_value.hpp"
#include "llm/error.hpp"
#include "llm/nn/init.hpp"
#include "llm/nn/linear.hpp"
#include "llm/nn/parameter_set.hpp"

namespace llm {

// region: swiglu-errors
/// What a SwiGLU block rejected when it was assembled from three projections.
enum class SwiGluErrorKind {
  BiasNotAllowed,       ///< a projection has a bias; the block is bias-free
  InputWidthMismatch,   ///< gate and up read different input widths
  HiddenWidthMismatch,  ///< gate and up write different hidden widths
  DownWidthMismatch,    ///< down does not read the hidden width
};

/// The widths a SwiGluError compares; a kind leaves the others zero.
struct SwiGluErrorEvidence {
  std::size_t gate_width = 0;  ///< the gate's input (InputWidthMismatch) or output width
  std::size_t up_width = 0;    ///< the up projection's input or output width
  std::size_t down_width = 0;  ///< the down projection's input width (DownWidthMismatch)
};

/// The SwiGLU kinds of area `layer`: each kind's stable name and message, in enum order.
struct SwiGluErrorTraits {
  using Kind = SwiGluErrorKind;                      ///< the block's kinds
  using Evidence = SwiGluErrorEvidence;              ///< the widths that disagree
  static constexpr std::string_view area = "layer";  ///< Error::area()
  /// Each kind's stable name and message, in enum order.
  static constexpr std::array<ErrorKindSpec<Kind>, 4> kinds{{
      {Kind::BiasNotAllowed, "bias-not-allowed",
       "a SwiGLU projection has a bias; the block has none"},
      {Kind::InputWidthMismatch, "input-width-mismatch",
       "gate reads {gate_width} features, up reads {up_width}"},
      {Kind::HiddenWidthMismatch, "hidden-width-mismatch",
       "gate writes {gate_width} hidden features, up writes {up_width}"},
      {Kind::DownWidthMismatch, "down-width-mismatch",
       "down reads {down_width} features, the hidden width is {gate_width}"},
  }};
  /// A width as the message prints it.
  static std::string field_text(const Evidence& evidence, std::string_view field);
};

/// An error of chapter 20's block (area `layer`), thrown before the block
/// exists. An input the block cannot read is rejected by the gate
/// projection's LayerError (InputRank, InputWidthMismatch) before anything
/// is recorded.
class SwiGluError : public KindedError<SwiGluErrorTraits> {
 public:
  /// An error of `kind` about `evidence`; the fields `kind` does not use stay
  /// empty or zero. `throw SwiGluError(SwiGluErrorKind::..., {.field = value});`
  explicit SwiGluError(SwiGluErrorKind kind, SwiGluErrorEvidence evidence = {})
      : KindedError(kind, std::move(evidence)) {}
};
// endregion: swiglu-errors

/// Every node of one forward pass, for chapter 20's demo and its figures.
struct SwiGluPass {
  TensorValue gate_preactivation;  ///< a = x W_gate [..., hidden]
  TensorValue gate;                ///< SiLU(a) [..., hidden]
  TensorValue up;                  ///< u = x W_up [..., hidden]
  TensorValue product;             ///< h = SiLU(a) * u [..., hidden]
  TensorValue output;              ///< y = h W_down [..., out]
};

// region: swiglu-class
/// A bias-free SwiGLU feed-forward block. Copies share the three weights.
class SwiGlu {
 public:
  /// Assembles a block from three bias-free projections: gate and up
  /// [in, hidden], down [hidden, out].
  /// @throws SwiGluError BiasNotAllowed, InputWidthMismatch,
  ///         HiddenWidthMismatch, DownWidthMismatch, in that order.
  SwiGlu(Linear gate, Linear up, Linear down);

  /// A new block with Xavier-uniform weights drawn from `generator` in the
  /// order gate, up, down. On any throw the generator is unchanged.
  /// @throws LayerError ZeroInputWidth, ZeroOutputWidth (a width is 0).
  /// @throws ParameterError FanSumOverflow, ShapeProductOverflow (a width is absurd).
  /// @throws TensorError AllocationFailed.
  static SwiGlu initialized(std::size_t input_width, std::size_t hidden_width,
                            std::size_t output_width, SplitMix64& generator);

  /// y for an input [..., in]: [..., out]; a vector [in] gives [out] and an
  /// empty leading axis [0, in] gives [0, out].
  /// @throws LayerError InputRank, InputWidthMismatch (from the gate projection).
  TensorValue forward(const TensorValue& input) const;
  /// forward(), keeping every intermediate node.
  SwiGluPass forward_with_intermediates(const TensorValue& input) const;

  /// The gate projection [in, hidden], whose output goes through SiLU.
  const Linear& gate() const noexcept { return gate_; }
  /// The up projection [in, hidden], the values the gate scales.
  const Linear& up() const noexcept { return up_; }
  /// The down projection [hidden, out].
  const Linear& down() const noexcept { return down_; }
  /// in * hidden * 2 + hidden * out.
  std::size_t parameter_count() const noexcept;
  /// `gate.weight`, `up.weight`, `down.weight`; a model adds them under its prefix.
  ParameterSet parameters() const;

 private:
  Linear gate_;
  Linear up_;
  Linear down_;
};
// endregion: swiglu-class

}  // namespace llm
