#include "exec/protocol.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

const char* kToy =
    R"({"id":"toy","title":"Toy","label":"toy","description":"d","steps":["capture"],"expected_seconds":2,"order":5,)"
    R"("env":["python","torch"],"subverdicts":[],"harness":"h-toy"})";

TEST(Protocol, ParsesHelloWithPathDescriptions) {
  WorkerMessage m;
  std::string err;
  nlohmann::ordered_json paths = nlohmann::ordered_json::parse(testing::BundledPathsJson());
  paths.push_back(nlohmann::ordered_json::parse(kToy));
  std::string line = R"({"type":"hello","protocol":3,"pid":12,"harness":"abc","paths":)" + paths.dump() +
                     R"(,"env":{"torch":"2.13","opset":18}})";
  ASSERT_TRUE(ParseWorkerMessage(line, &m, &err)) << err;
  EXPECT_EQ(m.type, WorkerMessage::Type::hello);
  EXPECT_EQ(m.hello.protocol, 3);
  EXPECT_EQ(m.hello.harness, "abc");
  const std::size_t bundled = testing::BundledPaths().size();
  ASSERT_EQ(m.hello.paths.size(), bundled + 1);
  const std::vector<std::string> ids = m.hello.path_ids();
  EXPECT_EQ(std::vector<std::string>(ids.begin(), ids.begin() + 3), (std::vector<std::string>{"onnx", "export", "compile"}));
  EXPECT_EQ(ids.back(), "toy");
  EXPECT_EQ(m.hello.paths[bundled].expected_seconds, 2);
  EXPECT_EQ(m.hello.paths_json[bundled], kToy);
  EXPECT_EQ(m.hello.env_json, R"({"torch":"2.13","opset":18})");
}

TEST(Protocol, RefusesABadPathDescription) {
  WorkerMessage m;
  std::string err;
  EXPECT_FALSE(ParseWorkerMessage(R"({"type":"hello","protocol":3,"harness":"a","paths":["onnx"],"env":{}})", &m, &err));
  EXPECT_EQ(err, "'hello' message: a path description is not an object");
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

TEST(Protocol, ParsesTheLibraryIndex) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(R"({"type":"index","version":3,"library":"kornia",)"
                                 R"("functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1"},)"
                                 R"("modules":{"kornia/color/gray.py":"m1"}})",
                                 &m, &err))
      << err;
  EXPECT_EQ(m.type, WorkerMessage::Type::index);
  EXPECT_TRUE(m.index.known);
  EXPECT_EQ(m.index.functions.at("kornia/color/gray.py:rgb_to_grayscale"), "g1");
  EXPECT_FALSE(ParseWorkerMessage(R"({"type":"index","version":3,"library":"kornia","functions":{}})", &m, &err));
  EXPECT_EQ(err, "index: 'modules' is not an object");
}

TEST(Protocol, ParsesResultPoisonedAndError) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"result","id":7,"case":"a","path":"onnx","record":{"status":"ok-breaks","step":"","graph_breaks":2}})",
      &m, &err));
  EXPECT_EQ(m.type, WorkerMessage::Type::result);
  EXPECT_EQ(m.id, 7);
  EXPECT_EQ(m.status, Status::ok_breaks);
  EXPECT_TRUE(m.has_record);
  EXPECT_EQ(m.record_json, R"({"status":"ok-breaks","step":"","graph_breaks":2})");
  ASSERT_TRUE(ParseWorkerMessage(R"({"type":"poisoned","id":7,"case":"a","path":"onnx","reason":"dtype"})", &m, &err));
  EXPECT_EQ(m.type, WorkerMessage::Type::poisoned);
  EXPECT_EQ(m.reason, "dtype");
  EXPECT_FALSE(m.has_record);
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"poisoned","id":8,"case":"a","path":"onnx","reason":"dtype","record":{"status":"fail","step":"export"}})",
      &m, &err));
  EXPECT_TRUE(m.has_record);
  EXPECT_EQ(m.status, Status::fail);
  EXPECT_EQ(m.record_json, R"({"status":"fail","step":"export"})");
  ASSERT_TRUE(ParseWorkerMessage(R"({"type":"error","message":"cases_x.py: boom"})", &m, &err));
  EXPECT_EQ(m.message, "cases_x.py: boom");
}

// What the harness missed (torch 2.9.1's g++ command line: '-I/root/...') is not stored with a home
// folder in it: every string of the record, nested ones and keys too, in the record's own order.
TEST(Protocol, ARecordIsStoredWithoutHomeFolders) {
  WorkerMessage m;
  std::string err;
  ASSERT_TRUE(ParseWorkerMessage(
      R"({"type":"result","id":7,"case":"a","path":"compile","record":{"status":"fail","step":"compile",)"
      R"("error":{"message":"g++ '-I/root/.pyenv/include' '-L/home/al/env/lib' failed","frames":["kornia/a.py:3"]},)"
      R"("notes":["see /Users/bo/x.log"],"/root/odd key":1,"detail":"a/root/b"}})",
      &m, &err))
      << err;
  EXPECT_EQ(m.record_json,
            R"({"status":"fail","step":"compile","error":{"message":"g++ '-I~/.pyenv/include' '-L~/env/lib' failed",)"
            R"("frames":["kornia/a.py:3"]},"notes":["see ~/x.log"],"~/odd key":1,"detail":"a/root/b"})");
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
      R"({"type":"poisoned","id":7,"case":"a","path":"onnx","reason":"r","record":{"status":"timeout"}})",
      R"({"type":"poisoned","id":7,"case":"a","path":"onnx","reason":"r","record":"ok"})",
      "\xff\xfe",
  };
  for (const char* line : bad) {
    EXPECT_FALSE(ParseWorkerMessage(line, &m, &err)) << line;
    EXPECT_FALSE(err.empty());
  }
}

TEST(Protocol, EncodesJobs) {
  EXPECT_EQ(JobMessage(3, "a[\"x\"]", "onnx"), R"({"type":"job","id":3,"case":"a[\"x\"]","path":"onnx"})");
  EXPECT_EQ(JobMessage(4, "b", "compile", 600), R"({"type":"job","id":4,"case":"b","path":"compile","timeout_s":600.0})");
  EXPECT_EQ(nlohmann::json::parse(ShutdownMessage())["type"], "shutdown");
}

}  // namespace
}  // namespace opsweep
