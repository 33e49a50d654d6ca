#include "merge/objects_inv.h"

#include <zlib.h>

#include <vector>

namespace opsweep {

namespace {

bool Inflate(std::string_view in, std::string* out, std::string* err) {
  z_stream zs{};
  if (inflateInit(&zs) != Z_OK) {
    *err = "cannot start zlib";
    return false;
  }
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::vector<char> buf(1 << 16);
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      *err = std::string("the compressed part is damaged (") + (zs.msg ? zs.msg : "zlib error") + ")";
      inflateEnd(&zs);
      return false;
    }
    out->append(buf.data(), buf.size() - zs.avail_out);
    if (rc == Z_OK && zs.avail_in == 0 && zs.avail_out != 0) {
      *err = "the compressed part is truncated";
      inflateEnd(&zs);
      return false;
    }
    if (out->size() > (256u << 20)) {
      *err = "the inventory is implausibly large";
      inflateEnd(&zs);
      return false;
    }
  }
  inflateEnd(&zs);
  return true;
}

}  // namespace

bool ObjectsInventory::Parse(std::string_view bytes, std::string* err) {
  uris_.clear();
  size_t pos = 0;
  for (int line = 0; line < 4; ++line) {
    size_t nl = bytes.find('\n', pos);
    if (nl == std::string_view::npos) {
      *err = "not a Sphinx objects.inv (fewer than 4 header lines)";
      return false;
    }
    std::string_view header = bytes.substr(pos, nl - pos);
    if (line == 0 && header != "# Sphinx inventory version 2") {
      *err = "not a Sphinx objects.inv version 2 (first line '" + std::string(header.substr(0, 60)) + "')";
      return false;
    }
    if (line == 3 && header.find("zlib") == std::string_view::npos) {
      *err = "not a zlib-compressed Sphinx objects.inv";
      return false;
    }
    pos = nl + 1;
  }
  std::string text;
  if (!Inflate(bytes.substr(pos), &text, err)) return false;
  // Each line: name domain:role priority uri dispname; the name may contain spaces, so the fields
  // are found from the domain:role token, the first token after the name containing ':'.
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    std::string_view line(text.data() + start, nl - start);
    start = nl + 1;
    size_t space = line.find(' ');
    while (space != std::string_view::npos) {
      size_t next = line.find(' ', space + 1);
      std::string_view token = line.substr(space + 1, next == std::string_view::npos ? std::string_view::npos : next - space - 1);
      if (token.find(':') != std::string_view::npos) {
        if (token.substr(0, 3) == "py:") {
          std::string name(line.substr(0, space));
          // after the role: priority, uri, dispname
          std::string uri;
          size_t prio_end = next == std::string_view::npos ? std::string_view::npos : line.find(' ', next + 1);
          if (prio_end != std::string_view::npos) {
            size_t uri_end = line.find(' ', prio_end + 1);
            uri = std::string(line.substr(prio_end + 1, uri_end == std::string_view::npos ? std::string_view::npos
                                                                                          : uri_end - prio_end - 1));
          }
          // "$" at the end of a uri stands for the name (Sphinx's abbreviation)
          if (!uri.empty() && uri.back() == '$') uri = uri.substr(0, uri.size() - 1) + name;
          uris_.emplace(std::move(name), std::move(uri));
        }
        break;
      }
      space = next;
    }
  }
  return true;
}

std::optional<ApiRef> ObjectsInventory::Lookup(const std::vector<std::string>& names, const std::string& package,
                                               const std::string& operator_name) const {
  auto ref = [&](const std::string& name) -> std::optional<ApiRef> {
    auto it = uris_.find(name);
    if (it == uris_.end()) return std::nullopt;
    return ApiRef{it->first, it->second};
  };
  for (const std::string& name : names) {
    if (name.empty()) continue;
    if (auto found = ref(name)) return found;
  }
  if (package.empty()) return std::nullopt;
  for (const std::string& name : names) {
    const std::string library = name.substr(0, name.find('.'));
    if (library.empty() || library == name) continue;
    for (const std::string& leaf : {name.substr(name.rfind('.') + 1), operator_name}) {
      if (leaf.empty()) continue;
      if (auto found = ref(library + "." + package + "." + leaf)) return found;
    }
  }
  return std::nullopt;
}

}  // namespace opsweep
