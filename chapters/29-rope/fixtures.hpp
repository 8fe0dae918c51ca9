// The worked examples of chapter 29: one rotary table (width 4, base 100,
// room for 6 positions); a query and a key of three positions rotated at
// positions 0-2 and again at 3-5, with their norms and dot-product grids;
// a weighted loss reversed through both rotations; the single pair of the
// opening prediction; the shapes the operation accepts and the requests it
// refuses; and central differences of the rotation's gradients. Each
// returns plain data the demo prints and traces.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "demo_refusal.hpp"
#include "llm/autograd/decoder_op_error.hpp"
#include "llm/autograd/gradcheck.hpp"
#include "llm/autograd/tensor_value.hpp"
#include "llm/tensor/tensor.hpp"

namespace ch29 {

inline constexpr std::size_t kWidth = 4;     ///< D, the rotated feature width
inline constexpr std::size_t kCapacity = 6;  ///< positions 0 .. 5 in the table
inline constexpr std::size_t kTokens = 3;    ///< T, the positions of the worked query and key
inline constexpr std::size_t kShift = 3;     ///< the common offset of the shifted run
inline constexpr double kBase = 100.0;       ///< b, so w = [1, 0.1]

/// The printed query and key content, the same at every position.
inline constexpr std::array<double, kWidth> kRow = {1.0, 0.0, 1.0, 0.0};
/// The trace's second key content: unlike the query, so that the dot grid
/// is no longer symmetric and the sign of the offset n - m shows.
inline constexpr std::array<double, kWidth> kAsymmetricKeyRow = {0.0, 1.0, 1.0, 0.0};
/// The loss weights: L = sum(rotated query * kQueryUpstream) + sum(rotated key * kKeyUpstream).
inline constexpr std::array<double, kTokens* kWidth> kQueryUpstream = {
    1.0, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9};
inline constexpr std::array<double, kTokens* kWidth> kKeyUpstream = {
    -0.2, 0.4, 0.9, -0.6, 0.5, 1.1, -0.8, 0.3, 1.0, -0.9, 0.2, 0.7};

inline constexpr double kGradcheckStep = 1e-6;
inline constexpr double kGradcheckTolerance = 4e-6;
inline constexpr double kInvariantTolerance = 1e-12;  ///< norms and shifted grids agree to this

/// One query and one key of kTokens positions, rotated and reversed.
struct RotationEvidence {
  llm::Tensor inverse_frequencies;         ///< w [D/2]
  llm::Tensor angles;                      ///< t * w for t = 0 .. T-1, [T, D/2]
  llm::Tensor cosines, sines;              ///< the table's rows 0 .. T-1, [T, D/2]
  llm::Tensor query, key;                  ///< [T, D]
  llm::Tensor rotated_query, rotated_key;  ///< at positions 0 .. T-1
  llm::Tensor shifted_query, shifted_key;  ///< at positions kShift .. kShift+T-1
  std::vector<double> input_norms, rotated_norms, shifted_norms;  ///< |row| per position
  llm::Tensor dot_grid;          ///< [T, T]: rotated query row m . rotated key row n
  llm::Tensor shifted_dot_grid;  ///< the same at the shifted positions
  llm::Tensor query_upstream, key_upstream;
  double loss = 0.0;
  llm::Tensor query_gradient, key_gradient;
  bool position_zero_identity = false;  ///< row 0 rotated equals row 0, bit for bit
  bool norm_preserved = false;          ///< every norm within kInvariantTolerance of the input's
  bool common_shift_preserved = false;  ///< the two grids within kInvariantTolerance
  bool tape_finite = false;  ///< every value, adjoint and gradient of the reverse pass is finite
};
/// The query repeats `query_row` and the key `key_row` at every position.
RotationEvidence rotation_evidence(const std::array<double, kWidth>& query_row,
                                   const std::array<double, kWidth>& key_row);

/// The whole table, positions 0 .. kCapacity-1, for the figures.
struct TableEvidence {
  llm::Tensor inverse_frequencies, cosines, sines;
};
TableEvidence table_evidence();

/// The opening prediction: q = [1, 0] at position m, k = [0, 1] at position n,
/// one pair turning 1 radian per position.
struct PairDot {
  std::size_t query_position = 0, key_position = 0;
  std::vector<double> rotated_query, rotated_key;
  double dot = 0.0;
};
std::vector<PairDot> pair_evidence();

/// Output shapes of rotations the operation accepts.
struct ShapeEvidence {
  llm::Shape rank_three, rank_four, empty_leading, empty_tokens;
};
ShapeEvidence shape_evidence();

/// The requests the table and the operation refuse, each with its typed error.
struct RefusalEvidence {
  std::vector<demo::Rejection<llm::DecoderOpError>> refusals;  ///< in the printed order
  demo::Rejection<llm::TensorAutodiffError> released;          ///< rotating a released node
};
RefusalEvidence refusal_evidence();
/// The kinds refusal_evidence() must see, in its printed order.
inline constexpr std::array<llm::DecoderOpErrorKind, 7> kExpectedRefusals = {
    llm::DecoderOpErrorKind::RotaryZeroWidth,     llm::DecoderOpErrorKind::RotaryOddWidth,
    llm::DecoderOpErrorKind::RotaryInvalidBase,   llm::DecoderOpErrorKind::RotaryInputRank,
    llm::DecoderOpErrorKind::RotaryWidthMismatch, llm::DecoderOpErrorKind::RotaryPositionRange,
    llm::DecoderOpErrorKind::RotaryPositionRange};

/// Central differences of the loss in every query and key coordinate.
struct GradientCheckEvidence {
  llm::TensorGradientCheck query, key;
  bool passed = false;
};
GradientCheckEvidence gradient_check_evidence(const RotationEvidence& printed);

/// Whether two runs of rotation_evidence agree bit for bit.
bool rotation_replays_bitwise();

}  // namespace ch29
