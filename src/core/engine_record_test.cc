#include "core/engine_record.h"

#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>

namespace opsweep {
namespace {

TEST(EngineRecord, NamesSignalsAndExitCodes) {
  EXPECT_EQ(CrashDetail(ExitStatus{0, SIGSEGV}), "worker exited with signal 11 (SIGSEGV) during the job");
  EXPECT_EQ(CrashDetail(ExitStatus{7, 0}), "worker exited with code 7 during the job");
  EXPECT_EQ(SignalName(SIGKILL), "SIGKILL");
  EXPECT_EQ(SignalName(77), "signal 77");
  EXPECT_EQ(TimeoutDetail(600), "no result after 600 s; the worker's process group was killed");
  EXPECT_EQ(TimeoutDetail(2.5), "no result after 2.5 s; the worker's process group was killed");
  EXPECT_EQ(MemoryDetail(4096), "worker exceeded the memory limit of 4096 MiB");
}

TEST(EngineRecord, ProtocolErrorsAreBoundedAndOneLine) {
  std::string d = ProtocolErrorDetail(std::string(1000, 'x') + "\n");
  EXPECT_LT(d.size(), 320u);
  EXPECT_EQ(d.find('\n'), std::string::npos);
  EXPECT_EQ(d.rfind("protocol error: ", 0), 0u);
}

TEST(EngineRecord, HasTheCommonFieldsAndNoPathSpecificOnes) {
  auto r = nlohmann::json::parse(EngineRecord(Status::timeout, "no result", 3.5));
  EXPECT_EQ(r["status"], "timeout");
  EXPECT_EQ(r["step"], "worker");
  EXPECT_EQ(r["detail"], "no result");
  EXPECT_TRUE(r["error"].is_null());
  EXPECT_EQ(r["timings"]["total_s"], 3.5);
  EXPECT_TRUE(r["sources"].is_array());
  for (const char* field : {"graph_breaks", "break_reasons", "onnx", "notes"}) EXPECT_FALSE(r.contains(field)) << field;
}

TEST(EngineRecord, NotesAreAppended) {
  std::string once = WithNote(R"({"status":"ok","detail":"d"})", PoisonNote("inference mode changed from False to True"));
  EXPECT_EQ(once, R"({"status":"ok","detail":"d","notes":["the worker was found poisoned after this job )"
                  R"((inference mode changed from False to True) and was replaced"]})");
  EXPECT_EQ(WithNote(R"({"notes":["a"]})", "b"), R"({"notes":["a","b"]})");
  EXPECT_EQ(WithNote("[1]", "b"), "[1]");
}

}  // namespace
}  // namespace opsweep
