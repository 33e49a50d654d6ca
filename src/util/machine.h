// The machine a run measured on, as far as its numerics go: the CPU's model name and the vector
// features that decide which kernels torch, MKL and oneDNN run (docs/formats.md section 4, runs).
//
// Why a run records it: float32 kernels round differently on different CPUs (AVX-512 or AVX2 code,
// another summation order in a matrix product, another libm), so an input a registry computes can
// differ by an ulp on another machine, and with it the case's fingerprint. When a case changed and
// its stored result was measured on another machine, `opsweep run --explain` and `opsweep explain`
// say so (core/rerun.h): "the case changed" alone would send a maintainer looking for an edit.
#pragma once
#include <string>
#include <string_view>

namespace opsweep {

// {"cpu":"<model name>","features":"avx avx2 avx512f ... fma"} from the text of /proc/cpuinfo (the
// first processor's lines; features kept in a fixed order, the ones that select float kernels), as
// compact JSON; "" when the text names no model.
std::string MachineFromCpuinfo(std::string_view cpuinfo);

// This machine's, from /proc/cpuinfo ("" where there is none).
std::string ThisMachine();

// One line for a sentence: "Intel(R) Xeon(R) Processor, avx2 avx512f fma"; "" for "" or a text that
// is not such an object.
std::string MachineText(const std::string& machine_json);

}  // namespace opsweep
