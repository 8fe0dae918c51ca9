// The model operations that move whole rows and matrices, each beside its VJP:
// the checked row gather (token IDs select embedding rows) and the batched
// matrix product (projections). Taught in chapter 16.
//
// Both extend the chapter 15 tape through record_operation(): no second graph, no second
// reverse pass. The row gather validates its request once into a
// RowGatherPlan; the forward copy and the reverse scatter-add consume that
// plan instead of scanning the raw selectors again.
#include "llm/autograd/model_ops.hpp"

#include <algorithm>
#include <cassert>
#include <memory>
#include <utility>

#include "llm/autograd/recorder.hpp"
#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/matmul.hpp"

namespace llm {

// region: model-row-gather-plan
RowGatherPlan RowGatherPlan::checked(const Shape& table_shape, IndexSpan ids,
                                     const Shape& index_shape) {
  if (table_shape.size() != 2) {
    throw ModelOpError(ModelOpErrorKind::GatherTableRank,
                       {.rank = table_shape.size(), .shape = table_shape});
  }
  const std::size_t positions = element_count(index_shape);  // ShapeOverflow if it cannot count
  if (ids.size() != positions) {
    throw ModelOpError(ModelOpErrorKind::GatherIndexCountMismatch,
                       {.expected = positions, .actual = ids.size()});
  }
  const std::size_t rows = table_shape[0];
  for (std::size_t position = 0; position < ids.size(); ++position) {
    if (ids[position] >= rows) {
      throw ModelOpError(ModelOpErrorKind::GatherIndexOutOfBounds,
                         {.position = position, .index = ids[position], .rows = rows});
    }
  }
  // Only a fully valid request earns an output shape: index_shape + [D].
  Shape output_shape = index_shape;
  output_shape.push_back(table_shape[1]);
  const std::size_t output_size = element_count(output_shape);
  std::vector<std::size_t> selectors(ids.size());  // the plan's own copy, whatever the ID width
  for (std::size_t position = 0; position < ids.size(); ++position)
    selectors[position] = ids[position];
  return RowGatherPlan(std::move(selectors), index_shape, table_shape, std::move(output_shape),
                       output_size);
}

RowGatherPlan::RowGatherPlan(std::vector<std::size_t> ids, Shape index_shape, Shape table_shape,
                             Shape output_shape, std::size_t output_size)
    : ids_(std::move(ids)),
      index_shape_(std::move(index_shape)),
      table_shape_(std::move(table_shape)),
      output_shape_(std::move(output_shape)),
      output_size_(output_size) {}
// endregion: model-row-gather-plan

namespace {

// The forward row copy. The plan guarantees every selector is below R for a
// table of exactly plan.table_shape(), so nothing is checked again here.
Tensor copy_selected_rows(const TensorView& table, const RowGatherPlan& plan) {
  assert(table.shape() == plan.table_shape());
  const std::size_t width = plan.width();
  Tensor rows = kernel_output(plan.output_shape());  // every row is copied below
  MutableTensorView destination = rows.mutable_view().reshape({plan.ids().size(), width});
  for (std::size_t position = 0; position < plan.ids().size(); ++position) {
    const std::size_t row = plan.ids()[position];
    destination.slice(0, position, position + 1).copy_from(table.slice(0, row, row + 1));
  }
  return rows;
}

// `product` summed over the batch axes its operand was broadcast along;
// moved, not copied, when nothing was broadcast.
SharedTensor summed_to(Tensor product, const Shape& shape) {
  if (product.shape() == shape) return product;
  return sum_to_shape(product, shape);
}

}  // namespace

// region: model-row-gather-operation
TensorValue TensorValue::gather_rows(IndexSpan ids, const Shape& index_shape) const {
  // Saved context: the plan itself, selectors and shapes sealed by checked().
  auto plan =
      std::make_shared<const RowGatherPlan>(RowGatherPlan::checked(shape(), ids, index_shape));
  const SharedTensor table = value();
  Tensor rows = copy_selected_rows(table, *plan);  // independent copies: no aliasing of the table
  // endregion: model-row-gather-operation
  // region: model-row-gather-vjp
  // d/dE[i, :] = sum over occurrences p with ids[p] = i of upstream[p, :]
  auto scatter_add = [plan](const SharedTensor& upstream) {
    assert(upstream.shape() == plan->output_shape());
    const std::size_t width = plan->width();
    Tensor table_gradient = Tensor::zeros(plan->table_shape());
    const SharedTensor rows = upstream.contiguous();  // one row-major block of occurrences
    const std::span<const double> occurrence = rows.contiguous_values();
    const std::span<double> destination = table_gradient.mutable_values();
    for (std::size_t position = 0; position < plan->ids().size(); ++position) {
      const std::size_t row = plan->ids()[position];
      for (std::size_t feature = 0; feature < width; ++feature) {
        // Repeated IDs meet here and add up; no extra mean is applied.
        destination[row * width + feature] += occurrence[position * width + feature];
      }
    }
    return SharedTensor(std::move(table_gradient));
  };
  return record_operation(TensorOperation::GatherRows, std::move(rows),
                          {*this, {"scatter-add rows by id", std::move(scatter_add)}});
}
// endregion: model-row-gather-vjp

// region: model-matmul
TensorValue TensorValue::matmul(const TensorValue& other) const {
  // Saved context: both operand values, shared with their nodes, not copied.
  const SharedTensor left = value();
  const SharedTensor right = other.value();
  Tensor product = llm::matmul(left, right);
  // region: model-matmul-vjp
  // d(AB)/dA: dA = dC B^T (B^T a strided view), summed over the batch axes A was broadcast along
  auto left_rule = [right, shape = left.shape()](const SharedTensor& upstream) {
    return summed_to(llm::matmul(upstream, right.view().matrix_transpose()), shape);
  };
  // d(AB)/dB: dB = A^T dC (A^T a strided view), summed over the batch axes B was broadcast along.
  // A weight [K, N] shared by every batch folds those batch axes into rows: one product
  // whose sums run over (batch, row) in row-major order, instead of a product per batch.
  auto right_rule = [left, shape = right.shape()](const SharedTensor& upstream) {
    if (shape.size() == 2 && left.rank() > 2 && shape[0] > 0 && shape[1] > 0) {
      const SharedTensor rows = left.contiguous().reshape({left.size() / shape[0], shape[0]});
      const SharedTensor upstream_rows =
          upstream.contiguous().reshape({upstream.size() / shape[1], shape[1]});
      return SharedTensor(llm::matmul(rows.view().matrix_transpose(), upstream_rows));
    }
    return summed_to(llm::matmul(left.view().matrix_transpose(), upstream), shape);
  };
  // endregion: model-matmul-vjp
  return record_operation(
      TensorOperation::MatMul, std::move(product),
      {*this, {"upstream times right^T, sum to left shape", std::move(left_rule)}},
      {other, {"left^T times upstream, sum to right shape", std::move(right_rule)}});
}
// endregion: model-matmul

}  // namespace llm
