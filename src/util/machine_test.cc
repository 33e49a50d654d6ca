#include "util/machine.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

constexpr const char* kTwoProcessors =
    "processor\t: 0\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Xeon(R) Processor\n"
    "flags\t\t: fpu vme sse4_2 fma avx avx2 avx512f avx512_fp16 amx_tile hypervisor\n"
    "\n"
    "processor\t: 1\n"
    "model name\t: Another Model\n"
    "flags\t\t: fpu sse4_2\n";

TEST(Machine, TheFirstProcessorsModelAndItsFloatKernelFeaturesInAFixedOrder) {
  EXPECT_EQ(MachineFromCpuinfo(kTwoProcessors),
            R"({"cpu":"Intel(R) Xeon(R) Processor","features":"sse4_2 avx fma avx2 avx512f avx512_fp16 amx_tile"})");
}

TEST(Machine, TwoCpusThatDifferOnlyInAVectorFeatureAreTwoMachines) {
  std::string a = MachineFromCpuinfo("model name : X\nflags : avx avx2 fma\n");
  std::string b = MachineFromCpuinfo("model name : X\nflags : avx avx2 fma avx512f\n");
  EXPECT_NE(a, b);
  EXPECT_EQ(MachineText(a), "X, avx fma avx2");
  EXPECT_EQ(MachineText(b), "X, avx fma avx2 avx512f");
}

TEST(Machine, NoModelNameIsUnknown) {
  EXPECT_EQ(MachineFromCpuinfo(""), "");
  EXPECT_EQ(MachineFromCpuinfo("processor : 0\nflags : avx2\n"), "");
  EXPECT_EQ(MachineText(""), "");
  EXPECT_EQ(MachineText("not json"), "");
  EXPECT_EQ(MachineText(R"({"features":"avx2"})"), "");
  EXPECT_EQ(MachineText(R"({"cpu":"Y","features":""})"), "Y");
}

TEST(Machine, ThisMachineIsReadWhereProcCpuinfoExists) {
  std::string here = ThisMachine();
  if (here.empty()) GTEST_SKIP() << "no /proc/cpuinfo with a model name here";
  EXPECT_FALSE(MachineText(here).empty());
}

}  // namespace
}  // namespace opsweep
