"""Check that compiled objects contain no fused multiply-add instruction.

The matrix product promises the bits of the textbook loop, which rounds every
product and every sum separately (chapter 11). A fused multiply-add rounds
once, so a single one in a microkernel breaks that promise. The build forbids
contraction with ``-ffp-contract=off``; the test that watches for a fused
result (``MatmulKernel.NeverFusesAMultiplyIntoTheRunningSum``) can only run
the kernels the machine has, so a regression in the AVX-512 file would pass
on a machine without AVX-512. This check reads the machine code instead::

    python3 -m tools.check_no_fma --objdump objdump \\
        --expect matmul_microkernel_generic.cpp.o --expect matmul_microkernel_avx512.cpp.o \\
        build/libllm_tensor.a

It disassembles each archive or object with ``objdump -d``, keeps the members
named by ``--expect`` (all of them must be present, so the check never passes
because a file was renamed), and fails naming the member, the function and
the instruction of every fused multiply-add it finds (x86 ``vfmadd``,
``vfmsub``, ``vfnmadd``, ``vfnmsub``; AArch64 ``fmla``, ``fmls``, ``fmadd``,
``fmsub``, ``fnmadd``, ``fnmsub``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

#: Mnemonics of fused multiply-add instructions (x86 FMA3/AVX-512, AArch64).
FUSED_MNEMONIC = re.compile(r"^(v?fn?m(add|sub)(add|sub)?(\d{3})?[a-z]*|fml[as])$")
_MEMBER = re.compile(r"^(\S+):\s+file format ")
_FUNCTION = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_INSTRUCTION = re.compile(r"^\s*[0-9a-f]+:\s+([a-z][a-z0-9.]*)")


@dataclass(frozen=True)
class Fused:
    """One fused multiply-add found in the disassembly."""

    member: str
    function: str
    line: str


def is_fused(mnemonic: str) -> bool:
    """Whether ``mnemonic`` (``vfmadd231pd``, ``fmla``, ``vmulpd``...) fuses a multiply and an add."""
    return bool(FUSED_MNEMONIC.match(mnemonic))


def scan(disassembly: str, members: set[str]) -> tuple[set[str], list[Fused]]:
    """The members of ``members`` seen in ``objdump -d`` output, and the fused instructions in them."""
    seen: set[str] = set()
    found: list[Fused] = []
    member = function = ""
    for line in disassembly.splitlines():
        if header := _MEMBER.match(line):
            member = Path(header.group(1)).name
            function = ""
            if member in members:
                seen.add(member)
            continue
        if member not in members:
            continue
        if start := _FUNCTION.match(line):
            function = start.group(1)
        elif (instruction := _INSTRUCTION.match(line)) and is_fused(instruction.group(1)):
            found.append(Fused(member, function, line.strip()))
    return seen, found


def disassemble(objdump: str, path: Path) -> str:
    """``objdump -d --no-show-raw-insn path``; raises ``RuntimeError`` naming the command when it fails."""
    try:
        result = subprocess.run([objdump, "-d", "--no-show-raw-insn", str(path)], capture_output=True, text=True, check=False)
    except OSError as error:
        raise RuntimeError(f"cannot run {objdump}: {error}") from error
    if result.returncode != 0:
        raise RuntimeError(f"{objdump} -d {path} failed: {result.stderr.strip()}")
    return result.stdout


def main(argv: list[str] | None = None) -> int:
    """Run the check; 0 when every expected member is present and none fuses."""
    parser = argparse.ArgumentParser(prog="python3 -m tools.check_no_fma", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="archives (.a) or objects (.o) to disassemble")
    parser.add_argument("--objdump", default="objdump", help="the objdump to run (default: objdump)")
    parser.add_argument("--expect", action="append", required=True, metavar="MEMBER",
                        help="an object that must be present and checked, e.g. matmul_microkernel_avx512.cpp.o")
    args = parser.parse_args(argv)
    expected = set(args.expect)
    seen: set[str] = set()
    found: list[Fused] = []
    try:
        for path in args.files:
            file_seen, file_found = scan(disassemble(args.objdump, path), expected)
            seen |= file_seen
            found += file_found
    except RuntimeError as error:
        print(f"check_no_fma: {error}", file=sys.stderr)
        return 2
    missing = sorted(expected - seen)
    if missing:
        print(f"check_no_fma: {', '.join(missing)} not found in {', '.join(map(str, args.files))}", file=sys.stderr)
        return 1
    for fused in found:
        print(f"check_no_fma: {fused.member}: {fused.function}: fused multiply-add: {fused.line}", file=sys.stderr)
    if found:
        print(f"check_no_fma: {len(found)} fused multiply-add instruction(s); the matrix product must round "
              "every product and sum separately (chapter 11; build with -ffp-contract=off)", file=sys.stderr)
        return 1
    print(f"check_no_fma: no fused multiply-add in {', '.join(sorted(seen))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
