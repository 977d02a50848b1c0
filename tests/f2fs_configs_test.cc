// The presets and experiment configs under configs/f2fs/ use only keys and
// values the F2FS model and their workload declare (fs.f2fs.*: F2fsConfig;
// workload.fio_files.*: host::FileFioConfig), and bind to a valid
// configuration.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "fs/f2fs/f2fs_config.h"
#include "host/fsworkload/file_fio.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

std::string Text(const YAML::Node& n) {
  if (!n.IsSequence()) return n.Scalar();
  std::string s = "[";
  for (size_t i = 0; i < n.size(); ++i) s += (i ? ", " : "") + n[i].Scalar();
  return s + "]";
}

// Parses every leaf under `node` as a key of `schema` and stores it in `obj`.
void Bind(const sim::SchemaNode& schema, const YAML::Node& node, const std::string& prefix, void* obj,
          const std::string& file) {
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string path = prefix.empty() ? key : prefix + "." + key;
    if (kv.second.IsMap()) {
      Bind(schema, kv.second, path, obj, file);
      continue;
    }
    const sim::ParamDecl* d = schema.FindParam(path);
    ASSERT_NE(d, nullptr) << file << ": unknown key " << path;
    sim::Result<sim::ParamValue> v = sim::ParseParamValue(*d, Text(kv.second));
    ASSERT_TRUE(v.ok()) << file << ": " << path << ": " << v.status().message();
    // Store through the schema tree: find the owning struct by walking sections.
    const sim::SchemaNode* n = &schema;
    void* target = obj;
    std::string rest = path;
    for (size_t dot; (dot = rest.find('.')) != std::string::npos;) {
      const sim::SchemaNode::Child* c = n->FindChild(rest.substr(0, dot));
      ASSERT_NE(c, nullptr);
      target = c->access(target);
      n = c->node.get();
      rest = rest.substr(dot + 1);
    }
    n->FindParam(rest)->store(target, v.value());
  }
}

TEST(ConfigsTest, F2fsConfigsUseDeclaredKeys) {
  const std::filesystem::path dir = std::filesystem::path(FLASHSTACK_SOURCE_DIR) / "configs" / "f2fs";
  int files = 0;
  int workloads = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    ++files;
    const std::string file = e.path().filename().string();
    YAML::Node root = YAML::LoadFile(e.path().string());
    ASSERT_TRUE(root["fs"]) << file;
    EXPECT_EQ(root["fs"]["kind"].Scalar(), "f2fs") << file;
    F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
    if (root["fs"]["f2fs"]) Bind(sim::SchemaOf<F2fsConfig>(), root["fs"]["f2fs"], "", &cfg, file);
    sim::Status st = cfg.Validate();
    EXPECT_TRUE(st.ok()) << file << ": " << st.message();
    if (root["workload"] && root["workload"]["fio_files"]) {
      ++workloads;
      EXPECT_EQ(root["workload"]["kind"].Scalar(), "fio_files") << file;
      host::FileFioConfig w = sim::MakeDefault<host::FileFioConfig>();
      Bind(sim::SchemaOf<host::FileFioConfig>(), root["workload"]["fio_files"], "", &w, file);
      const sim::Status ws = w.Validate("workload.fio_files");
      EXPECT_TRUE(ws.ok()) << file << ": " << ws.message();
    }
  }
  EXPECT_GE(files, 4);
  EXPECT_GE(workloads, 1);
}

TEST(ConfigsTest, Seed001SweepsTheNodeLookupOverTheSeedWorkload) {
  const std::filesystem::path p =
      std::filesystem::path(FLASHSTACK_SOURCE_DIR) / "configs" / "f2fs" / "seed001_fsync_nodelist.yaml";
  YAML::Node root = YAML::LoadFile(p.string());
  const YAML::Node sweep = root["sweep"]["fs.f2fs.fsync_node_lookup"];
  ASSERT_TRUE(sweep.IsSequence());
  EXPECT_EQ(Text(sweep), "[scan, list]");
  ASSERT_TRUE(root["workload"]["fio_files"]);
  host::FileFioConfig w = sim::MakeDefault<host::FileFioConfig>();
  Bind(sim::SchemaOf<host::FileFioConfig>(), root["workload"]["fio_files"], "", &w, "seed001");
  EXPECT_EQ(w.numjobs, 4u);
  EXPECT_FALSE(w.shared_file);
  EXPECT_EQ(w.size.value, 2ull << 30);
  EXPECT_EQ(w.bs.value, 4096u);
  EXPECT_EQ(w.fsync, 32u);
  EXPECT_EQ(w.rw, "randwrite");
  EXPECT_FALSE(w.layout);
}

}  // namespace
}  // namespace fs::f2fs
