// Builds an experiment from a shipped config with --set style overrides
// (app tests).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "sim/config.h"

namespace app::testing {

// The config at `config` (relative to the source tree) with `overrides`,
// validated; null (with a test failure) if it does not load or validate.
inline std::unique_ptr<Experiment> Make(const std::string& config, const std::vector<std::string>& overrides) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/" + config;
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, overrides);
  EXPECT_TRUE(runs.ok()) << path << ": " << runs.status().message();
  if (!runs.ok()) return nullptr;
  ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  EXPECT_TRUE(ValidateExperiment(cfg).ok()) << ValidateExperiment(cfg).message();
  auto e = Experiment::Create(cfg);
  EXPECT_TRUE(e.ok()) << path << ": " << e.status().message();
  return e.ok() ? std::move(e).value() : nullptr;
}

// The validation of the config at `config` with `overrides`.
inline sim::Status Validate(const std::string& config, const std::vector<std::string>& overrides) {
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), std::string(FLASHSTACK_SOURCE_DIR) + "/" + config,
                                  overrides);
  if (!runs.ok()) return runs.status();
  ExperimentConfig cfg;
  FS_RETURN_IF_ERROR(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg));
  return ValidateExperiment(cfg);
}

}  // namespace app::testing
