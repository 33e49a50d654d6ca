#include "store/results_text.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

namespace opsweep {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "opsweep-text-XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string File(const std::string& name) const { return (fs::path(path_) / name).string(); }

 private:
  std::string path_;
};

const char* kDeps = R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1","kornia/core/check.py:KORNIA_CHECK":"c1"},)"
                    R"("modules":{"kornia/color/gray.py":"m1"}})";

StoredResult Result(const std::string& name, const std::string& path, long long run, const std::string& finished,
                    bool deps = true) {
  StoredResult r;
  r.case_name = name;
  r.path = path;
  r.job_key = "key-" + name + "-" + path;
  r.key_fields_json = R"({"case":"fp-)" + name + R"(","path":")" + path + R"(","harness":"h","torch":"2.13"})";
  r.status = "ok";
  // the worker's key order (status first), kept as it is
  r.record_json = R"({"status":"ok","step":"","detail":"max abs diff 1e-05","timings":{"total_s":1.25})" +
                  std::string(deps ? R"(,"deps":)" + std::string(kDeps) : R"(,"deps":null)") + "}";
  r.duration_s = 1.25;
  r.attempts = 0;
  r.run_id = run;
  r.finished = finished;
  return r;
}

// Two runs (ids 7 and 3, the later one started first), an unreferenced run, three cases, results.
ResultsContent Content() {
  ResultsContent c;
  RunInfo a;
  a.id = 7;
  a.started = "2026-11-30T05:00:00Z";
  a.finished = "2026-11-30T06:00:00Z";
  a.argv = R"(["/home/me/bin/opsweep","run"])";
  a.shard = "1/1";
  a.env_json = R"({"torch":"2.13","library":{"name":"kornia","version":"0.9.0","fingerprint":"L1"}})";
  a.harness = "h";
  a.registries_json = R"(["/home/me/src/opsweep/python/opsweep/registries/kornia/cases_color.py"])";
  a.paths_json = R"([{"id":"onnx","title":"ONNX"},{"id":"export","title":"torch.export"}])";
  RunInfo b = a;
  b.id = 3;
  b.started = "2026-11-30T04:00:00Z";
  b.finished = "2026-11-30T04:30:00Z";
  RunInfo unused = a;
  unused.id = 9;
  unused.started = "2026-12-01T00:00:00Z";
  c.runs = {a, b, unused};
  for (const char* n : {"rgb_to_grayscale", "canny", "sobel"}) {
    c.inventory.push_back(InventoryCase{n, "color", "cases_color.py", std::string("fp-") + n,
                                        R"({"name":")" + std::string(n) + R"(","group":"color","check":true})", 7});
  }
  c.results = {Result("sobel", "onnx", 7, "2026-11-30T05:10:00Z"), Result("canny", "export", 3, "2026-11-30T04:10:00Z"),
               Result("canny", "onnx", 7, "2026-11-30T05:20:00Z", false),
               Result("rgb_to_grayscale", "onnx", 3, "2026-11-30T04:20:00Z")};
  return c;
}

std::string Text(const ResultsContent& c) {
  std::string out, err;
  EXPECT_TRUE(WriteResultsText(c, &out, &err)) << err;
  return out;
}

