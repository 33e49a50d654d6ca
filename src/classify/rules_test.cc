#include "classify/rules.h"

#include <gtest/gtest.h>

#include <set>

#include "classify/classifier.h"
#include "testing/bundled_paths.h"

namespace opsweep {
namespace {

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
      ClassifyInput in{s.path, s.step, s.status, s.detail, s.type, s.message, s.chain};
      Classification c = classifier.Classify(in);
      ASSERT_NE(c.rule, nullptr) << rule.id << ": sample matched no rule: " << s.message.substr(0, 200);
      EXPECT_EQ(c.rule->id, rule.id) << "sample of '" << rule.id << "' went to '" << c.rule->id << "'";
      if (!rule.detail.empty()) {
        std::string detail = classifier.Fill(rule.detail, c, {{"detail", s.detail}, {"error", "E"}, {"onnxscript", "0.7.2"}, {"onnxruntime", "1.32.0"}});
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

TEST(Classifier, LongTextsStayBoundedAndFast) {
  RuleSet set;
  std::string err;
  ASSERT_TRUE(LoadRules(EmbeddedRuleSources(), &set, &err)) << err;
  Classifier classifier(set);
  std::string huge(2'000'000, 'a');
  std::string chain = std::string(100000, 'x') + "\nNo ONNX function found for <OpOverload(op='aten.histc', overload='default')>";
  ClassifyInput in{"onnx", "export", Status::fail, "", "T", huge, chain};
  Classification c = classifier.Classify(in);
  EXPECT_EQ(c.rule, nullptr);  // the lowering text lies past the bound
}

}  // namespace
}  // namespace opsweep
