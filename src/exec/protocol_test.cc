#include "exec/protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace opsweep {
namespace {

TEST(Protocol, ParsesHello) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"hello","protocol":1,"pid":12,"harness":"abc","paths":["onnx","export"],"env":{"torch":"2.13","opset":18}})",
      &m, &err))
      << err;
  EXPECT_EQ(m.type, WorkerMessage::Type::hello);
  EXPECT_EQ(m.hello.protocol, 1);
  EXPECT_EQ(m.hello.harness, "abc");
  EXPECT_EQ(m.hello.paths, (std::vector<std::string>{"onnx", "export"}));
  EXPECT_EQ(m.hello.env_json, R"({"torch":"2.13","opset":18})");
}

TEST(Protocol, ParsesInventoryAndRefusesDuplicates) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"inventory","cases":[{"name":"a","group":"color","registry":"r.py","fingerprint":"f","note":""}]})",
      &m, &err));
  ASSERT_EQ(m.cases.size(), 1u);
  EXPECT_EQ(m.cases[0].group, "color");
  EXPECT_EQ(m.cases[0].info_json, R"({"name":"a","group":"color","registry":"r.py","fingerprint":"f","note":""})");
  EXPECT_FALSE(ParseWorkerMessage(
      R"({"type":"inventory","cases":[{"name":"a","group":"g","fingerprint":"f"},{"name":"a","group":"g","fingerprint":"f"}]})",
      &m, &err));
  EXPECT_EQ(err, "inventory lists case 'a' twice");
}

TEST(Protocol, ParsesResultPoisonedAndError) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"result","id":7,"case":"a","path":"onnx","record":{"status":"ok-breaks","step":"","graph_breaks":2}})",
      &m, &err));
  EXPECT_EQ(m.type, WorkerMessage::Type::result);
  EXPECT_EQ(m.id, 7);
  EXPECT_EQ(m.status, "ok-breaks");
  EXPECT_EQ(m.record_json, R"({"status":"ok-breaks","step":"","graph_breaks":2})");
  ASSERT_TRUE(ParseWorkerMessage(R"({"type":"poisoned","id":7,"case":"a","path":"onnx","reason":"dtype"})", &m, &err));
  EXPECT_EQ(m.type, WorkerMessage::Type::poisoned);
  EXPECT_EQ(m.reason, "dtype");
  ASSERT_TRUE(ParseWorkerMessage(R"({"type":"error","message":"cases_x.py: boom"})", &m, &err));
  EXPECT_EQ(m.message, "cases_x.py: boom");
}

TEST(Protocol, RefusesGarbage) {
  WorkerMessage m;
  std::string err;
  const char* bad[] = {
      "{not json",
      "[1,2]",
      R"({"no":"type"})",
      R"({"type":"surprise"})",
      R"({"type":"result","id":"7","case":"a","path":"onnx","record":{"status":"ok"}})",
      R"({"type":"result","id":7,"case":"a","path":"onnx","record":{"status":"crash"}})",
      R"({"type":"result","id":7,"case":"a","path":"onnx","record":{"status":"great"}})",
      R"({"type":"result","id":7,"case":"a","path":"onnx"})",
      R"({"type":"hello","protocol":"1"})",
      "\xff\xfe",
  };
  for (const char* line : bad) {
    EXPECT_FALSE(ParseWorkerMessage(line, &m, &err)) << line;
    EXPECT_FALSE(err.empty());
  }
}

TEST(Protocol, EncodesJobs) {
  EXPECT_EQ(JobMessage(3, "a[\"x\"]", "onnx"), R"({"type":"job","id":3,"case":"a[\"x\"]","path":"onnx"})");
  EXPECT_EQ(nlohmann::json::parse(ShutdownMessage())["type"], "shutdown");
}

}  // namespace
}  // namespace opsweep