TEST(ResultsText, IsOneSortedLinePerJobWithSharedDepsAndNoAbsolutePaths) {
  std::string text = Text(Content());
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) lines.push_back(text.substr(start, nl - start));
  ASSERT_EQ(start, text.size());  // every line ends with \n
  // header, 2 runs (the unreferenced one dropped), 3 cases, 3 entries, 2 depsets, 4 results
  ASSERT_EQ(lines.size(), 15u) << text;
  EXPECT_EQ(lines[0],
            R"({"format":"opsweep-results-text","version":2,"runs":2,"cases":3,"entries":3,"depsets":2,"results":4})");
  EXPECT_EQ(nlohmann::json::parse(lines[1])["started"], "2026-11-30T04:00:00Z");  // renumbered by start
  EXPECT_EQ(nlohmann::json::parse(lines[1])["run"], 1);
  EXPECT_EQ(nlohmann::json::parse(lines[1])["registries"], nlohmann::json::parse(R"(["cases_color.py"])"));
  EXPECT_EQ(text.find("/home/"), std::string::npos) << text;
  EXPECT_EQ(nlohmann::json::parse(lines[3])["case"], "canny");
  // each name and digest once, as an entry; depsets list entry ids in the map's order
  std::vector<std::string> ids;
  for (size_t i = 6; i < 9; ++i) {
    auto e = nlohmann::json::parse(lines[i]);
    ASSERT_TRUE(e.contains("entry")) << lines[i];
    EXPECT_EQ(e["entry"].get<std::string>().size(), kEntryIdChars);
    ids.push_back(e["entry"]);
  }
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  for (const char* name : {"kornia/color/gray.py:rgb_to_grayscale", "kornia/core/check.py:KORNIA_CHECK"}) {
    size_t at = text.find(name);
    ASSERT_NE(at, std::string::npos) << name;
    EXPECT_EQ(text.find(name, at + 1), std::string::npos) << name << " written twice";
  }
  ASSERT_TRUE(nlohmann::json::parse(lines[9]).contains("depset"));
  ASSERT_TRUE(nlohmann::json::parse(lines[10]).contains("depset"));
  bool found = false;
  for (size_t i = 9; i < 11; ++i) {
    auto d = nlohmann::json::parse(lines[i]);
    if (d["entries"].size() != 2) continue;
    found = true;
    for (size_t k = 0; k < 2; ++k) {
      std::string name = k == 0 ? "kornia/color/gray.py:rgb_to_grayscale" : "kornia/core/check.py:KORNIA_CHECK";
      auto e = std::find_if(lines.begin() + 6, lines.begin() + 9,
                            [&](const std::string& l) { return nlohmann::json::parse(l)["entry"] == d["entries"][k]; });
      ASSERT_NE(e, lines.begin() + 9);
      EXPECT_EQ(nlohmann::json::parse(*e)["name"], name);
    }
  }
  EXPECT_TRUE(found) << text;
  std::vector<std::string> jobs;
  for (size_t i = 11; i < 15; ++i) {
    auto j = nlohmann::json::parse(lines[i]);
    jobs.push_back(j["result"].get<std::string>() + "/" + j["path"].get<std::string>());
  }
  EXPECT_EQ(jobs, (std::vector<std::string>{"canny/export", "canny/onnx", "rgb_to_grayscale/onnx", "sobel/onnx"}));
  // the record keeps the worker's key order; its deps maps are references
  EXPECT_EQ(lines[11].find(R"("record":{"status":"ok","step":"")"), lines[11].find(R"("record":)")) << lines[11];
  EXPECT_NE(lines[11].find(R"("deps":{"functions":"@)"), std::string::npos) << lines[11];
  EXPECT_NE(lines[12].find(R"("deps":null)"), std::string::npos) << lines[12];
}

TEST(ResultsText, ReadsBackWhatItWrote) {
  ResultsContent content;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(Text(Content()), &content, &warnings, &err)) << err;
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(content.runs.size(), 2u);
  EXPECT_EQ(content.runs[0].id, 1);
  EXPECT_EQ(content.runs[0].registries_json, R"(["cases_color.py"])");
  EXPECT_EQ(content.runs[1].env_json, Content().runs[0].env_json);
  ASSERT_EQ(content.results.size(), 4u);
  const StoredResult& gray = content.results[2];
  EXPECT_EQ(gray.case_name, "rgb_to_grayscale");
  EXPECT_EQ(gray.run_id, 1);
  EXPECT_EQ(gray.record_json, Result("x", "onnx", 0, "").record_json);  // deps expanded, bytes as stored
  EXPECT_EQ(gray.key_fields_json, Result("rgb_to_grayscale", "onnx", 0, "").key_fields_json);
  EXPECT_DOUBLE_EQ(gray.duration_s, 1.25);
  EXPECT_EQ(content.inventory.size(), 3u);
  EXPECT_EQ(content.inventory[0].run_id, 2);
  // written again: the same bytes
  EXPECT_EQ(Text(content), Text(Content()));
}

TEST(ResultsText, ARunsMachineIsWrittenWhenKnownAndReadBack) {
  ResultsContent c = Content();
  c.runs[0].machine_json = R"({"cpu":"Intel(R) Xeon(R) Processor","features":"avx fma avx2 avx512f"})";
  std::string text = Text(c);
  EXPECT_NE(text.find(R"("machine":{"cpu":"Intel(R) Xeon(R) Processor","features":"avx fma avx2 avx512f"})"),
            std::string::npos);
  EXPECT_EQ(Text(Content()).find("\"machine\""), std::string::npos) << "a run of unknown machine writes none";
  ResultsContent back;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(text, &back, &warnings, &err)) << err;
  ASSERT_EQ(back.runs.size(), 2u);
  EXPECT_EQ(back.runs[0].machine_json, "") << "run 3 (started first) has none";
  EXPECT_EQ(back.runs[1].machine_json, c.runs[0].machine_json);
  EXPECT_EQ(Text(back), text);
}

