#include "core/library_index.h"

#include <gtest/gtest.h>

namespace opsweep {
namespace {

nlohmann::json Message() {
  return nlohmann::json::parse(R"({"type":"index","version":3,"library":"kornia",
    "functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1","kornia/color/gray.py:bgr_to_grayscale":"g2"},
    "modules":{"kornia/color/gray.py":"m1","kornia/constants.py":"m2"}})");
}

// Version 4: token digests ("t:"; f's tokens changed since "t:f1"), and the digests of lines that
// records measured before it hold (f's lines unchanged since "lf1", g's changed since "lg1").
nlohmann::json MessageV4() {
  return nlohmann::json::parse(R"({"type":"index","version":4,"library":"kornia",
    "functions":{"kornia/a.py:f":"t:f2","kornia/a.py:g":"t:g1"},
    "line_functions":{"kornia/a.py:f":"lf1","kornia/a.py:g":"lg2"},
    "modules":{"kornia/a.py":"m1"}})");
}

TEST(ParseLibraryIndex, ReadsTheIndexMessage) {
  LibraryIndex index;
  std::string err;
  ASSERT_TRUE(ParseLibraryIndex(Message(), &index, &err)) << err;
  EXPECT_TRUE(index.known);
  EXPECT_EQ(index.library, "kornia");
  EXPECT_EQ(index.functions.size(), 2u);
  EXPECT_EQ(index.modules.at("kornia/constants.py"), "m2");
}

TEST(ParseLibraryIndex, RefusesWhatItCannotRead) {
  LibraryIndex index;
  std::string err;
  nlohmann::json m = Message();
  m["version"] = 99;
  EXPECT_FALSE(ParseLibraryIndex(m, &index, &err));
  EXPECT_NE(err.find("version 99"), std::string::npos) << err;
  EXPECT_FALSE(index.known);
  m = Message();
  m["functions"] = nlohmann::json::array();
  EXPECT_FALSE(ParseLibraryIndex(m, &index, &err));
  EXPECT_EQ(err, "index: 'functions' is not an object");
  m = Message();
  m["modules"]["kornia/x.py"] = 3;
  EXPECT_FALSE(ParseLibraryIndex(m, &index, &err));
  m = Message();
  m.erase("library");
  EXPECT_FALSE(ParseLibraryIndex(m, &index, &err));
  EXPECT_FALSE(ParseLibraryIndex(nlohmann::json::array(), &index, &err));
}

TEST(ChangedDeps, ListsChangedRemovedAndEditedDepsInOrder) {
  LibraryIndex index;
  std::string err;
  ASSERT_TRUE(ParseLibraryIndex(Message(), &index, &err));
  auto deps = nlohmann::json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1"},
    "modules":{"kornia/color/gray.py":"m1","kornia/constants.py":"m2"}})");
  EXPECT_TRUE(ChangedDeps(deps, index).empty());
  EXPECT_TRUE(ChangedDeps(nlohmann::json::parse(R"({"functions":{},"modules":{}})"), index).empty());

  deps["functions"]["kornia/color/gray.py:rgb_to_grayscale"] = "g0";
  deps["functions"]["kornia/old.py:gone"] = "x";
  deps["modules"]["kornia/constants.py"] = "changed-during-run";
  std::vector<std::string> sentences;
  for (const DepChange& c : ChangedDeps(deps, index)) sentences.push_back(DepChangeSentence(c));
  EXPECT_EQ(sentences, (std::vector<std::string>{"kornia/color/gray.py:rgb_to_grayscale changed",
                                                 "kornia/old.py:gone was removed",
                                                 "kornia/constants.py was edited while the job ran"}));
}

