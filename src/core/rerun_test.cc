#include "core/rerun.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

JobKey Key(const std::string& torch, const std::string& onnxruntime = "1.32.0") {
  KeyEnvironment env;
  env.values["torch"] = torch;
  env.values["onnxruntime"] = onnxruntime;
  env.library = "kornia";
  return ComputeJobKey("fp", testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"}), env);
}

// An index of three functions and two modules.
LibraryIndex Index() {
  LibraryIndex index;
  index.known = true;
  index.library = "kornia";
  index.functions = {{"kornia/color/gray.py:rgb_to_grayscale", "g1"},
                     {"kornia/core/check.py:KORNIA_CHECK", "c1"},
                     {"kornia/filters/gaussian.py:gaussian_blur2d", "b1"}};
  index.modules = {{"kornia/color/gray.py", "mg1"}, {"kornia/core/check.py", "mc1"}};
  return index;
}

nlohmann::json GrayDeps() {
  return nlohmann::json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g1",
    "kornia/core/check.py:KORNIA_CHECK":"c1"},"modules":{"kornia/color/gray.py":"mg1","kornia/core/check.py":"mc1"}})");
}

StoredJob Stored(const JobKey& key, Status status, int attempts, nlohmann::json deps = GrayDeps(),
                 std::string fingerprint = "fp-lib") {
  return StoredJob{key.digest, key.fields_json, status, attempts, 1.5, deps.is_null() ? "" : deps.dump(),
                   std::move(fingerprint)};
}

TEST(DecideRerun, ANewJobRuns) {
  LibraryIndex index = Index();
  RerunDecision d = DecideRerun(std::nullopt, Key("2.13"), {&index, "fp-lib"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::new_result);
  EXPECT_EQ(d.Why(), "no stored result");
}

// A path whose harness went h0 -> h1 (migration m1, re-running frozen-randomness results) and
// h1 -> h-onnx (m2, re-running results that name a dynamic guard).
PathSpec MigratedPath() {
  PathSpec path = testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"});
  path.migrations = {{"m2", "h1", "h-onnx", "guards reworded", {"Guard failed"}},
                     {"m1", "h0", "h1", "more seeds for the randomness check", {"randomness frozen at capture"}}};
  return path;
}

// A path whose harness went through five migrations (h0 -> h5), newest first as in the migrations file.
PathSpec LongMigratedPath() {
  PathSpec path = testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"});
  for (int i = 5; i >= 1; --i) {
    path.migrations.push_back({fmt::format("m{}", i), fmt::format("h{}", i - 1), i == 5 ? "h-onnx" : fmt::format("h{}", i),
                               "reworded", {"Guard failed"}});
  }
  return path;
}

// The onnx test path's key for a case fingerprint under a harness digest (and a torch).
JobKey CaseKey(const std::string& fingerprint, const std::string& harness = "h-onnx", const std::string& torch = "2.13") {
  PathSpec p = testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"});
  p.harness = harness;
  KeyEnvironment env;
  env.values["torch"] = torch;
  env.values["onnxruntime"] = "1.32.0";
  env.library = "kornia";
  return ComputeJobKey(fingerprint, p, env);
}

TEST(DecideRerun, AHarnessMigrationCarriesOverTheResultsItCannotChange) {
  LibraryIndex index = Index();
  const PathSpec path = MigratedPath();
  const JobKey now = CaseKey("fp", path.harness);
  // two migrations back, no mark in the record: current, and the sentence names both migrations
  StoredJob old = Stored(CaseKey("fp", "h0"), Status::ok, 0);
  RerunDecision d = DecideRerun(old, now, {&index, "fp-lib"}, RetryFailed::no, &path);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.cause, RerunCause::current);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current: measured under an earlier harness of path onnx, which "
                     "migrations m1 and m2 carry over");
  // one migration back: named alone
  EXPECT_EQ(DecideRerun(Stored(CaseKey("fp", "h1"), Status::ok, 0), now, {&index, "fp-lib"}, RetryFailed::no, &path)
                .Why(),
            "the stored result (ok) is current: measured under an earlier harness of path onnx, which migration m2 "
            "carries over");
  // a carried result is still judged on its library code
  StoredJob edited = old;
  edited.deps_json = nlohmann::json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g0"}})").dump();
  RerunDecision code = DecideRerun(edited, now, {&index, "fp-lib"}, RetryFailed::no, &path);
  EXPECT_TRUE(code.run);
  EXPECT_EQ(code.cause, RerunCause::code_changed);
  // and a carried timeout is retried like any other
  StoredJob timeout = Stored(CaseKey("fp", "h1"), Status::timeout, 1);
  EXPECT_EQ(DecideRerun(timeout, now, {&index, "fp-lib"}, RetryFailed::no, &path).cause, RerunCause::retry);
}

