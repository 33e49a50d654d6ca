#include "classify/rules.h"

#include <gtest/gtest.h>

#include <chrono>
#include <set>

#include "classify/classifier.h"
#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

std::string LoadError(const std::string& text);

RuleSet LoadEmbedded() {
  RuleSet set;
  std::string err;
  EXPECT_TRUE(LoadRules(EmbeddedRuleSources(), &set, &err)) << err;
  return set;
}

TEST(Rules, EmbeddedRulesFitTheBundledPaths) {
  RuleSet set = LoadEmbedded();
  EXPECT_EQ(CheckRulesAgainstPaths(set, testing::BundledPaths()), std::vector<std::string>{});
}

// The bundled paths as a worker run with `--opsets 17,18,23` describes them: two opset sub-verdicts.
std::vector<PathSpec> BundledPathsWithOpsets() {
  std::vector<PathSpec> paths = testing::BundledPaths();
  for (PathSpec& p : paths) {
    if (p.id != "onnx") continue;
    for (const char* id : {"opset17", "opset23"}) {
      SubVerdictSpec s;
      s.id = id;
      s.title = s.label = id;
      s.kind = SubVerdictKind::opset;
      s.steps = {std::string(id) == "opset17" ? "convert" : "export", "checker", "ort-load", "ort-run", "compare"};
      p.subverdicts.push_back(s);
    }
  }
  return paths;
}

TEST(Rules, EmbeddedRulesFitTheSubVerdictsOfEveryOpset) {
  RuleSet set = LoadEmbedded();
  EXPECT_EQ(CheckRulesAgainstPaths(set, BundledPathsWithOpsets()), std::vector<std::string>{});
}

TEST(Rules, SubVerdictPatterns) {
  EXPECT_TRUE(SubVerdictPatternMatches("opset*", "opset17"));
  EXPECT_FALSE(SubVerdictPatternMatches("opset*", "opset"));
  EXPECT_TRUE(SubVerdictPatternMatches("tract", "tract"));
  EXPECT_FALSE(SubVerdictPatternMatches("tract", "tract2"));
  EXPECT_NE(LoadError(R"({"version":1,"rules":[{"id":"a","order":1,"subverdicts":["Open VINO"],"statuses":["fail"],
    "title":"t","cause":"c","hint":"h","component":"x","sample":"s"}]})")
                .find("sub-verdict 'Open VINO' is not an id"),
            std::string::npos);
}

// A path's outcome meets the path rules; a runtime's sub-verdict only the rules that name it; an
// opset's sub-verdict both (it repeats the path's pipeline).
TEST(Rules, SubVerdictRulesMeetOnlyTheirSubVerdicts) {
  RuleSet set = LoadEmbedded();
  Classifier classifier(set);
  auto id = [&](ClassifyInput in) {
    const Rule* r = classifier.Classify(in).rule;
    return r ? r->id : std::string("(none)");
  };
  const char* tract_error = "Translating node #1 \"n0\" Unimplemented(Det) ToTypedTranslator";
  EXPECT_EQ(id({"onnx", "compile", Status::fail, "", "TractError", tract_error, "", "tract"}), "tract-missing-op");
  // the same text as the path's own outcome, or another runtime's, is not tract's reason
  EXPECT_EQ(id({"onnx", "ort-load", Status::fail, "", "TractError", tract_error, ""}), "ort-load-failure");
  // (another runtime's failure without a rule of its own gets the runtimes' fallback)
  EXPECT_EQ(id({"onnx", "compile", Status::fail, "", "TractError", tract_error, "", "openvino"}), "runtime-failure");
  // a runtime's timeout is the runtime's, not the engine's
  EXPECT_EQ(id({"onnx", "run", Status::timeout, "no answer within the 60 s time limit", "", "", "", "reference"}),
            "runtime-timeout");
  EXPECT_EQ(id({"onnx", "worker", Status::timeout, "no result after 600 s", "", "", ""}), "timeout");
  // an opset above 18 exports again: the path's export rules classify it
  const char* missing = "No ONNX function found for <OpOverload(op='aten._linalg_svd', overload='default')>. Failure";
  ClassifyInput opset{"onnx", "export", Status::fail, "", "DispatchError", missing, "", "opset23", SubVerdictKind::opset};
  EXPECT_EQ(id(opset), "onnx-missing-lowering");
  ClassifyInput runtime = opset;
  runtime.subverdict = "openvino";
  runtime.subverdict_kind = SubVerdictKind::runtime;
  EXPECT_EQ(id(runtime), "runtime-failure");  // not the path's export rule
}

