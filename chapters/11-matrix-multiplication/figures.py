"""Figures of chapter 11, drawn from the demo's trace (``chapter-11-demo --trace``)
and from the committed benchmark runs (``docs/bench/bench-*.json``, one per
machine kind; each names its CPU, the microkernel our product chose on it and
the core OpenBLAS chose, so a new recording adds its machine to the page).

* :func:`cell_table` -- the row-by-column loop for one output cell, step by
  step, with the storage offset each factor is read from (``trace.cell``,
  ``trace.transpose``);
* :func:`batch_figure` -- which input batches each output batch reads
  (``trace.batch``);
* :func:`bits_table` -- the fast kernel, every microkernel of this CPU, and
  two loops that change the summation, compared bit for bit with the textbook
  loop (``trace.comparison``);
* :func:`errors_table` -- the refused products (``trace.errors``);
* :func:`speedup_figure` and :func:`speedup_table` -- GFLOP/s of the textbook
  loop, the blocked kernel, OpenBLAS and libtorch from one recorded
  ``make bench`` run (docs/performance.md names the command and the machines);
* :func:`machines_table` -- every recorded machine with its kernels and the
  ratio to OpenBLAS, which depends on the CPU.

No number is typed by hand: every one comes from the trace or the JSON.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, NamedTuple

from tools.figures import current, graphviz, matplotlib_svg, plain, shape_text, shortest, svg_figure, table

Trace = Mapping[str, Any]

ROOT = Path(__file__).resolve().parents[2]
BENCH_DIR = ROOT / "docs" / "bench"
BENCH_DOC = ROOT / "docs" / "performance.md"
#: What every recording's ``context`` must name (bench/bench_main.cpp writes them).
MACHINE_KEYS = ("cpu_model_name", "cpu_family", "cpu_model", "llm_microkernel", "openblas_core")
#: The four ways of multiplying the benchmark times, in the order they are drawn.
METHODS = ("textbook", "ours", "openblas", "torch")
METHOD_NAMES = {
    "textbook": "textbook i-j-k loop",
    "ours": "blocked kernel (llm::matmul)",
    "openblas": "OpenBLAS cblas_dgemm",
    "torch": "libtorch (float64)",
}
METHOD_STYLE = {
    "textbook": {"color": "#b3261e", "marker": "o"},
    "ours": {"color": "#336699", "marker": "s"},
    "openblas": {"color": "#4d8a3a", "marker": "^"},
    "torch": {"color": "#8a5a9e", "marker": "v"},
}


def nbsp_shape(shape: list[int]) -> str:
    """A shape that never wraps inside a table cell."""
    return shape_text(shape, "\u00a0")


def cell_table(trace: Trace) -> str:
    """One output cell of the worked product, one row per inner index k."""
    cell = trace["cell"]
    row, column = cell["row"], cell["column"]
    transposed = trace["transpose"]["cell_terms"]
    rows = []
    for term, through_view in zip(cell["terms"], transposed, strict=True):
        rows.append([
            f"{term['k']}",
            f"$A_{{{row},{term['k']}}} = {plain(term['left'])}$ at {term['left_offset']}",
            f"$W_{{{term['k']},{column}}} = {plain(term['right'])}$ at {term['right_offset']}",
            f"{through_view['right_offset']}",
            plain(term["product"]),
            plain(term["partial_sum"]),
        ])
    header = ["$k$", "left factor, offset in $A$", "right factor, offset in $W$",
              "offset in stored $W^{\\top}$", "product", "running sum"]
    return table(header, rows, f"The loop for $C_{{{row},{column}}}$: three products added in increasing $k$, "
                 "each factor read at its storage offset", "cell")


def batch_figure(trace: Trace) -> str:
    """Output batches with arrows from the left and right batches they read."""
    batch = trace["batch"]
    left_shape, right_shape = batch["left"]["shape"], batch["right"]["shape"]
    lines = [
        "digraph batches {",
        '  rankdir=LR; node [shape=box, style="rounded,filled", fontname="Helvetica", fontsize=11];',
        '  edge [color="#555555"];',
    ]
    left_rows = len(batch["left"]["values"]) // left_shape[0]
    for b in range(left_shape[0]):
        values = batch["left"]["values"][b * left_rows:(b + 1) * left_rows]
        lines.append(f'  left{b} [label="left batch {b}\\n{_matrix_text(values, left_shape[-1])}", fillcolor="#eef3fb"];')
    for b in range(right_shape[0]):
        values = batch["right"]["values"]
        lines.append(f'  right{b} [label="right batch {b}\\n{_matrix_text(values, right_shape[-1])}", fillcolor="#fdf1e6"];')
    for entry in batch["mapping"]:
        o = entry["output"]
        lines.append(f'  out{o} [label="output batch {o}\\n{_matrix_text(entry["values"], batch["product"]["shape"][-1])}", fillcolor="#e7f2e4"];')
        lines.append(f'  left{entry["left"]} -> out{o};')
        lines.append(f'  right{entry["right"]} -> out{o} [style=dashed, color="#b35c00"];')
    lines.append("}")
    mapping = "; ".join(f"output batch {e['output']} reads left batch {e['left']} and right batch {e['right']}"
                        for e in batch["mapping"])
    alt = (f"Left operand {shape_text(left_shape)} has two batches, right operand {shape_text(right_shape)} "
           f"has one; {mapping}, so one weight matrix serves both.")
    return graphviz("\n".join(lines),
                    f"Batch broadcasting: {shape_text(left_shape)} times {shape_text(right_shape)}; "
                    "the dashed arrows are the one right batch read twice", "batches", alt=alt)


def _matrix_text(values: list[float], width: int) -> str:
    rows = [values[start:start + width] for start in range(0, len(values), width)]
    return "\\n".join("  ".join(plain(value) for value in row) for row in rows)


def bits_table(trace: Trace) -> str:
    """Each way of multiplying the comparison matrices against the textbook loop."""
    comparison = trace["comparison"]
    rows = []
    for result in comparison["results"]:
        rows.append([result["method"], f"{result['equal_bits']} of {result['elements']}",
                     "0" if result["largest_difference"] == 0 else shortest(result["largest_difference"])])
    shape = f"[{comparison['rows']}, {comparison['depth']}] times [{comparison['depth']}, {comparison['columns']}]"
    return table(["method", "elements with the textbook's bits", "largest difference"], rows,
                 f"One {shape} product computed six ways on the machine that built this page", "bits")


def errors_table(trace: Trace) -> str:
    """The refused products: operands, error kind, our message and the printed line."""
    rows = []
    for error in trace["errors"]:
        rows.append([f"{nbsp_shape(error['left_shape'])} × {nbsp_shape(error['right_shape'])}",
                     f"`{error['kind']}`", error["message"], error["printed"]])
    return table(["operands", "kind", "`what()`", "printed line"], rows,
                 "The three refused products: the library's message, and the line the demo builds from the error's fields",
                 "errors")


class BenchRow(NamedTuple):
    """Minimum CPU time of one benchmark, as GFLOP/s."""

    method: str
    size: int
    microseconds: float
    gflops: float


class Recording(NamedTuple):
    """One committed ``make bench`` run and the machine it ran on."""

    path: Path
    cpu: str  #: ``AMD EPYC (family 26, model 2)``, from /proc/cpuinfo
    kernel: str  #: the microkernel llm::matmul chose on that CPU
    openblas_core: str  #: the core OpenBLAS chose (what OPENBLAS_VERBOSE=2 prints)
    date: str
    load: float
    rows: list[BenchRow]

    @property
    def name(self) -> str:
        """The file's path from the repository root."""
        return str(self.path.relative_to(ROOT))

    @property
    def machine(self) -> str:
        """The CPU and both kernels, the words every figure of this run carries."""
        return f"{self.cpu}, our {self.kernel} microkernel, OpenBLAS core {self.openblas_core}"