TEST(ResultsText, CaseIdentitiesAreWrittenSortedOnceAndReadBack) {
  ResultsContent c = Content();
  const std::string amd = R"({"cpu":"AMD EPYC","features":"avx2 fma"})";
  c.identities = {{"fz", "R1", amd}, {"fa", "R1", amd}, {"fz", "R1", amd}};
  std::string text = Text(c);
  EXPECT_NE(text.find(R"("identities":2)"), std::string::npos) << text.substr(0, 200);
  EXPECT_LT(text.find(R"({"identity":"fa","recipe":"R1","machine":{"cpu":"AMD EPYC","features":"avx2 fma"}})"),
            text.find(R"({"identity":"fz")"));
  EXPECT_EQ(Text(Content()).find("identit"), std::string::npos) << "a store without identities writes as before";
  ResultsContent back;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(text, &back, &warnings, &err)) << err;
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(back.identities, (std::vector<CaseIdentity>{{"fa", "R1", amd}, {"fz", "R1", amd}}));
  EXPECT_EQ(Text(back), text);
  // a damaged identity line is skipped with a warning, the rest read
  std::string damaged = text;
  damaged.replace(damaged.find(R"("recipe":"R1")"), 13, R"("recipe":5)");
  ASSERT_TRUE(ReadResultsText(damaged, &back, &warnings, &err)) << err;
  ASSERT_EQ(back.identities.size(), 1u);
  EXPECT_NE(warnings.front().find("an identity line without its fields"), std::string::npos);
}

TEST(ResultsText, RefusesToWriteACaseOrResultWhoseRunTheStoreLacks) {
  // A run deleted under its cases (or results) would be written as run 0, which no import reads.
  ResultsContent orphan_case = Content();
  orphan_case.inventory[1].run_id = 5;
  std::string out, err;
  EXPECT_FALSE(WriteResultsText(orphan_case, &out, &err));
  EXPECT_EQ(err, "the store is inconsistent: case 'canny' refers to run 5, which it does not hold");
  ResultsContent orphan_result = Content();
  orphan_result.results[0].run_id = 4;
  err.clear();
  EXPECT_FALSE(WriteResultsText(orphan_result, &out, &err));
  EXPECT_EQ(err, "the store is inconsistent: result sobel / onnx refers to run 4, which it does not hold");
}

TEST(ResultsText, RefusesWhatIsNotThisFormatOrTooNew) {
  ResultsContent content;
  std::vector<std::string> warnings;
  std::string err;
  EXPECT_FALSE(ReadResultsText("", &content, &warnings, &err));
  EXPECT_FALSE(ReadResultsText("SQLite format 3\n", &content, &warnings, &err));
  EXPECT_EQ(err, "not an opsweep results text file (its first line is not the header)");
  EXPECT_FALSE(ReadResultsText(R"({"format":"opsweep-results-text","version":3})"
                               "\n",
                               &content, &warnings, &err));
  EXPECT_EQ(err, "version 3 is newer than this build reads (2); upgrade opsweep");
}

// Version 1 (depsets holding their maps; what the repository committed before) is still read.
TEST(ResultsText, ReadsVersionOne) {
  std::string v1 =
      R"({"format":"opsweep-results-text","version":1,"runs":1,"cases":0,"depsets":1,"results":1})"
      "\n"
      R"({"run":1,"started":"s","finished":"f","shard":"1/1","harness":"h","registries":[],"env":{},"paths":[]})"
      "\n"
      R"({"depset":"d1","entries":{"kornia/a.py:f":"a1","kornia/b.py:g":"b1"}})"
      "\n"
      R"({"result":"f","path":"onnx","status":"ok","finished":"f","duration_s":1.0,"attempts":0,"run":1,)"
      R"("job_key":"k","key":{},"record":{"status":"ok","deps":{"functions":"@d1","modules":null}}})"
      "\n";
  ResultsContent content;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(v1, &content, &warnings, &err)) << err;
  EXPECT_TRUE(warnings.empty()) << warnings.front();
  ASSERT_EQ(content.results.size(), 1u);
  EXPECT_EQ(content.results[0].record_json,
            R"({"status":"ok","deps":{"functions":{"kornia/a.py:f":"a1","kornia/b.py:g":"b1"},"modules":null}})");
  // written again, as version 2: the same record when read back
  std::string v2 = Text(content);
  EXPECT_EQ(v2.rfind(R"({"format":"opsweep-results-text","version":2,)", 0), 0u) << v2;
  ResultsContent again;
  ASSERT_TRUE(ReadResultsText(v2, &again, &warnings, &err)) << err;
  EXPECT_EQ(again.results[0].record_json, content.results[0].record_json);
}

