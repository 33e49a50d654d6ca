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
  names_.clear();
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
        if (token.substr(0, 3) == "py:") names_.insert(std::string(line.substr(0, space)));
        break;
      }
      space = next;
    }
  }
  return true;
}

std::optional<std::string> ObjectsInventory::Lookup(const std::string& target, const std::string& package,
                                                    const std::string& operator_name) const {
  if (!target.empty() && Has(target)) return target;
  std::string library = target.substr(0, target.find('.'));
  if (library.empty() || package.empty()) return std::nullopt;
  std::string last = target.substr(target.rfind('.') + 1);
  for (const std::string& leaf : {last, operator_name}) {
    if (leaf.empty()) continue;
    std::string candidate = library + "." + package + "." + leaf;
    if (Has(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace opsweep
