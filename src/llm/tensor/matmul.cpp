// Batched matrix product: validate the shapes, then one [M, K] x [K, N]
// product per broadcast batch coordinate, each read through its strides.
#include "llm/tensor/matmul.hpp"

#include "llm/tensor/broadcast.hpp"
#include "llm/tensor/kernel_output.hpp"
#include "llm/tensor/matmul_kernel.hpp"
#include "llm/tensor/parallel.hpp"

namespace llm {

namespace {

using matmul_detail::MatrixOperand;

// The validated shape of one product and the batch layout of each operand.
struct MatmulPlan {
  std::size_t rows = 0;     // M
  std::size_t depth = 0;    // K
  std::size_t columns = 0;  // N
  Shape batch;              // broadcast batch shape
  Strides left_batch;       // left's strides along `batch` (0 where it repeats)
  Strides right_batch;      // right's strides along `batch`
  Shape output;             // batch + [M, N]
};

// region: matmul-plan
// Ranks, inner extents, then the batch broadcast. A failing batch broadcast
// names the full operand shapes, with the axis counted from the right of the
// full result ([..., M, N]).
MatmulPlan plan_matmul(const TensorView& left, const TensorView& right) {
  const Shape& a = left.shape();
  const Shape& b = right.shape();
  if (a.size() < 2 || b.size() < 2)
    throw TensorError(TensorErrorKind::MatMulRank, {.shape = a, .other_shape = b});
  MatmulPlan plan;
  plan.rows = a[a.size() - 2];
  plan.depth = a.back();
  plan.columns = b.back();
  if (b[b.size() - 2] != plan.depth)
    throw TensorError(TensorErrorKind::MatMulInnerMismatch, {.shape = a, .other_shape = b});

  const Layout left_batch(Shape(a.begin(), a.end() - 2),
                          Strides(left.strides().begin(), left.strides().end() - 2), 0);
  const Layout right_batch(Shape(b.begin(), b.end() - 2),
                           Strides(right.strides().begin(), right.strides().end() - 2), 0);
  try {
    plan.batch = broadcast_shapes(left_batch.shape(), right_batch.shape());
  } catch (const TensorError& error) {
    if (error.kind() != TensorErrorKind::IncompatibleBroadcast) throw;
    throw TensorError(TensorErrorKind::IncompatibleBroadcast,
                      {.shape = a, .other_shape = b, .axis = error.axis() + 2});
  }
  plan.left_batch = left_batch.broadcast_to(plan.batch).strides();
  plan.right_batch = right_batch.broadcast_to(plan.batch).strides();
  plan.output = plan.batch;
  plan.output.push_back(plan.rows);
  plan.output.push_back(plan.columns);
  element_count(plan.output);
  return plan;
}
// endregion: matmul-plan

// The matrix of `view` whose first element is at storage offset `offset`.
MatrixOperand matrix_at(const TensorView& view, std::size_t offset) {
  const Strides& strides = view.strides();
  return {view.storage().data() + offset, strides[strides.size() - 2], strides.back()};
}

// Whether the batches of a product may run on several threads: the fast
// product's do (each batch is one thread's, so the bits do not change); the
// textbook reference stays a plain loop.
enum class Batches { InOrder, InParallel };

// region: matmul-batches
// Whether every batch of left is the next M rows after the previous one and
// right is the same matrix for every batch: then the batch axes fold into M
// and one [batches * M, K] x [K, N] product replaces the loop over batches.
// Each output element still sums over its own K products only, so the bits
// do not change.
bool batches_fold_into_rows(const MatmulPlan& plan, const TensorView& left) {
  std::size_t expected = plan.rows * left.strides()[left.rank() - 2];
  for (std::size_t axis = plan.batch.size(); axis-- > 0;) {
    if (plan.batch[axis] == 1) continue;
    if (plan.right_batch[axis] != 0 || plan.left_batch[axis] != expected) return false;
    expected *= plan.batch[axis];
  }
  return true;
}

template <class MultiplyOne>
Tensor batched_product(const TensorView& left, const TensorView& right, MultiplyOne multiply,
                       Batches batches) {
  const MatmulPlan plan = plan_matmul(left, right);
  Tensor result = kernel_output(plan.output);  // every element is written below
  if (result.size() == 0) return result;
  double* out = result.mutable_values().data();
  const std::size_t matrix_size = plan.rows * plan.columns;
  if (batches_fold_into_rows(plan, left)) {
    multiply(plan.rows * element_count(plan.batch), plan.depth, plan.columns,
             matrix_at(left, left.offset()), matrix_at(right, right.offset()), out, plan.columns);
    return result;
  }
  const auto multiply_batch = [&](std::size_t batch) {
    // The batch's coordinate, read from its row-major index, gives where its
    // output and both operands start (a few divisions per matrix, not per value).
    std::size_t left_start = left.offset();
    std::size_t right_start = right.offset();
    std::size_t rest = batch;
    for (std::size_t axis = plan.batch.size(); axis-- > 0;) {
      const std::size_t coordinate = rest % plan.batch[axis];
      rest /= plan.batch[axis];
      left_start += coordinate * plan.left_batch[axis];
      right_start += coordinate * plan.right_batch[axis];
    }
    multiply(plan.rows, plan.depth, plan.columns, matrix_at(left, left_start),
             matrix_at(right, right_start), out + batch * matrix_size, plan.columns);
  };
  const std::size_t count = element_count(plan.batch);
  const double work = static_cast<double>(count) * static_cast<double>(plan.rows) *
                      static_cast<double>(plan.depth) * static_cast<double>(plan.columns);
  if (batches == Batches::InParallel &&
      work >= static_cast<double>(matmul_detail::kParallelMinimumWork)) {
    parallel_for(count, multiply_batch);  // each batch whole on one thread
  } else {
    for (std::size_t batch = 0; batch < count; ++batch) multiply_batch(batch);
  }
  return result;
}
// endregion: matmul-batches

// region: textbook-matmul
void textbook_product(std::size_t rows, std::size_t depth, std::size_t columns, MatrixOperand a,
                      MatrixOperand b, double* c, std::size_t c_row_stride) {
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < columns; ++j) {
      double sum = 0.0;
      for (std::size_t p = 0; p < depth; ++p) {
        sum += a.data[i * a.row_stride + p * a.column_stride] *
               b.data[p * b.row_stride + j * b.column_stride];
      }
      c[i * c_row_stride + j] = sum;
    }
  }
}
// endregion: textbook-matmul

}  // namespace

// region: batched-matmul
Tensor matmul(const TensorView& left, const TensorView& right) {
  return batched_product(left, right, matmul_detail::multiply_matrices, Batches::InParallel);
}
// endregion: batched-matmul

Tensor matmul_textbook(const TensorView& left, const TensorView& right) {
  return batched_product(left, right, textbook_product, Batches::InOrder);
}

}  // namespace llm