TEST(ChangedDeps, ComparesEachStoredDigestWithTheCurrentDigestOfItsKind) {
  nlohmann::json message = MessageV4();
  LibraryIndex index;
  std::string err;
  ASSERT_TRUE(ParseLibraryIndex(message, &index, &err)) << err;
  EXPECT_EQ(index.line_functions.at("kornia/a.py:g"), "lg2");
  auto changed = [&](const char* deps) {
    std::vector<std::string> out;
    for (const DepChange& c : ChangedDeps(nlohmann::json::parse(deps), index)) out.push_back(DepChangeSentence(c));
    return out;
  };
  // a new record: its token digests against the tokens
  EXPECT_TRUE(changed(R"({"functions":{"kornia/a.py:g":"t:g1"},"modules":{"kornia/a.py":"m1"}})").empty());
  EXPECT_EQ(changed(R"({"functions":{"kornia/a.py:f":"t:f1"},"modules":{}})"),
            std::vector<std::string>{"kornia/a.py:f changed"});
  // an old record: its line digests against the lines (f's lines are unchanged, g's are not),
  // never against the token digests, even where the strings happen to be equal
  EXPECT_TRUE(changed(R"({"functions":{"kornia/a.py:f":"lf1"},"modules":{}})").empty());
  EXPECT_EQ(changed(R"({"functions":{"kornia/a.py:g":"lg1"},"modules":{}})"),
            std::vector<std::string>{"kornia/a.py:g changed"});
  EXPECT_EQ(changed(R"({"functions":{"kornia/a.py:g":"g1"},"modules":{}})"),
            std::vector<std::string>{"kornia/a.py:g changed"});
  // a version-4 message must carry the line digests
  message.erase("line_functions");
  EXPECT_FALSE(ParseLibraryIndex(message, &index, &err));
  EXPECT_EQ(err, "index: 'line_functions' is not an object");
  // a version-3 index has lines only: a token digest is never current against it
  ASSERT_TRUE(ParseLibraryIndex(Message(), &index, &err)) << err;
  EXPECT_EQ(changed(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"t:g1"},"modules":{}})"),
            std::vector<std::string>{"kornia/color/gray.py:rgb_to_grayscale changed"});
}

TEST(ReencodeLineDigests, GivesACurrentOldRecordTheTokenDigestsOfItsUnchangedFunctions) {
  nlohmann::json message = MessageV4();
  LibraryIndex index;
  std::string err;
  ASSERT_TRUE(ParseLibraryIndex(message, &index, &err)) << err;
  auto deps = nlohmann::ordered_json::parse(R"({"functions":{"kornia/a.py:f":"lf1"},"modules":{"kornia/a.py":"m1"}})");
  ASSERT_TRUE(ReencodeLineDigests(&deps, index));
  EXPECT_EQ(deps.dump(), R"({"functions":{"kornia/a.py:f":"t:f2"},"modules":{"kornia/a.py":"m1"}})");
  EXPECT_TRUE(ChangedDeps(nlohmann::json::parse(deps.dump()), index).empty());  // as current as before
  EXPECT_FALSE(ReencodeLineDigests(&deps, index));  // already token digests

  // anything but an unchanged function leaves the whole record as it is
  for (const char* text : {R"({"functions":{"kornia/a.py:f":"lf1","kornia/a.py:g":"lg1"},"modules":{}})",  // g changed
                           R"({"functions":{"kornia/a.py:f":"lf1","kornia/a.py:gone":"x"},"modules":{}})",
                           R"({"functions":{"kornia/a.py:f":"changed-during-run"},"modules":{}})",
                           R"({"functions":{},"modules":{"kornia/a.py":"m1"}})", R"(null)", R"([])"}) {
    auto d = nlohmann::ordered_json::parse(text);
    EXPECT_FALSE(ReencodeLineDigests(&d, index)) << text;
    EXPECT_EQ(d.dump(), nlohmann::ordered_json::parse(text).dump()) << text;
  }
  // a version-3 index has no token digests to give
  ASSERT_TRUE(ParseLibraryIndex(Message(), &index, &err));
  auto old = nlohmann::ordered_json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1"},"modules":{}})");
  EXPECT_FALSE(ReencodeLineDigests(&old, index));
}

TEST(ChangedDeps, ADamagedDepsObjectIsOneChange) {
  LibraryIndex index;
  for (const char* text : {R"([])", R"({"functions":{}})", R"({"functions":{"a":1},"modules":{}})",
                           R"({"functions":{},"modules":[]})"}) {
    auto changes = ChangedDeps(nlohmann::json::parse(text), index);
    ASSERT_EQ(changes.size(), 1u) << text;
    EXPECT_EQ(DepChangeSentence(changes[0]), "the record's deps are unreadable");
  }
}

}  // namespace
}  // namespace opsweep
