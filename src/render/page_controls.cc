#include "render/page_controls.h"

#include <fmt/core.h>

#include "core/status.h"
#include "render/csp_hash.h"
#include "render/escape.h"
#include "util/embedded.h"

namespace opsweep::render {

const std::string_view* PageAsset(std::string_view name) {
  for (const EmbeddedFile& file : embedded_assets::files()) {
    if (file.name == name) return &file.data;
  }
  return nullptr;
}

bool StandalonePageAssets(std::string_view* css, std::string* script, std::string* err) {
  const std::string_view* style = PageAsset("page.css");
  const std::string_view* js = PageAsset("page.js");
  if (style == nullptr || js == nullptr) {
    *err = "the page assets (page.css, page.js) are missing from this binary";
    return false;
  }
  *css = *style;
  *script = "\n" + std::string(*js);
  return true;
}

namespace {
// Marks the document as scripted before it is painted, so that the CSS can show the controls.
constexpr std::string_view kClassScript = "document.documentElement.className = 'js';";
}  // namespace

std::string PageHead(std::string_view title, std::string_view css, std::string_view page_script) {
  std::string out =
      "<!DOCTYPE html>\n"
      "<html lang=\"en\" class=\"no-js\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  // The page needs nothing from anywhere: the browser refuses every request, and runs only
  // the two scripts written here (by hash), never one that snapshot text could smuggle in.
  out += fmt::format(
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "style-src 'unsafe-inline'; script-src {} {}; img-src data:; base-uri 'none'; "
      "form-action 'none'\">\n",
      CspHashSource(kClassScript), CspHashSource(page_script));
  out +=
      "<meta name=\"color-scheme\" content=\"light dark\">\n"
      "<meta name=\"generator\" content=\"opsweep render\">\n";
  out += "<title>" + HtmlEscape(title) + "</title>\n<style>\n";
  out += css;
  out += "</style>\n<script>" + std::string(kClassScript) + "</script>\n</head>\n";
  return out;
}

std::string ControlsHtml(const ViewModel& vm) {
  std::string out = "<div class=\"controls\" role=\"search\">\n";
  out +=
      "<label class=\"vh\" for=\"q\">Search operators, variants and reasons</label>\n"
      "<input id=\"q\" type=\"search\" placeholder=\"Search operators and reasons  ( / )\" "
      "autocomplete=\"off\" spellcheck=\"false\">\n"
      "<label class=\"vh\" for=\"f\">Show</label>\n<select id=\"f\">\n";
  std::string group;
  for (const FilterOption& option : vm.filters) {
    if (option.group != group) {
      if (!group.empty()) out += "</optgroup>\n";
      group = option.group;
      if (!group.empty()) out += "<optgroup label=\"" + HtmlEscape(group) + "\">\n";
    }
    out += fmt::format("<option value=\"{}\">{} ({})</option>\n", HtmlEscape(option.value), HtmlEscape(option.label),
                       FormatCount(option.count));
  }
  if (!group.empty()) out += "</optgroup>\n";
  out += "</select>\n</div>\n";
  out += fmt::format("<output id=\"count\" aria-live=\"polite\">{} {}</output>\n", FormatCount(vm.configurations),
                     HtmlEscape(vm.unit));
  return out;
}

std::string ConfigScriptHtml(const ViewModel& vm) {
  std::string out = "<script type=\"application/json\" id=\"opsweep-config\">{\"paths\":[";
  for (std::size_t p = 0; p < vm.paths.size(); ++p) {
    if (p > 0) out += ',';
    out += ScriptJsonString(vm.paths[p].id);
  }
  // The status tokens the script's filters group: said here once (core/status.h), not in the script.
  auto tokens = [](bool (*predicate)(Status)) {
    std::string list;
    for (Status status : kAllStatuses) {
      if (!predicate(status)) continue;
      if (!list.empty()) list += ',';
      list += ScriptJsonString(StatusToken(status));
    }
    return list;
  };
  out += ']';
  if (!vm.base_paths.empty()) {  // the ungrouped paths' indices: the "base-ok" filter (only with groups)
    out += ",\"base\":[";
    for (std::size_t i = 0; i < vm.base_paths.size(); ++i) out += (i > 0 ? "," : "") + std::to_string(vm.base_paths[i]);
    out += ']';
  }
  if (!vm.row_tokens.empty()) {  // filters matched by a row's tokens (data-h), beyond the history's
    out += ",\"tokens\":[";
    for (std::size_t i = 0; i < vm.row_tokens.size(); ++i) out += (i > 0 ? "," : "") + ScriptJsonString(vm.row_tokens[i]);
    out += ']';
  }
  if (vm.unit != "configurations") out += ",\"unit\":" + ScriptJsonString(vm.unit);
  out += fmt::format(",\"total\":{},\"supported\":[{}],\"failure\":[{}],\"caveat\":[{},{}]}}</script>\n",
                     vm.configurations, tokens(IsSupported), tokens(IsFailure),
                     ScriptJsonString(StatusToken(Status::ok_static)), ScriptJsonString(StatusToken(Status::ok_recompiles)));
  return out;
}

std::string RowDataAttributes(const ViewModel& vm, const RowView& row) {
  std::string statuses;
  for (const CellView& cell : row.cells) {
    if (!statuses.empty()) statuses += ' ';
    statuses += cell.token;
  }
  std::string subs;  // every sub-verdict the row holds, shown or not: "onnx/openvino:fail ..."
  for (const CellView& cell : row.cells) {
    for (const MarkView& mark : cell.marks) {
      if (!subs.empty()) subs += ' ';
      subs += vm.subverdicts[mark.sub].key + ":" + mark.token;
    }
  }
  std::string history;  // the history filters' tokens
  for (const auto& [flag, token] : {std::pair{row.changed, "changed"}, {row.since, "since"}, {row.broken, "broken"}}) {
    if (flag) history += history.empty() ? token : std::string(" ") + token;
  }
  for (const std::string& token : row.tokens) history += (history.empty() ? "" : " ") + token;
  std::string flags;  // the paths' flags the row has set: "executorch:flag:not_delegated ..."
  for (const std::string& flag : row.flags) flags += (flags.empty() ? "" : " ") + flag;
  return fmt::format(" data-name=\"{}\" data-s=\"{}\" data-b=\"{}\"{}{}{}{} data-q=\"{}\"", HtmlEscape(row.name),
                     HtmlEscape(statuses), row.graph_breaks, subs.empty() ? "" : " data-v=\"" + HtmlEscape(subs) + "\"",
                     row.fresh_unchecked ? " data-nf=\"1\"" : "", history.empty() ? "" : " data-h=\"" + HtmlEscape(history) + "\"",
                     flags.empty() ? "" : " data-x=\"" + HtmlEscape(flags) + "\"", HtmlEscape(row.search_text));
}

}  // namespace opsweep::render
