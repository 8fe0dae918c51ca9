"""Tests of tools/check_no_fma.py: the build check that the matrix product's
microkernels contain no fused multiply-add (chapter 11)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tools.check_no_fma import is_fused, main, scan

# objdump -d --no-show-raw-insn of an archive with two members, shortened.
DISASSEMBLY = """
In archive libllm_tensor.a:

matmul_microkernel_avx512.cpp.o:     file format elf64-x86-64


Disassembly of section .text:

0000000000000000 <_ZN3llm13matmul_detail18microkernel_avx512Ev>:
   0:\tvmulpd %zmm1,%zmm2,%zmm3
   6:\tvaddpd %zmm3,%zmm0,%zmm0
   c:\tvfmadd231pd %zmm4,%zmm5,%zmm6

matmul_kernel.cpp.o:     file format elf64-x86-64

0000000000000000 <other>:
   0:\tvfmadd231pd %ymm1,%ymm2,%ymm3
"""

SOURCE = "void f(double* a, const double* b, const double* c, int n) { for (int i = 0; i < n; ++i) a[i] += b[i] * c[i]; }\n"


def test_fused_mnemonics_of_both_architectures_are_recognised() -> None:
    for mnemonic in ["vfmadd231pd", "vfmadd132sd", "vfnmsub213pd", "vfmaddsub231pd", "fmla", "fmadd", "fnmsub"]:
        assert is_fused(mnemonic), mnemonic
    for mnemonic in ["vmulpd", "vaddpd", "fmul", "fadd", "fmov", "vfixupimmpd", "vfpclasspd", "movapd"]:
        assert not is_fused(mnemonic), mnemonic


def test_scan_reports_only_the_expected_members_with_function_and_line() -> None:
    seen, found = scan(DISASSEMBLY, {"matmul_microkernel_avx512.cpp.o"})
    assert seen == {"matmul_microkernel_avx512.cpp.o"}
    assert [(f.member, f.function, f.line) for f in found] == [
        ("matmul_microkernel_avx512.cpp.o", "_ZN3llm13matmul_detail18microkernel_avx512Ev",
         "c:\tvfmadd231pd %zmm4,%zmm5,%zmm6")]


def compile_object(tmp_path: Path, name: str, flags: list[str]) -> Path:
    compiler = shutil.which("g++")
    if compiler is None or shutil.which("objdump") is None:
        pytest.skip("needs g++ and objdump")
    source = tmp_path / "loop.cpp"
    source.write_text(SOURCE, encoding="utf-8")
    output = tmp_path / name
    subprocess.run([compiler, "-O3", *flags, "-c", str(source), "-o", str(output)], check=True)
    return output


@pytest.mark.skipif(subprocess.run(["uname", "-m"], capture_output=True, text=True).stdout.strip() != "x86_64",
                    reason="compiles an x86-64 AVX-512 object")
def test_a_contracted_avx512_loop_fails_and_the_book_flags_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fused = compile_object(tmp_path, "fused.o", ["-mavx512f", "-ffp-contract=fast"])
    assert main(["--expect", "fused.o", str(fused)]) == 1
    assert "fused.o: _Z1fPdPKdS1_i: fused multiply-add: " in capsys.readouterr().err
    separate = compile_object(tmp_path, "separate.o", ["-mavx512f", "-ffp-contract=off"])
    assert main(["--expect", "separate.o", str(separate)]) == 0


def test_a_missing_member_fails_instead_of_passing_vacuously(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    separate = compile_object(tmp_path, "separate.o", ["-ffp-contract=off"])
    assert main(["--expect", "matmul_microkernel_avx512.cpp.o", str(separate)]) == 1
    assert "matmul_microkernel_avx512.cpp.o not found" in capsys.readouterr().err