TEST(Rules, SubVerdictStepsAreCheckedAgainstTheirDescriptions) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules({{"r.json", R"({"version":1,"rules":[
    {"id":"a","order":1,"paths":["toy"],"subverdicts":["ov"],"steps":["lod"],"title":"t","cause":"c","hint":"h",
     "component":"x","sample":"s"},
    {"id":"b","order":2,"paths":["toy"],"subverdicts":["ov"],"steps":["load"],"title":"t","cause":"c","hint":"h",
     "component":"x","sample":"s"},
    {"id":"c","order":3,"paths":["toy"],"subverdicts":["opset*"],"steps":["whatever"],"title":"t","cause":"c",
     "hint":"h","component":"x","sample":"s"}]})"}},
                        &set, &err))
      << err;
  PathSpec toy = testing::TestPath("toy", {"capture"});
  SubVerdictSpec ov;
  ov.id = "ov";
  ov.title = ov.label = "OV";
  ov.steps = {"load", "run"};
  toy.subverdicts.push_back(ov);
  // c names no sub-verdict that was surveyed: not checked
  EXPECT_EQ(CheckRulesAgainstPaths(set, {toy}),
            (std::vector<std::string>{"r.json: rule 'a': unknown step 'lod' (not a step of sub-verdict ov)"}));
}

TEST(Rules, AFamilyRuleMayNameAStepOfItsPathThatTheSurveyedMembersLack) {
  // opset-conversion-kept-18 names "convert" (opsets below 18) and "export" (above): a survey of opset 17
  // only has no sub-verdict with an "export" step, and the rule still fits; a typo still does not.
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules({{"r.json", R"({"version":1,"rules":[
    {"id":"a","order":1,"paths":["toy"],"subverdicts":["opset*"],"steps":["export","convert"],"title":"t",
     "cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"b","order":2,"paths":["toy"],"subverdicts":["opset*"],"steps":["exprot","convert"],"title":"t",
     "cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"c","order":3,"paths":["toy"],"subverdicts":["opset17"],"steps":["export"],"title":"t",
     "cause":"c","hint":"h","component":"x","sample":"s"}]})"}},
                        &set, &err))
      << err;
  PathSpec toy = testing::TestPath("toy", {"export"});
  SubVerdictSpec op17;
  op17.id = "opset17";
  op17.title = op17.label = "op17";
  op17.steps = {"convert", "checker"};
  toy.subverdicts.push_back(op17);
  EXPECT_EQ(CheckRulesAgainstPaths(set, {toy}),
            (std::vector<std::string>{"r.json: rule 'b': unknown step 'exprot' (not a step of sub-verdict opset17)",
                                      "r.json: rule 'c': unknown step 'export' (not a step of sub-verdict opset17)"}));
}

TEST(Rules, StepsAndPlaceholdersAreCheckedAgainstThePathsSurveyed) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules({{"r.json", R"({"version":1,"rules":[
    {"id":"a","order":1,"steps":["exprot"],"title":"t","cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"b","order":2,"paths":["toy"],"steps":["capture"],"detail":"{toyversion} {nope}","title":"t","cause":"c",
     "hint":"h","component":"x","sample":"s"},
    {"id":"c","order":3,"paths":["absent"],"steps":["whatever"],"detail":"{nope}","title":"t","cause":"c","hint":"h",
     "component":"x","sample":"s"},
    {"id":"d","order":4,"steps":["eager"],"detail":"{torch} {onnx}","title":"t","cause":"c","hint":"h","component":"x",
     "sample":"s"}]})"}},
                        &set, &err))
      << err;
  std::vector<PathSpec> paths = {testing::TestPath("toy", {"capture"}, {"torch", "toyversion"})};
  EXPECT_EQ(CheckRulesAgainstPaths(set, paths),
            (std::vector<std::string>{"r.json: rule 'a': unknown step 'exprot' (not a common step nor a step of toy)",
                                      "r.json: rule 'b': detail uses '{nope}', which nothing fills",
                                      "r.json: rule 'd': detail uses '{onnx}', which nothing fills"}));
  paths.push_back(testing::TestPath("absent", {"whatever"}, {"nope", "onnx"}));
  EXPECT_EQ(CheckRulesAgainstPaths(set, paths),
            (std::vector<std::string>{"r.json: rule 'a': unknown step 'exprot' (not a common step nor a step of toy, absent)",
                                      "r.json: rule 'b': detail uses '{nope}', which nothing fills"}));
}

