// The evidence of the Part V operation errors as their messages print it.
#include "llm/autograd/decoder_op_error.hpp"

#include <span>

#include "llm/format.hpp"

namespace llm {

std::string DecoderOpErrorTraits::field_text(const Evidence& evidence, std::string_view field) {
  if (field == "shape") return shape_text(evidence.shape);
  if (field == "coordinate") return format_list(std::span<const std::size_t>(evidence.coordinate));
  if (field == "value") return format_shortest(evidence.value);
  if (field == "expected") return std::to_string(evidence.expected);
  if (field == "row") return std::to_string(evidence.row);
  if (field == "queries") return std::to_string(evidence.queries);
  if (field == "keys") return std::to_string(evidence.keys);
  if (field == "width") return std::to_string(evidence.width);
  if (field == "position") return std::to_string(evidence.position);
  if (field == "pair") return std::to_string(evidence.pair);
  if (field == "offset") return std::to_string(evidence.offset);
  if (field == "tokens") return std::to_string(evidence.tokens);
  if (field == "capacity") return std::to_string(evidence.capacity);
  error_detail::unknown_field(area, field);
}

}  // namespace llm