TEST(ResultsText, SkipsDamagedLinesAndSaysSo) {
  std::string text = Text(Content());
  size_t runs_end = text.find('\n', text.find('\n', text.find('\n') + 1) + 1);
  // a garbage line after the runs, and a result whose depset is gone
  std::string damaged = text.substr(0, runs_end + 1) + "{not json\n" + text.substr(runs_end + 1);
  size_t depset = damaged.find(R"({"depset":")");
  damaged.erase(depset, damaged.find('\n', depset) - depset + 1);
  // and an entry gone: the depset naming it cannot be rebuilt, nor the results that use it
  size_t entry = damaged.find(R"({"entry":")");
  damaged.erase(entry, damaged.find('\n', entry) - entry + 1);
  ResultsContent content;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(damaged, &content, &warnings, &err)) << err;
  ASSERT_GE(warnings.size(), 4u);
  EXPECT_EQ(warnings[0], "line 4: not a JSON object; skipped");
  EXPECT_NE(warnings[1].find("refers to entry "), std::string::npos) << warnings[1];
  EXPECT_NE(warnings[2].find("refers to depset @"), std::string::npos) << warnings[2];
  EXPECT_NE(warnings.back().find("of the 4 results its header announces"), std::string::npos) << warnings.back();
  EXPECT_EQ(content.results.size(), 1u);  // only the result without deps
}

TEST(ResultsText, ADepsetNamingAnEmptyEntryIdIsSkippedNotCutShort) {
  // An entry id is never empty; a depset that lists "" lists an entry the file lacks, so it is
  // skipped like any other, not kept with the entries before it.
  std::string v2 =
      R"({"format":"opsweep-results-text","version":2,"runs":1,"cases":0,"entries":1,"depsets":1,"results":1})"
      "\n"
      R"({"run":1,"started":"s","finished":"f","shard":"1/1","harness":"h","registries":[],"env":{},"paths":[]})"
      "\n"
      R"({"entry":"e1","name":"a.py:f","value":"a1"})"
      "\n"
      R"({"depset":"d1","entries":["e1",""]})"
      "\n"
      R"({"result":"f","path":"onnx","status":"ok","finished":"f","duration_s":1.0,"attempts":0,"run":1,)"
      R"("job_key":"k","key":{},"record":{"status":"ok","deps":{"functions":"@d1","modules":null}}})"
      "\n";
  ResultsContent content;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(v2, &content, &warnings, &err)) << err;
  ASSERT_GE(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "line 4: depset d1 refers to entry , which the file lacks before it; skipped");
  EXPECT_NE(warnings[1].find("refers to depset @d1"), std::string::npos) << warnings[1];
  EXPECT_TRUE(content.results.empty());
}

TEST(ResultsText, ATruncatedFileNeverCrashesTheReader) {
  const std::string text = Text(Content());
  ResultsContent full;
  std::vector<std::string> warnings;
  std::string err;
  ASSERT_TRUE(ReadResultsText(text, &full, &warnings, &err));
  const size_t header_end = text.find('\n') + 1;
  for (size_t n = 0; n <= text.size(); ++n) {
    ResultsContent got;
    bool ok = ReadResultsText(std::string_view(text).substr(0, n), &got, &warnings, &err);
    if (n < header_end) {
      EXPECT_FALSE(ok) << n;
      continue;
    }
    ASSERT_TRUE(ok) << n << ": " << err;
    // what it read is a prefix of the results, each one whole
    ASSERT_LE(got.results.size(), full.results.size()) << n;
    for (size_t i = 0; i < got.results.size(); ++i) {
      EXPECT_EQ(got.results[i].record_json, full.results[i].record_json) << n;
    }
    // a shorter file always says so
    EXPECT_EQ(warnings.empty(), n == text.size()) << n;
  }
}