TEST(Rules, EmbeddedRulesLoad) {
  RuleSet set = LoadEmbedded();
  EXPECT_GE(set.rules.size(), 20u);
  for (size_t i = 1; i < set.rules.size(); ++i) EXPECT_LT(set.rules[i - 1].order, set.rules[i].order);
  EXPECT_EQ(set.public_names.at("_linalg_svd"), "torch.linalg.svd");
}

// Every rule's samples are real error texts: each must be classified to that very rule.
TEST(Rules, EverySampleIsClassifiedToItsRule) {
  RuleSet set = LoadEmbedded();
  Classifier classifier(set);
  size_t samples = 0;
  for (const Rule& rule : set.rules) {
    ASSERT_FALSE(rule.samples.empty()) << rule.id;
    for (const RuleSample& s : rule.samples) {
      ++samples;
      ClassifyInput in{s.path, s.step, s.status, s.detail, s.type, s.message, s.chain, s.subverdict, s.subverdict_kind};
      Classification c = classifier.Classify(in);
      ASSERT_NE(c.rule, nullptr) << rule.id << ": sample matched no rule: " << s.message.substr(0, 200);
      EXPECT_EQ(c.rule->id, rule.id) << "sample of '" << rule.id << "' went to '" << c.rule->id << "'";
      if (!rule.detail.empty()) {
        std::string detail = classifier.Fill(rule.detail, c, {{"detail", s.detail}, {"error", "E"}, {"onnxscript", "0.7.2"}, {"onnxruntime", "1.32.0"}, {"openvino", "2026.4.1"}, {"tract", "0.23.9"}, {"onnx", "1.23.2"}});
        EXPECT_FALSE(detail.empty()) << rule.id;
      }
    }
  }
  EXPECT_GE(samples, set.rules.size());
}

TEST(Rules, MissingLoweringMapsToPublicName) {
  RuleSet set = LoadEmbedded();
  Classifier classifier(set);
  struct Case { const char* op; const char* public_name; };
  for (Case c : {Case{"_linalg_svd", "torch.linalg.svd"}, Case{"_linalg_solve_ex", "torch.linalg.solve"},
                 Case{"linalg_solve", "torch.linalg.solve"}, Case{"linalg_lu_factor_ex", "torch.linalg.lu_factor"},
                 Case{"_linalg_eigh", "torch.linalg.eigh"}, Case{"linalg_qr", "torch.linalg.qr"},
                 Case{"histc", "torch.histc"}, Case{"searchsorted", "torch.searchsorted"},
                 Case{"some_new_op", "torch.some_new_op"}, Case{"linalg_matrix_exp", "torch.linalg.matrix_exp"}}) {
    std::string message = std::string("No ONNX function found for <OpOverload(op='aten.") + c.op +
                          "', overload='default')>. Failure message: No decompositions registered for the real-valued input";
    ClassifyInput in{"onnx", "export", Status::fail, "", "DispatchError", message, ""};
    Classification got = classifier.Classify(in);
    ASSERT_NE(got.rule, nullptr);
    EXPECT_EQ(got.rule->id, "onnx-missing-lowering");
    EXPECT_EQ(classifier.Fill(got.rule->detail, got, {{"onnxscript", "0.7.2"}}),
              std::string(c.public_name) + " has no ONNX lowering in onnxscript 0.7.2");
  }
}

TEST(Rules, BreakReasonsOnlyMeetStatuslessRules) {
  RuleSet set = LoadEmbedded();
  Classifier classifier(set);
  ClassifyInput in{"compile", "", std::nullopt, "", "", "generic_jump TensorVariable()", ""};
  Classification c = classifier.Classify(in);
  ASSERT_NE(c.rule, nullptr);
  EXPECT_EQ(c.rule->id, "data-dependent-branch");
  in.path = "compile-dynamic";  // any path: a dynamic compile path counts breaks too
  EXPECT_EQ(classifier.Classify(in).rule, c.rule);
  ClassifyInput odd{"compile", "", std::nullopt, "", "", "something nobody has seen", ""};
  EXPECT_EQ(classifier.Classify(odd).rule, nullptr);
}

