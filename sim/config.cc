// Schema tree queries, defaults, binding a resolved config and the YAML dump.
// Parsing of values lives in config_units.cc, loading files in
// config_loader.cc.
#include "sim/config.h"

#include <cctype>

#include <fmt/format.h>

#include "sim/config_text.h"

namespace sim {

namespace {

// Splits "a.b.c" at the first dot: {"a", "b.c"}; {"a", ""} when there is none.
std::pair<std::string_view, std::string_view> SplitFirst(std::string_view path) {
  const size_t dot = path.find('.');
  if (dot == std::string_view::npos) return {path, {}};
  return {path.substr(0, dot), path.substr(dot + 1)};
}

std::string Join(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

void ApplyDefaultsBelow(const SchemaNode& node, void* obj, const std::string& prefix) {
  for (const ParamDecl& d : node.params()) {
    Result<ParamValue> v = ParseParamValue(d, d.default_text);
    CHECK(v.ok()) << "bad declared default for config key '" << Join(prefix, d.key) << "' ('" << d.default_text
                  << "'): " << v.status().message();
    d.store(obj, v.value());
  }
  for (const SchemaNode::Child& c : node.children()) {
    ApplyDefaultsBelow(*c.node, c.access(obj), Join(prefix, c.key));
  }
}

// One line of a comment: the description with line breaks flattened.
std::string CommentText(const std::string& description) {
  std::string out = description;
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

void DumpNode(const SchemaNode& node, const void* obj, int indent, std::string& out) {
  const std::string pad(indent, ' ');
  for (const ParamDecl& d : node.params()) {
    const std::string text = d.load(obj);
    // Lists are already in YAML flow form; every other value is one scalar.
    const std::string value = d.kind == ParamKind::kStringList ? text : config_text::QuoteYaml(text);
    out += fmt::format("{}{}: {}", pad, config_text::QuoteYaml(d.key), value);
    if (!d.description.empty()) out += "  # " + CommentText(d.description);
    out += '\n';
  }
  for (const SchemaNode::Child& c : node.children()) {
    const bool empty = c.node->params().empty() && c.node->children().empty() &&
                       (c.node->named() == nullptr || c.node->named()->names(c.caccess(obj)).empty());
    out += fmt::format("{}{}:{}", pad, config_text::QuoteYaml(c.key), empty ? " {}" : "");
    if (!c.description.empty()) out += "  # " + CommentText(c.description);
    out += '\n';
    DumpNode(*c.node, c.caccess(obj), indent + 2, out);
  }
  if (const SchemaNode::NamedEntries* n = node.named(); n != nullptr) {
    for (const std::string& name : n->names(obj)) {
      out += fmt::format("{}{}:", pad, config_text::QuoteYaml(name));
      if (!n->entry.description.empty()) out += "  # " + CommentText(n->entry.description);
      out += '\n';
      DumpNode(*n->entry.node, n->cget(obj, name), indent + 2, out);
    }
  }
}

}  // namespace

std::string SourceLoc::ToString() const {
  if (line <= 0) return file;
  if (col <= 0) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, col);
}

// Keys may be dotted paths ("timing.tR"), resolved through child sections.
const ParamDecl* SchemaNode::FindParam(std::string_view key) const {
  const auto [head, rest] = SplitFirst(key);
  if (!rest.empty()) {
    const Child* c = FindChild(head);
    return c ? c->node->FindParam(rest) : nullptr;
  }
  for (const ParamDecl& d : params_) {
    if (d.key == key) return &d;
  }
  return nullptr;
}

const SchemaNode::RetiredKey* SchemaNode::FindRetired(std::string_view key) const {
  for (const RetiredKey& r : retired_) {
    if (r.key == key) return &r;
  }
  return nullptr;
}

bool SchemaNode::ValidEntryName(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  if (!std::isalpha(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

const SchemaNode::Child* SchemaNode::FindChild(std::string_view key) const {
  const auto [head, rest] = SplitFirst(key);
  if (named_ != nullptr) {
    if (!ValidEntryName(head)) return nullptr;
    return rest.empty() ? &named_->entry : named_->entry.node->FindChild(rest);
  }
  for (const Child& c : children_) {
    if (c.key == head) return rest.empty() ? &c : c.node->FindChild(rest);
  }
  return nullptr;
}

std::vector<std::string> SchemaNode::AllKeys(const std::string& prefix) const {
  std::vector<std::string> keys;
  for (const ParamDecl& d : params_) keys.push_back(Join(prefix, d.key));
  for (const Child& c : children_) {
    std::vector<std::string> sub = c.node->AllKeys(Join(prefix, c.key));
    keys.insert(keys.end(), sub.begin(), sub.end());
  }
  if (named_ != nullptr) {
    std::vector<std::string> sub = named_->entry.node->AllKeys(Join(prefix, named_->entry.key));
    keys.insert(keys.end(), sub.begin(), sub.end());
  }
  return keys;
}

void ApplyDefaults(const SchemaNode& node, void* obj) { ApplyDefaultsBelow(node, obj, ""); }

Status Bind(const SchemaNode& root, const ResolvedConfig& cfg, void* obj) {
  ApplyDefaults(root, obj);
  for (const auto& [path, entry] : cfg.values) {
    // Walk to the struct that owns the field.
    const SchemaNode* node = &root;
    void* target = obj;
    std::string_view rest = path;
    for (size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
      const SchemaNode::Child* c = node->FindChild(rest.substr(0, dot));
      if (c == nullptr) break;
      target = node->Enter(*c, target, rest.substr(0, dot));
      node = c->node.get();
      rest.remove_prefix(dot + 1);
    }
    const ParamDecl* d = node->FindParam(rest);
    if (d == nullptr) {
      return Status::InvalidInput(fmt::format("{}: unknown key '{}'", entry.loc.ToString(), path));
    }
    Result<ParamValue> v = ParseParamValue(*d, entry.text);
    if (!v.ok()) {
      return Status::InvalidInput(fmt::format("{}: {}: {} (got '{}')", entry.loc.ToString(), path,
                                              v.status().message(), config_text::Excerpt(entry.text)));
    }
    d->store(target, v.value());
  }
  return Status::Ok();
}

namespace {
// The declaration of key `path` below `root` and the struct holding it.
Result<std::pair<const ParamDecl*, void*>> FindKey(const SchemaNode& root, void* obj, std::string_view path) {
  const SchemaNode* node = &root;
  void* target = obj;
  std::string_view rest = path;
  for (size_t dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
    const SchemaNode::Child* c = node->FindChild(rest.substr(0, dot));
    if (c == nullptr) return Status::InvalidInput(fmt::format("unknown key '{}'", path));
    target = node->Enter(*c, target, rest.substr(0, dot));
    node = c->node.get();
    rest.remove_prefix(dot + 1);
  }
  const ParamDecl* d = node->FindParam(rest);
  if (d == nullptr) {
    if (const SchemaNode::RetiredKey* r = node->FindRetired(rest); r != nullptr) {
      return Status::InvalidInput(fmt::format("{}: {}", path, r->message));
    }
    return Status::InvalidInput(fmt::format("unknown key '{}'", path));
  }
  return std::make_pair(d, target);
}
}  // namespace

Result<std::string> GetKey(const SchemaNode& root, const void* obj, std::string_view path) {
  FS_ASSIGN_OR_RETURN(auto found, FindKey(root, const_cast<void*>(obj), path));
  return found.first->load(found.second);
}

Status SetKey(const SchemaNode& root, void* obj, std::string_view path, std::string_view text) {
  FS_ASSIGN_OR_RETURN(auto found, FindKey(root, obj, path));
  const ParamDecl* d = found.first;
  void* target = found.second;
  Result<ParamValue> v = ParseParamValue(*d, text);
  if (!v.ok()) return Status::InvalidInput(fmt::format("{}: {}", path, v.status().message()));
  d->store(target, v.value());
  return Status::Ok();
}

std::string DumpYaml(const SchemaNode& root, const void* obj) {
  std::string out;
  DumpNode(root, obj, 0, out);
  return out;
}

Status KeyErrors::operator()(std::string_view key, std::string_view problem) const {
  std::string full = path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  return Status::InvalidInput(full + ": " + std::string(problem));
}

}  // namespace sim