def _read_recording(path: Path) -> Recording:
    name = path.relative_to(ROOT)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{name}: cannot read the benchmark run: {error}") from error
    context = data.get("context", {})
    missing = [key for key in MACHINE_KEYS if not str(context.get(key, "")).strip()]
    if missing:
        raise ValueError(f"{name}: the run does not name {', '.join(missing)} in its context; "
                         "record it again with `make bench` (bench/bench_main.cpp writes them)")
    rows = []
    for entry in data.get("benchmarks", []):
        parts = entry.get("name", "").split("/")
        if entry.get("aggregate_name") != "min" or len(parts) != 4 or parts[0] != "matmul" or parts[1] not in METHODS:
            continue
        if entry.get("time_unit") != "us":
            raise ValueError(f"{name}: {entry['name']} is not timed in microseconds")
        size = int(parts[2])
        microseconds = float(entry["cpu_time"])
        rows.append(BenchRow(parts[1], size, microseconds, 2 * size**3 / microseconds / 1e3))
    for method in METHODS:
        if not any(row.method == method for row in rows):
            raise ValueError(f"{name}: no matmul/{method}/N minimum in the run")
    return Recording(path, f"{context['cpu_model_name']} (family {context['cpu_family']}, model {context['cpu_model']})",
                     context["llm_microkernel"], context["openblas_core"], context["date"][:10],
                     float(context["load_avg"][0]), sorted(rows, key=lambda row: (METHODS.index(row.method), row.size)))