TEST(ResultsText, ExportImportExportIsByteIdentical) {
  TempDir dir;
  ResultsDb original;
  std::string err;
  ASSERT_TRUE(original.Open(dir.File("a.db"), OpenMode::read_write_create, &err)) << err;
  ImportSummary summary;
  ASSERT_TRUE(original.Import(Content(), &summary, &err)) << err;
  EXPECT_EQ(summary.results_added, 4u);
  EXPECT_EQ(summary.runs_added, 3u);
  EXPECT_TRUE(summary.inventory_replaced);
  ResultsContent loaded;
  ASSERT_TRUE(original.LoadAll(&loaded, &err)) << err;
  std::string first = Text(loaded);

  ResultsContent read;
  std::vector<std::string> warnings;
  ASSERT_TRUE(ReadResultsText(first, &read, &warnings, &err)) << err;
  ResultsDb copy;
  ASSERT_TRUE(copy.Open(dir.File("b.db"), OpenMode::read_write_create, &err)) << err;
  ASSERT_TRUE(copy.Import(read, &summary, &err)) << err;
  ResultsContent again;
  ASSERT_TRUE(copy.LoadAll(&again, &err)) << err;
  EXPECT_EQ(Text(again), first);
  // importing the same file twice changes nothing
  ASSERT_TRUE(copy.Import(read, &summary, &err)) << err;
  EXPECT_EQ(summary.runs_added, 0u);
  EXPECT_EQ(summary.results_added + summary.results_replaced, 0u);
  EXPECT_EQ(summary.results_kept, 4u);
  ASSERT_TRUE(copy.LoadAll(&again, &err)) << err;
  EXPECT_EQ(Text(again), first);
}

TEST(ResultsDbImport, TheLaterResultWins) {
  TempDir dir;
  ResultsDb db;
  std::string err;
  ASSERT_TRUE(db.Open(dir.File("a.db"), OpenMode::read_write_create, &err)) << err;
  ImportSummary summary;
  ASSERT_TRUE(db.Import(Content(), &summary, &err)) << err;
  ResultsContent newer;
  newer.runs = {Content().runs[0]};
  newer.runs[0].id = 1;
  newer.runs[0].started = "2026-12-02T00:00:00Z";
  StoredResult later = Result("sobel", "onnx", 1, "2026-12-02T00:10:00Z");
  later.status = "fail";
  StoredResult earlier = Result("canny", "onnx", 1, "2026-11-01T00:00:00Z");
  earlier.status = "fail";
  newer.results = {later, earlier};
  ASSERT_TRUE(db.Import(newer, &summary, &err)) << err;
  EXPECT_EQ(summary.results_replaced, 1u);
  EXPECT_EQ(summary.results_kept, 1u);
  EXPECT_FALSE(summary.inventory_replaced);  // it brought none
  EXPECT_EQ(db.FindResult("sobel", "onnx")->status, "fail");
  EXPECT_EQ(db.FindResult("canny", "onnx")->status, "ok");
}

}  // namespace
}  // namespace opsweep

namespace opsweep {
namespace {

// Shards measured in the same second: import breaks the tie like merge (the larger record text),
// so the order in which shards are imported never changes the result.
TEST(ResultsDbImport, EqualTimesAreBrokenLikeMergeWhateverTheOrder) {
  StoredResult a = Result("sobel", "onnx", 1, "2026-12-02T00:10:00Z");
  StoredResult b = a;
  b.status = "timeout";
  b.record_json = R"({"status":"timeout","step":"worker","detail":"no result after 600 s"})";
  ASSERT_LT(a.record_json, b.record_json);
  for (bool b_first : {false, true}) {
    TempDir dir;
    ResultsDb db;
    std::string err;
    ASSERT_TRUE(db.Open(dir.File("a.db"), OpenMode::read_write_create, &err)) << err;
    for (const StoredResult* r : b_first ? std::vector{&b, &a} : std::vector{&a, &b}) {
      ResultsContent c;
      c.runs = {Content().runs[0]};
      c.runs[0].id = 1;
      c.results = {*r};
      ImportSummary summary;
      ASSERT_TRUE(db.Import(c, &summary, &err)) << err;
    }
    EXPECT_EQ(db.FindResult("sobel", "onnx")->status, "timeout") << (b_first ? "b first" : "a first");
  }
}

}  // namespace
}  // namespace opsweep
