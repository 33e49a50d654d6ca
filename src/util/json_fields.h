// Reading one field of a JSON object that may not be there: the one `Str` of the engine. Works with
// nlohmann::json and nlohmann::ordered_json alike.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace opsweep {

// The string at `key` of `j`; "" when `j` is not an object, or the field is missing or not a string.
template <typename Json>
std::string Str(const Json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->template get<std::string>() : "";
}

// The same, and *ok becomes false when the field is missing or not a string (left as it is
// otherwise), so that a reader checks a line's fields one by one and asks once whether all were there.
template <typename Json>
std::string Str(const Json& j, const char* key, bool* ok) {
  auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end() || !it->is_string()) {
    *ok = false;
    return "";
  }
  return it->template get<std::string>();
}

}  // namespace opsweep