TEST(DecideRerun, AResultAMigrationMarksRunsAgainAndSaysWhy) {
  LibraryIndex index = Index();
  const PathSpec path = MigratedPath();
  const JobKey now = CaseKey("fp", path.harness);
  StoredJob frozen = Stored(CaseKey("fp", "h0"), Status::mismatch, 0);
  frozen.record_marks = {"randomness frozen at capture"};
  RerunDecision d = DecideRerun(frozen, now, {&index, "fp-lib"}, RetryFailed::no, &path);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::harness_changed);
  EXPECT_EQ(d.Why(), "the harness code of path onnx changed; migration m1 (more seeds for the randomness check) "
                     "re-runs the results whose record says 'randomness frozen at capture', as this one does");
  // another field of the key changed as well: said after the migration's sentence
  JobKey other = now;
  {
    auto fields = nlohmann::ordered_json::parse(now.fields_json);
    auto old_fields = nlohmann::ordered_json::parse(frozen.key_fields_json);
    fields["opsets"] = "17,18,23";
    old_fields["opsets"] = "17,18,24";
    other.fields_json = fields.dump();
    other.digest = "another-digest";
    StoredJob both = frozen;
    both.key_fields_json = old_fields.dump();
    RerunDecision d2 = DecideRerun(both, other, {&index, "fp-lib"}, RetryFailed::no, &path);
    EXPECT_EQ(d2.cause, RerunCause::harness_changed);
    ASSERT_EQ(d2.reasons.size(), 3u) << d2.Why();
    EXPECT_EQ(d2.reasons[2], "opsets 17,18,24 -> 17,18,23") << d2.Why();
  }
  // measured after m1 (under h1), only m2's marks count: the same record stands
  StoredJob later = frozen;
  later.job_key = CaseKey("fp", "h1").digest;
  later.key_fields_json = CaseKey("fp", "h1").fields_json;
  EXPECT_FALSE(DecideRerun(later, now, {&index, "fp-lib"}, RetryFailed::no, &path).run);
}