std::string LoadError(const std::string& text) {
  RuleSet set;
  std::string err;
  EXPECT_FALSE(LoadRules({{"bad.json", text}}, &set, &err));
  return err;
}

TEST(Rules, LoaderReportsEveryProblem) {
  EXPECT_NE(LoadError("{").find("bad.json: not valid JSON"), std::string::npos);
  EXPECT_NE(LoadError(R"({"version":2,"rules":[]})").find("rules version 2 is not supported"), std::string::npos);
  std::string err = LoadError(R"({"version":1,"rules":[
    {"id":"Bad_Id","order":1,"statuses":["fail"],"title":"t","cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"a","order":1,"statuses":["failed"],"title":"t","cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"b","order":2,"match":{"regex":"(unclosed"},"title":"t","cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"c","order":3,"title":"t","cause":"c","hint":"h","component":"x","sample":"s"},
    {"id":"d","order":4,"match":{"substrings":["x"]},"detail":"{public_op}","title":"t","cause":"c","hint":"h","component":"x"},
    {"id":"d","order":5,"match":{"substrings":["x"]},"title":"t","cause":"c","hint":"h","component":"x","sample":"x"}]})");
  for (const char* needle : {"an id is lowercase", "unknown status 'failed'", "regex does not compile", "needs 'substrings' or 'any'",
                             "matches everything", "'{public_op}' but the regex has no 'op' group", "missing 'sample'",
                             "rule id 'd' is used twice", "same order 1"}) {
    EXPECT_NE(err.find(needle), std::string::npos) << needle << "\n" << err;
  }
  std::string retired = LoadError(R"({"version":1,"retired":["old"],"rules":[
    {"id":"old","order":1,"statuses":["fail"],"title":"t","cause":"c","hint":"h","component":"x","sample":"s"}]})");
  EXPECT_NE(retired.find("retired and may not be reused"), std::string::npos) << retired;
}

TEST(Rules, NamedGroupsTranslate) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules({{"ok.json", R"J({"version":1,"rules":[
    {"id":"x","order":1,"match":{"substrings":["op="],"regex":"(?:a|b)[(] ?op=(?P<op>\\w+) (x)(?<rest>.*)"},
     "detail":"{op}/{rest}/{public_op}","title":"t","cause":"c","hint":"h","component":"x","sample":"b( op=_linalg_svd x tail"}]})J"}},
                        &set, &err))
      << err;
  ASSERT_EQ(set.rules[0].group_names, (std::vector<std::string>{"op", "", "rest"}));
  Classifier classifier(set);
  ClassifyInput in{"onnx", "export", Status::fail, "", "", "first line\nb( op=_linalg_svd x tail", ""};
  Classification c = classifier.Classify(in);
  ASSERT_NE(c.rule, nullptr);
  EXPECT_EQ(classifier.Fill(c.rule->detail, c, {}), "_linalg_svd/ tail/torch.linalg.svd");
}

TEST(Classifier, FillUsesFallbacksAndVariables) {
  RuleSet set;
  Classifier classifier(set);
  Classification c;
  EXPECT_EQ(classifier.Fill("{public_op|an operation} in {torch}, {missing}.", c, {{"torch", "2.13"}}), "an operation in 2.13, .");
  c.captures["op"] = "_linalg_eigh";
  EXPECT_EQ(classifier.Fill("{public_op|an operation}", c, {}), "torch.linalg.eigh");
  EXPECT_EQ(classifier.Fill("keep {braces like this} and {", c, {}), "keep {braces like this} and {");
}

TEST(Classifier, PublicNameFallbacks) {
  RuleSet set;
  set.public_names["_linalg_svd"] = "torch.linalg.svd";
  Classifier classifier(set);
  EXPECT_EQ(classifier.PublicName("_linalg_svd"), "torch.linalg.svd");
  EXPECT_EQ(classifier.PublicName("aten._linalg_svd"), "torch.linalg.svd");
  EXPECT_EQ(classifier.PublicName("linalg_inv_ex"), "torch.linalg.inv");
  EXPECT_EQ(classifier.PublicName("_fft_x"), "torch.fft.x");
  EXPECT_EQ(classifier.PublicName("special_erfcx"), "torch.special.erfcx");
  EXPECT_EQ(classifier.PublicName("grid_sampler"), "torch.grid_sampler");
}

