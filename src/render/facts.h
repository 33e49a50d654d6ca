// The page's view of the paths' facts (core/path_fact.h, snapshot/facts.h): a fact's value as text,
// the sentences of a row's details, what a cell shows beside its verdict, and the flags a row's
// filters read. Generic: a path's description says which facts exist and how each is shown.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/path_fact.h"
#include "snapshot/facts.h"
#include "snapshot/snapshot.h"

namespace opsweep::render {

// At most this many names of a `counts` fact are written; the rest are counted ("and 3 more").
inline constexpr std::size_t kFactNames = 12;

// The value as the page writes it: a share "72%" ("<1%", ">99%" near the ends), a count "12",
// a size "22.3 KiB", a text as it is, counts "aten.where.self ×4, aten.cat.default" (by count,
// then name), a flag "yes" / "no".
std::string FactText(const FactSpec& fact, const snapshot::FactValue& value);

// "<title>: <value>" for every fact of `facts` the outcome holds but flags, in declaration order.
std::vector<std::string> FactSentences(const std::vector<FactSpec>& facts, const snapshot::Facts& values);

// What the path's cell shows beside its verdict: "<label> <value>" of its cell facts, joined
// with ", "; "" when it holds none.
std::string CellFactText(const std::vector<FactSpec>& facts, const snapshot::Facts& values);

// The filter value of a flag fact: "<path>:flag:<fact id>" (the other filters' values have one
// colon at most).
std::string FlagFilterValue(std::string_view path_id, std::string_view fact_id);

// The filter values of the flags an outcome has set, when its status is supported (a flag's filter
// shows the rows where the path runs and the flag is set).
std::vector<std::string> SetFlags(std::string_view path_id, const std::vector<FactSpec>& facts,
                                  const snapshot::Outcome& outcome);

}  // namespace opsweep::render
