// Global-norm gradient clipping (chapter 33; Pascanu, Mikolov and Bengio,
// 2013): when the L2 norm of all of a model's gradients together exceeds a
// threshold c, every gradient is multiplied by the same factor c / norm, so
// the direction of the whole update is kept and only its length is capped.
//
// The clip rescales the stored gradients in place through ParameterSet (no
// parameter's version changes), so the AdamW step that follows reads the
// clipped gradients like any others.
#pragma once

#include "llm/nn/parameter_set.hpp"
#include "llm/training/training_error.hpp"

namespace llm {

// region: gradient-clip-result
/// What one clip measured and did.
struct GradientClip {
  double norm_before = 0.0;  ///< the global norm before (DBL_MAX if it overflows a double)
  double norm_after = 0.0;   ///< max_norm when clipped (not remeasured), else norm_before
  bool clipped = false;      ///< whether the gradients were rescaled
  double multiplier = 1.0;   ///< every element g became (g / divisor) * multiplier
  double divisor = 1.0;      ///< 1, unless the factor multiplier / divisor would underflow

  /// Field-by-field equality.
  bool operator==(const GradientClip&) const = default;
};
// endregion: gradient-clip-result

// region: clip-gradient-norm-declaration
/// Measures the global gradient norm of `parameters` (ParameterSet::
/// gradient_norm: largest |g| times a scaled root r) and, when it exceeds
/// `max_norm`, rescales every gradient to norm max_norm: each g becomes
/// g * ((max_norm / largest) / r), or (g / largest) * (max_norm / r) when
/// that factor underflows. Below the threshold (largest <= max_norm / r,
/// compared without forming the norm) nothing changes.
/// @throws TrainingError InvalidMaximumNorm (max_norm not finite and > 0),
///         UnrepresentableClip (max_norm / r underflows to 0). On a throw
///         every gradient is unchanged.
GradientClip clip_gradient_norm(const ParameterSet& parameters, double max_norm);
// endregion: clip-gradient-norm-declaration

}  // namespace llm