def recordings() -> list[Recording]:
    """Every committed run, checked, in file-name order; adds them to the page's dependencies."""
    paths = sorted(BENCH_DIR.glob("bench-*.json"))
    current().dependencies.update({BENCH_DOC, BENCH_DIR, *paths})
    if not paths:
        raise ValueError(f"{BENCH_DIR.relative_to(ROOT)}: no recorded benchmark run (bench-*.json)")
    return [_read_recording(path) for path in paths]


def recording(index: int = 0) -> Recording:
    """Run ``index`` of :func:`recordings` (the first by default: the one the prose quotes)."""
    return recordings()[index]


def _gflops(rows: list[BenchRow], method: str, size: int) -> float | None:
    for row in rows:
        if row.method == method and row.size == size:
            return row.gflops
    return None


def speedup(method: str, size: int, run: Recording | None = None) -> str:
    """How many times faster the blocked kernel was than ``method`` at ``size``, one decimal."""
    run = run or recording()
    ours, other = _gflops(run.rows, "ours", size), _gflops(run.rows, method, size)
    if ours is None or other is None:
        raise ValueError(f"{run.name}: no {method} and ours timing at N = {size}")
    return f"{ours / other:.1f}"


def gflops(method: str, size: int, run: Recording | None = None) -> str:
    """GFLOP/s of ``method`` at ``size``, one decimal."""
    run = run or recording()
    value = _gflops(run.rows, method, size)
    if value is None:
        raise ValueError(f"{run.name}: no matmul/{method}/{size} in the run")
    return f"{value:.1f}"


def percent_of_openblas(size: int, run: Recording | None = None) -> str:
    """The blocked kernel's speed as a percentage of OpenBLAS's at ``size``: ``166 %``."""
    run = run or recording()
    ours, blas = _gflops(run.rows, "ours", size), _gflops(run.rows, "openblas", size)
    if ours is None or blas is None:
        raise ValueError(f"{run.name}: no ours and openblas timing at N = {size}")
    return f"{100 * ours / blas:.0f}\u00a0%"


def machines_table(size: int = 512) -> str:
    """One row per recorded machine: its CPU, both kernels and the ratio to OpenBLAS at ``size``."""
    body = [[f"{run.cpu}, `{run.path.stem}`", f"`{run.kernel}`", f"`{run.openblas_core}`", gflops("ours", size, run),
             gflops("openblas", size, run), percent_of_openblas(size, run)]
            for run in recordings()]
    return table(["CPU and recorded run", "our kernel", "OpenBLAS core", "ours", "OpenBLAS", "ours / OpenBLAS"], body,
                 f"GFLOP/s of the {size}\u00a0×\u00a0{size} product on every recorded machine (docs/bench/): "
                 "each library picks its kernel from what the CPU reports, so the ratio belongs to the CPU",
                 "machines")