TEST(DecideRerun, AFingerprintTheSameRecipeGaveOnAnotherMachineIsTheSameCase) {
  LibraryIndex index = Index();
  const std::string here = "Intel Xeon, avx2 avx512f fma";
  const std::string there = "AMD EPYC, avx2 fma";
  const JobKey now = CaseKey("fp-intel");
  StoredJob stored = Stored(CaseKey("fp-amd"), Status::ok, 0);
  stored.case_identities = {{"R1", there}};
  RerunDecision d = DecideRerun(stored, now, {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R1");
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current: its case's inputs, from the same sources, were computed on "
                     "another machine (AMD EPYC, avx2 fma)");
  // still judged on its library code
  StoredJob edited = stored;
  edited.deps_json = nlohmann::json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g0"}})").dump();
  EXPECT_EQ(DecideRerun(edited, now, {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R1").cause,
            RerunCause::code_changed);

  // another recipe (a registry, the library or torch changed), no recipe, or an unknown machine: the case changed
  for (const auto& [recipe, machine] : std::vector<std::pair<std::string, std::string>>{
           {"R2", here}, {"", here}, {"R1", ""}}) {
    RerunDecision changed = DecideRerun(stored, now, {&index, "fp-lib", machine}, RetryFailed::no, nullptr, recipe);
    EXPECT_TRUE(changed.run) << recipe << " / " << machine;
    EXPECT_EQ(changed.cause, RerunCause::case_changed);
  }
  // the fingerprint came from this recipe on this very machine: something besides the CPU changed it
  StoredJob here_too = stored;
  here_too.case_identities.push_back({"R1", here});
  EXPECT_TRUE(DecideRerun(here_too, now, {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R1").run);
  // the stored fingerprint is not known to come from any recipe
  StoredJob unknown = stored;
  unknown.case_identities.clear();
  EXPECT_TRUE(DecideRerun(unknown, now, {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R1").run);
}

TEST(DecideRerun, AnEditThatLeavesThisMachinesInputsAloneKeepsAnotherMachinesResult) {
  // The stored result was measured on an AMD machine (fp-amd under recipe R1); this Intel machine
  // computed fp-intel under R1. The library was edited since: every recipe changed (R2), and this
  // machine still computes fp-intel.
  LibraryIndex index = Index();
  const std::string here = "Intel Xeon", there = "AMD EPYC";
  using Ids = std::map<std::string, std::vector<std::pair<std::string, std::string>>>;
  StoredJob stored = Stored(CaseKey("fp-amd"), Status::ok, 0);
  stored.case_identities = {{"R1", there}};
  stored.identities = std::make_shared<Ids>(Ids{{"fp-amd", {{"R1", there}}}, {"fp-intel", {{"R1", here}}}});
  RerunDecision d = DecideRerun(stored, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2");
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current: its case's inputs were computed on another machine (AMD EPYC) "
                     "from earlier sources, which gave this machine the inputs it computes now");
  // the edit changed this machine's inputs (another fingerprint now): the case changed
  d = DecideRerun(stored, CaseKey("fp-intel-2"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2");
  EXPECT_EQ(d.cause, RerunCause::case_changed);
  // this machine never computed fp-intel under a recipe the stored fingerprint came from
  StoredJob other = stored;
  other.identities = std::make_shared<Ids>(Ids{{"fp-intel", {{"R0", here}}}});
  EXPECT_EQ(DecideRerun(other, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2").cause,
            RerunCause::case_changed);
  // under R1 this machine got both fingerprints: not the CPU's doing, nothing carries
  StoredJob both = stored;
  both.case_identities.push_back({"R1", here});
  EXPECT_EQ(DecideRerun(both, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2").cause,
            RerunCause::case_changed);
  // this machine got the stored fingerprint from the current recipe: nothing carries either
  StoredJob now_here = stored;
  now_here.case_identities.push_back({"R2", here});
  EXPECT_EQ(DecideRerun(now_here, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2").cause,
            RerunCause::case_changed);
  // an unknown machine here, or no identities at all
  EXPECT_TRUE(DecideRerun(stored, CaseKey("fp-intel"), {&index, "fp-lib", ""}, RetryFailed::no, nullptr, "R2").run);
  StoredJob none = stored;
  none.identities.reset();
  EXPECT_TRUE(DecideRerun(none, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2").run);
  // and the library code the result depends on still decides
  StoredJob edited = stored;
  edited.deps_json = nlohmann::json::parse(R"({"functions":{"kornia/color/gray.py:rgb_to_grayscale":"g0"}})").dump();
  EXPECT_EQ(DecideRerun(edited, CaseKey("fp-intel"), {&index, "fp-lib", here}, RetryFailed::no, nullptr, "R2").cause,
            RerunCause::code_changed);
}

TEST(DecideRerun, ALongChainOfMigrationsIsCountedNotListed) {
  LibraryIndex index = Index();
  const PathSpec path = LongMigratedPath();
  const JobKey now = CaseKey("fp", path.harness);
  RerunDecision d = DecideRerun(Stored(CaseKey("fp", "h0"), Status::ok, 0), now, {&index, "fp-lib"}, RetryFailed::no, &path);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current: measured under an earlier harness of path onnx, which "
                     "5 migrations carry over, m1 to m5");
  // three are still named
  EXPECT_EQ(DecideRerun(Stored(CaseKey("fp", "h2"), Status::ok, 0), now, {&index, "fp-lib"}, RetryFailed::no, &path)
                .Why(),
            "the stored result (ok) is current: measured under an earlier harness of path onnx, which migrations m3, "
            "m4 and m5 carry over");
}

TEST(DecideRerun, ACaseFromAnotherMachineAndAMigratedHarnessCarryTogether) {
  LibraryIndex index = Index();
  const PathSpec path = MigratedPath();
  const std::string here = "Intel Xeon", there = "AMD EPYC";
  StoredJob stored = Stored(CaseKey("fp-amd", "h0"), Status::ok, 0);
  stored.case_identities = {{"R1", there}};
  RerunDecision d = DecideRerun(stored, CaseKey("fp-intel", path.harness), {&index, "fp-lib", here}, RetryFailed::no,
                                &path, "R1");
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current: its case's inputs, from the same sources, were computed on "
                     "another machine (AMD EPYC); measured under an earlier harness of path onnx, which migrations m1 and m2 "
                     "carry over");
  // either one failing to carry runs the job
  stored.record_marks = {"Guard failed"};
  EXPECT_EQ(DecideRerun(stored, CaseKey("fp-intel", path.harness), {&index, "fp-lib", here}, RetryFailed::no, &path, "R1")
                .cause,
            RerunCause::harness_changed);
  stored.record_marks.clear();
  EXPECT_EQ(DecideRerun(stored, CaseKey("fp-intel", path.harness), {&index, "fp-lib", here}, RetryFailed::no, &path, "R2")
                .cause,
            RerunCause::case_changed);
}

TEST(DecideRerun, NoMigrationCarriesAResultWhoseOtherKeyFieldsChangedOrWhoseDigestItDoesNotKnow) {
  LibraryIndex index = Index();
  const PathSpec path = MigratedPath();
  const JobKey now = CaseKey("fp", path.harness);
  // another torch as well: the harness migration does not speak for it
  RerunDecision torch = DecideRerun(Stored(CaseKey("fp", "h0", "2.12"), Status::ok, 0), now, {&index, "fp-lib"},
                                    RetryFailed::no, &path);
  EXPECT_TRUE(torch.run);
  EXPECT_EQ(torch.cause, RerunCause::harness_changed);
  // a digest no chain leads from
  RerunDecision unknown =
      DecideRerun(Stored(CaseKey("fp", "h-other"), Status::ok, 0), now, {&index, "fp-lib"}, RetryFailed::no, &path);
  EXPECT_TRUE(unknown.run);
  EXPECT_EQ(unknown.Why(), "the harness code of path onnx changed");
  // without the path's description, nothing is carried
  EXPECT_TRUE(DecideRerun(Stored(CaseKey("fp", "h1"), Status::ok, 0), now, {&index, "fp-lib"}, RetryFailed::no).run);
}

TEST(DecideRerun, ACaseThatChangedOnAnotherMachineSaysWhereItWasMeasured) {
  LibraryIndex index = Index();
  KeyEnvironment env;
  env.values["torch"] = "2.13";
  env.values["onnxruntime"] = "1.32.0";
  env.library = "kornia";
  const PathSpec path = testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"});
  JobKey then = ComputeJobKey("fp-then", path, env);
  JobKey now = ComputeJobKey("fp-now", path, env);
  StoredJob stored = Stored(then, Status::ok, 0);
  stored.machine = "Old CPU, avx fma avx2";  // MachineText of the runs' machine_json
  const std::string here = "New CPU, avx fma avx2 avx512f";

  RerunDecision d = DecideRerun(stored, now, {&index, "fp-lib", here}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_TRUE(d.other_machine);
  EXPECT_EQ(d.cause, RerunCause::case_changed);
  ASSERT_EQ(d.reasons.size(), 2u);
  EXPECT_EQ(d.reasons[0], "the case changed (its target, inputs or options)");
  EXPECT_EQ(d.reasons[1],
            "it was measured on another machine (Old CPU, avx fma avx2; this one: New CPU, avx fma avx2 avx512f), "
            "where inputs computed in float32 can round differently");

  // the same machine, or one of them unknown: the case changed, and nothing more is said
  for (const std::string& machine : {here, std::string()}) {
    stored.machine = machine;
    RerunDecision same = DecideRerun(stored, now, {&index, "fp-lib", here}, RetryFailed::no);
    EXPECT_EQ(same.reasons, (std::vector<std::string>{"the case changed (its target, inputs or options)"}));
  }
  stored.machine = "Old CPU";
  EXPECT_EQ(DecideRerun(stored, now, {&index, "fp-lib", ""}, RetryFailed::no).reasons.size(), 1u);
  // a current result measured elsewhere is current: the machine alone re-probes nothing
  EXPECT_FALSE(DecideRerun(stored, then, {&index, "fp-lib", here}, RetryFailed::no).run);
}

TEST(DecideRerun, AResultIsCurrentWhileItsDepsAreUnchanged) {
  LibraryIndex index = Index();
  JobKey k = Key("2.13");
  // another function of the library changed, and the library's fingerprint with it: not ours
  index.functions["kornia/filters/gaussian.py:gaussian_blur2d"] = "b2";
  RerunDecision d = DecideRerun(Stored(k, Status::fail, 0), k, {&index, "fp-lib-edited"}, RetryFailed::yes);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.cause, RerunCause::current);
  EXPECT_EQ(d.Why(), "the stored result (fail) is current");
}

TEST(DecideRerun, AChangedFunctionOrModuleReprobesItsJobsWithOneSentenceEach) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  index.functions["kornia/color/gray.py:rgb_to_grayscale"] = "g2";
  RerunDecision d = DecideRerun(Stored(k, Status::ok, 0), k, {&index, "x"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::code_changed);
  EXPECT_EQ(d.Why(), "kornia/color/gray.py:rgb_to_grayscale changed");

  index = Index();
  index.modules["kornia/core/check.py"] = "mc2";
  index.functions.erase("kornia/core/check.py:KORNIA_CHECK");
  d = DecideRerun(Stored(k, Status::ok, 0), k, {&index, "x"}, RetryFailed::no);
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"kornia/core/check.py:KORNIA_CHECK was removed",
                                                 "module-level code of kornia/core/check.py changed"}));

  index = Index();
  index.modules["kornia/color/gray.py"] = "changed-during-run";
  d = DecideRerun(Stored(k, Status::ok, 0), k, {&index, "x"}, RetryFailed::no);
  EXPECT_EQ(d.Why(), "kornia/color/gray.py was edited while the job ran");
  // recorded while the file was being edited: never current
  nlohmann::json deps = GrayDeps();
  deps["functions"]["kornia/color/gray.py:rgb_to_grayscale"] = "changed-during-run";
  d = DecideRerun(Stored(k, Status::ok, 0, deps), k, {&index, "x"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
}

TEST(DecideRerun, ADamagedDepsObjectIsNeverCurrent) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  RerunDecision d = DecideRerun(Stored(k, Status::ok, 0, nlohmann::json::parse(R"({"functions":[1]})")), k,
                                {&index, "fp-lib"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.Why(), "the record's deps are unreadable");
}

TEST(DecideRerun, WithoutDepsOrIndexTheWholeLibraryCounts) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  // a crash records no deps: any library change re-probes it
  RerunDecision d = DecideRerun(Stored(k, Status::crash, 2, nullptr, "fp-old"), k, {&index, "fp-new"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::code_changed);
  EXPECT_NE(d.Why().find("records no dependencies"), std::string::npos) << d.Why();
  d = DecideRerun(Stored(k, Status::crash, 2, nullptr, "fp-new"), k, {&index, "fp-new"}, RetryFailed::no);
  EXPECT_FALSE(d.run);
  // no index from the worker: deps cannot be checked, the fingerprint decides
  LibraryIndex none;
  d = DecideRerun(Stored(k, Status::ok, 0, GrayDeps(), "fp-old"), k, {&none, "fp-new"}, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_NE(d.Why().find("sent no index"), std::string::npos) << d.Why();
  d = DecideRerun(Stored(k, Status::ok, 0, GrayDeps(), "fp-new"), k, {nullptr, "fp-new"}, RetryFailed::no);
  EXPECT_FALSE(d.run);
}

TEST(DecideRerun, KeyFieldsSayWhatChanged) {
  JobKey k = Key("2.13", "1.33.0");
  LibraryIndex index = Index();
  RerunDecision d = DecideRerun(Stored(Key("2.13", "1.32.0"), Status::ok, 0), k, {&index, "fp-lib"}, RetryFailed::no);
  EXPECT_EQ(d.cause, RerunCause::environment_changed);
  EXPECT_EQ(d.Why(), "onnxruntime 1.32.0 -> 1.33.0");

  KeyEnvironment env;
  env.values["torch"] = "2.13";
  env.values["onnxruntime"] = "1.32.0";
  env.library = "kornia";
  JobKey other_case = ComputeJobKey("fp2", testing::TestPath("onnx", {"export"}, {"torch", "onnxruntime"}), env);
  d = DecideRerun(Stored(Key("2.12"), Status::ok, 0), other_case, {&index, "fp-lib"}, RetryFailed::no);
  EXPECT_EQ(d.cause, RerunCause::case_changed);  // the case outranks the environment
  EXPECT_EQ(d.reasons, (std::vector<std::string>{"the case changed (its target, inputs or options)",
                                                 "torch 2.12 -> 2.13"}));
}

TEST(KeyFieldSentences, NameTheHarnessAndTheLibrary) {
  RerunCause cause;
  EXPECT_EQ(KeyFieldSentences(R"({"case":"a","path":"onnx","harness":"h1","library":"kornia 0.9.0 abc"})",
                              R"({"case":"a","path":"onnx","harness":"h2","library":"kornia"})", &cause),
            (std::vector<std::string>{"the surveyed library changed (kornia 0.9.0 abc -> kornia)",
                                      "the harness code of path onnx changed"}));
  EXPECT_EQ(cause, RerunCause::library_changed);
  EXPECT_EQ(KeyFieldSentences(R"({"case":"a"})", R"({"case":"a","opset":"18"})", &cause),
            (std::vector<std::string>{"opset is now part of the key (18)"}));
  EXPECT_EQ(cause, RerunCause::environment_changed);
  EXPECT_EQ(KeyFieldSentences("not json", R"({"case":"a"})", &cause),
            (std::vector<std::string>{"the stored job key is unreadable"}));
}

TEST(DecideRerun, EngineStatusesAreRetriedOnce) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  LibraryState lib{&index, "fp-lib"};
  RerunDecision d = DecideRerun(Stored(k, Status::crash, 1), k, lib, RetryFailed::no);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::retry);
  EXPECT_EQ(d.Why(), "the stored crash is retried once (attempt 2 of 2)");

  d = DecideRerun(Stored(k, Status::timeout, 2), k, lib, RetryFailed::no);
  EXPECT_FALSE(d.run);
  EXPECT_EQ(d.Why(), "the stored timeout is current and was already retried (2 attempts); --retry-failed re-runs it");

  d = DecideRerun(Stored(k, Status::timeout, 2), k, lib, RetryFailed::yes);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::retry_failed);
}

TEST(DecideRerun, ForceReprobesCurrentResultsAndKeepsTheRealCauseOfStaleOnes) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  LibraryState lib{&index, "fp-lib"};
  RerunDecision d = DecideRerun(Stored(k, Status::ok, 0), k, lib, RetryFailed::no);
  ASSERT_FALSE(d.run);
  d = DecideRerun(Stored(k, Status::ok, 0), k, lib, RetryFailed::yes);  // --retry-failed leaves an ok alone
  EXPECT_FALSE(d.run);
  d = DecideRerun(Stored(k, Status::ok, 0), k, lib, RetryFailed::everything);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::forced);
  EXPECT_EQ(d.Why(), "the stored result (ok) is current, and --force re-probes it");
  EXPECT_EQ(RerunCauseLabel(d.cause), "--force");
  // a crash already retried runs as with --retry-failed, and says which option asked
  d = DecideRerun(Stored(k, Status::timeout, 2), k, lib, RetryFailed::everything);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::retry_failed);
  EXPECT_EQ(d.Why(), "the stored timeout is re-run because of --force");
  // a stale result keeps its own cause and sentence: --force adds nothing to it
  d = DecideRerun(Stored(Key("2.12"), Status::ok, 0), k, lib, RetryFailed::everything);
  EXPECT_TRUE(d.run);
  EXPECT_EQ(d.cause, RerunCause::environment_changed);
  d = DecideRerun(std::nullopt, k, lib, RetryFailed::everything);
  EXPECT_EQ(d.cause, RerunCause::new_result);
}

TEST(RerunDecision, WhyShowsTheFirstReasonsThenACount) {
  RerunDecision d{true, RerunCause::code_changed, {"a changed", "b changed", "c changed", "d changed", "e changed"}};
  EXPECT_EQ(d.Why(), "a changed; b changed; c changed; and 2 more");
  EXPECT_EQ(d.Why(10), "a changed; b changed; c changed; d changed; e changed");
}

TEST(NextAttempts, CountsConsecutiveEngineFailuresOfACurrentJob) {
  JobKey k = Key("2.13");
  LibraryIndex index = Index();
  LibraryState lib{&index, "fp-lib"};
  auto decide = [&](const std::optional<StoredJob>& s) { return DecideRerun(s, k, lib, RetryFailed::no); };
  EXPECT_EQ(NextAttempts(std::nullopt, decide(std::nullopt), Status::ok), 0);
  EXPECT_EQ(NextAttempts(std::nullopt, decide(std::nullopt), Status::crash), 1);
  StoredJob crashed = Stored(k, Status::crash, 1);
  EXPECT_EQ(NextAttempts(crashed, decide(crashed), Status::timeout), 2);
  EXPECT_EQ(NextAttempts(crashed, decide(crashed), Status::ok), 0);
  StoredJob stale = Stored(Key("2.12"), Status::crash, 2);
  EXPECT_EQ(NextAttempts(stale, decide(stale), Status::crash), 1);
  // the library code it ran changed: a new job, its count starts again
  index.functions["kornia/color/gray.py:rgb_to_grayscale"] = "g2";
  StoredJob edited = Stored(k, Status::crash, 1);
  EXPECT_EQ(NextAttempts(edited, decide(edited), Status::crash), 1);
}

}  // namespace
}  // namespace opsweep