// Matched text is bounded (classify/classifier.h): megabytes of message and chain cost what their
// first few thousand characters cost. Every long text here is built to hit onnx-missing-lowering,
// and the test asserts that it does: a matcher that matched nothing would fail it, not pass it.
TEST(Classifier, LongTextsStayBoundedAndFast) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules(EmbeddedRuleSources(), &set, &err)) << err;
  Classifier classifier(set);
  auto classify = [&](const std::string& message, const std::string& chain) {
    return classifier.Classify(ClassifyInput{"onnx", "export", Status::fail, "", "DispatchError", message, chain});
  };
  auto is_lowering_of_histc = [](const Classification& c) {
    return c.rule != nullptr && c.rule->id == "onnx-missing-lowering" && c.captures.count("op") &&
           c.captures.at("op") == "histc";
  };
  const std::string lowering = "No ONNX function found for <OpOverload(op='aten.histc', overload='default')>";
  ASSERT_TRUE(is_lowering_of_histc(classify(lowering, "")));

  // Real matching work: every line holds the rule's literal (so its regex runs on each), only the
  // last line within the bound matches, and two megabytes follow on one line.
  std::string near_misses;
  while (near_misses.size() < 3000) {
    near_misses += "No ONNX function found for <OpOverload(op='aten.histc' " + std::string(200, 'a') + "\n";
  }
  const std::string message = near_misses + lowering + "\n" + std::string(2'000'000, 'a');
  const std::string chain = std::string(100'000, 'x') + "\n" + lowering;
  const auto start = std::chrono::steady_clock::now();
  constexpr int kRounds = 20;
  for (int i = 0; i < kRounds; ++i) ASSERT_TRUE(is_lowering_of_histc(classify(message, chain))) << i;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds / kRounds, 0.1) << "one classification of megabytes took " << seconds / kRounds << " s";

  // Past the bound, the same lowering is not read: after 100,000 characters of chain (and a
  // message without it)...
  EXPECT_EQ(classify(std::string(2'000'000, 'a'), chain).rule, nullptr);
  // ... while the same chain with the lowering within the bound is classified.
  EXPECT_TRUE(is_lowering_of_histc(classify(std::string(2'000'000, 'a'), std::string(1000, 'x') + "\n" + lowering)));
}

// The harness marks a failure raised in registry code on the first line of error.chain only (the
// message keeps the root cause's words): the classifier must read the chain for it, and the marker
// must win over the rules that the same error text would otherwise meet (".numpy()" reads as a
// read-back in the library).
TEST(Classifier, ARegistryFailureIsFoundByTheMarkerOnTheChain) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules(EmbeddedRuleSources(), &set, &err)) << err;
  Classifier classifier(set);
  const std::string message = ".numpy() is not supported for tensor subclasses.";
  const std::string traceback = "Traceback (most recent call last):\n  File \"cases_misc.py\", line 120, in forward\n"
                                "RuntimeError: " + message;
  const std::string marked = "[opsweep:raised-in-registry] the failure was raised in registry code\n" + traceback;
  for (const char* path : {"onnx", "export", "compile"}) {
    ClassifyInput in{path, path == std::string("compile") ? "compile" : "export", Status::fail, "", "RuntimeError",
                     message, marked};
    Classification c = classifier.Classify(in);
    ASSERT_NE(c.rule, nullptr) << path;
    EXPECT_EQ(c.rule->id, "registry-error") << path;
    EXPECT_EQ(c.rule->component, "registry");
    // The same failure without the marker is not blamed on the registry.
    in.chain = traceback;
    c = classifier.Classify(in);
    EXPECT_TRUE(c.rule == nullptr || c.rule->id != "registry-error") << path;
  }
  // Probed code cannot forge it: the worker rewrites "[opsweep:" in the texts a failure carries.
  ClassifyInput forged{"export", "export", Status::fail, "", "RuntimeError",
                       "[opsweep :raised-in-registry] not ours", "[opsweep :raised-in-registry] not ours"};
  const Classification c = classifier.Classify(forged);
  EXPECT_TRUE(c.rule == nullptr || c.rule->id != "registry-error");
}

}  // namespace
}  // namespace opsweep
