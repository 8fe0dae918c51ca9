// Global-norm gradient clipping (chapter 33).
#include "llm/training/gradient_clipping.hpp"

#include <cmath>

namespace llm {

// region: clip-gradient-norm
GradientClip clip_gradient_norm(const ParameterSet& parameters, double max_norm) {
  if (!std::isfinite(max_norm) || max_norm <= 0.0) {
    throw TrainingError(TrainingErrorKind::InvalidMaximumNorm, {.value = max_norm});
  }
  const GradientNorm norm = parameters.gradient_norm();
  GradientClip clip{norm.value, norm.value, false, 1.0, 1.0};
  // norm <= max_norm, asked as largest <= max_norm / root so nothing overflows.
  if (norm.largest == 0.0 || norm.largest <= max_norm / norm.scaled_root) return clip;

  const double multiplier = max_norm / norm.scaled_root;
  if (multiplier == 0.0) {
    throw TrainingError(TrainingErrorKind::UnrepresentableClip,
                        {.value = max_norm, .scaled_root = norm.scaled_root});
  }
  const double factor = max_norm / norm.largest / norm.scaled_root;  // c / norm, in two roundings
  if (factor > 0.0) {
    parameters.scale_gradients(factor);
    clip.multiplier = factor;
  } else {  // c / norm underflows: divide by the largest element first
    parameters.scale_gradients(multiplier, norm.largest);
    clip.multiplier = multiplier;
    clip.divisor = norm.largest;
  }
  clip.clipped = true;
  clip.norm_after = max_norm;
  return clip;
}
// endregion: clip-gradient-norm

}  // namespace llm
