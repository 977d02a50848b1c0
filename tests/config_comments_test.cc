// Comments in the shipped configs that state a device's raw capacity
// ("# 8 GiB raw") or its geometry ("4 channels x 2 chips x 1 die x 2
// planes") must match the device the file configures: a newcomer reads
// them to size experiments.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "sim/config.h"

namespace app {
namespace {

TEST(ConfigCommentsTest, StatedRawCapacitiesMatchTheDevice) {
  const std::filesystem::path root = std::filesystem::path(FLASHSTACK_SOURCE_DIR) / "configs";
  const std::regex stated(R"(([0-9]+(?:\.[0-9]+)?) ?(KiB|MiB|GiB|TiB) raw)");
  const std::regex shape(R"(([0-9]+) channels? x ([0-9]+) chips? x ([0-9]+) dies? x ([0-9]+) planes?)");
  int checked = 0, shapes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
    if (e.path().extension() != ".yaml") continue;
    if (e.path().filename() == "expected.yaml") continue;  // a reproduction set's figures (tools/repro.py)
    std::ifstream in(e.path());
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    auto resolved = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), e.path().string(), {});
    ASSERT_TRUE(resolved.ok()) << resolved.status().message();
    ExperimentConfig cfg;
    ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), resolved->front(), &cfg).ok());
    const double raw = static_cast<double>(cfg.device.geometry.pages()) *
                       static_cast<double>(cfg.device.geometry.page_size.value);
    for (std::sregex_iterator it(text.begin(), text.end(), stated), end; it != end; ++it) {
      const std::string unit = (*it)[2];
      const double scale = unit == "KiB" ? 0x1p10 : unit == "MiB" ? 0x1p20 : unit == "GiB" ? 0x1p30 : 0x1p40;
      const double claimed = std::stod((*it)[1]) * scale;
      EXPECT_LT(std::abs(claimed - raw) / raw, 0.01)
          << e.path().string() << ": '" << it->str() << "' but the device has " << raw / 0x1p30 << " GiB raw";
      ++checked;
    }
    const flash::Geometry& g = cfg.device.geometry;
    for (std::sregex_iterator it(text.begin(), text.end(), shape), end; it != end; ++it) {
      EXPECT_EQ(std::stoul((*it)[1]), g.channels) << e.path().string() << ": '" << it->str() << "'";
      EXPECT_EQ(std::stoul((*it)[2]), g.chips_per_channel) << e.path().string() << ": '" << it->str() << "'";
      EXPECT_EQ(std::stoul((*it)[3]), g.dies_per_chip) << e.path().string() << ": '" << it->str() << "'";
      EXPECT_EQ(std::stoul((*it)[4]), g.planes_per_die) << e.path().string() << ": '" << it->str() << "'";
      ++shapes;
    }
  }
  EXPECT_GT(checked, 5);
  EXPECT_GE(shapes, 3);
}

}  // namespace
}  // namespace app