def speedup_figure(run: Recording | None = None) -> str:
    """GFLOP/s against N for the four methods of one run, log-scaled."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = run or recording()
    rows = run.rows
    figure, axis = plt.subplots(figsize=(6.0, 3.4))
    for method in METHODS:
        points = [row for row in rows if row.method == method]
        axis.plot([row.size for row in points], [row.gflops for row in points], linewidth=1.5,
                  label=METHOD_NAMES[method], **METHOD_STYLE[method])
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    sizes = sorted({row.size for row in rows})
    axis.set_xticks(sizes)
    axis.set_xticklabels([str(size) for size in sizes])
    axis.set_xlabel("N (an [N, N] times [N, N] product)")
    axis.set_ylabel("GFLOP/s, one thread")
    axis.grid(True, which="both", linewidth=0.3)
    axis.legend(loc="center right", fontsize=8)
    svg = matplotlib_svg(figure)
    plt.close(figure)
    largest = max(row.size for row in rows if row.method == "textbook")
    ours = [row.gflops for row in rows if row.method == "ours"]
    anchors = [row.gflops for row in rows if row.method in ("openblas", "torch")]
    relation = "above" if min(ours) > max(anchors) else "below" if max(ours) < min(anchors) else "crossing"
    alt = (f"Four lines of GFLOP/s against N from {sizes[0]} to {sizes[-1]} on log scales, measured on {run.machine}. "
           f"The textbook loop falls from {gflops('textbook', sizes[0], run)} to {gflops('textbook', largest, run)} "
           f"GFLOP/s at N = {largest}; the blocked kernel stays between {min(ours):.1f} and {max(ours):.1f}, "
           f"{relation} OpenBLAS and libtorch, which stay between {min(anchors):.1f} and {max(anchors):.1f}.")
    return svg_figure(svg, f"Measured speed of one [N, N] times [N, N] product, one thread, minimum of five "
                      f"repetitions, on {run.machine} ({run.name})", f"speed-{run.path.stem}", alt=alt)


def speedup_table(run: Recording | None = None) -> str:
    """Microseconds and the blocked kernel's speed-up over the textbook loop, per N, for one run."""
    run = run or recording()
    body = []
    for size in sorted({row.size for row in run.rows}):
        times = {row.method: row.microseconds for row in run.rows if row.size == size}
        textbook = times.get("textbook")
        body.append([
            f"{size}",
            f"{textbook:,.0f}" if textbook else "not run",
            f"{times['ours']:,.1f}",
            f"{times['openblas']:,.1f}",
            f"{textbook / times['ours']:.0f}×" if textbook else "–",
            f"{times['openblas'] / times['ours']:.2f}",
        ])
    return table(["$N$", "textbook (µs)", "blocked (µs)", "OpenBLAS (µs)", "blocked vs textbook",
                  "blocked vs OpenBLAS"], body,
                 f"Minimum CPU time of five repetitions per product on {run.machine}", f"speed-table-{run.path.stem}")


def matrix_tex(tensor: Mapping[str, Any]) -> str:
    """A rank-2 trace tensor as a LaTeX bmatrix: ``\\begin{bmatrix}1 & 2\\\\3 & 4\\end{bmatrix}``."""
    shape, values = tensor["shape"], tensor["values"]
    if len(shape) != 2:
        raise ValueError(f"matrix_tex needs a rank-2 tensor, got shape {shape}")
    rows = [values[r * shape[1]:(r + 1) * shape[1]] for r in range(shape[0])]
    body = r" \\ ".join(" & ".join(plain(value) for value in row) for row in rows)
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"


def batch_matrix_tex(tensor: Mapping[str, Any], batch: int) -> str:
    """Batch ``batch`` of a rank-3 trace tensor as a LaTeX bmatrix."""
    shape = tensor["shape"]
    size = shape[1] * shape[2]
    return matrix_tex({"shape": shape[1:], "values": tensor["values"][batch * size:(batch + 1) * size]})
