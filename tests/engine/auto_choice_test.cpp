// `auto` without CUDA: what the NVIDIA driver's files say (probe_gpus on a made-up tree),
// the crossover table's shape and fallback rule, and choose_engine's answer where no GPU is
// listed (this machine, and any build without CUDA). That auto starts no CUDA for a job it
// runs on the CPU is checked on the real binary in tests/cli/cli_auto_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "engine_harness.hpp"
#include "src/engine/crossover.hpp"
#include "src/engine/gpu_probe.hpp"
#include "src/engine/registry.hpp"
#include "support/temp_dir.hpp"

namespace halo {
namespace {

using namespace test;

// One GPU folder as the driver writes it (the `information` file's first lines).
void add_gpu(const TempDir& root, const std::string& bus, const std::string& model) {
  const std::string folder = root / ("driver/gpus/" + bus);
  std::filesystem::create_directories(folder);
  std::ofstream(folder + "/information") << "Model: \t\t " << model << "\nIRQ:   \t\t 42\nGPU UUID: \t GPU-1234\n";
}

TEST(GpuProbe, NoDriverFolderAndNoDeviceNodeMeansNoGpu) {
  TempDir root;
  std::filesystem::create_directories(root / "dev");
  const GpuProbe probe = probe_gpus(root / "driver", root / "dev", nullptr);
  EXPECT_FALSE(probe.possible);
  EXPECT_NE(probe.why_not.find("no NVIDIA GPU"), std::string::npos) << probe.why_not;
}

TEST(GpuProbe, ReadsTheModelTheDriverLists) {
  TempDir root;
  add_gpu(root, "0000:19:00.0", "NVIDIA H100 80GB HBM3");
  add_gpu(root, "0000:3b:00.0", "NVIDIA H100 80GB HBM3");
  const GpuProbe probe = probe_gpus(root / "driver", root / "dev", nullptr);
  EXPECT_TRUE(probe.possible);
  EXPECT_EQ(probe.model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(probe.why_not, "");
}

TEST(GpuProbe, MixedModelsLeaveTheModelUnknown) {
  TempDir root;
  add_gpu(root, "0000:19:00.0", "NVIDIA H100 80GB HBM3");
  add_gpu(root, "0000:3b:00.0", "NVIDIA A100-SXM4-40GB");
  const GpuProbe probe = probe_gpus(root / "driver", root / "dev", nullptr);
  EXPECT_TRUE(probe.possible);
  EXPECT_EQ(probe.model, "");
}

TEST(GpuProbe, ADeviceNodeWithoutTheDriverFolderMayBeAGpu) {
  TempDir root;
  std::filesystem::create_directories(root / "dev");
  std::ofstream(root / "dev/nvidia0") << "";
  const GpuProbe probe = probe_gpus(root / "driver", root / "dev", nullptr);
  EXPECT_TRUE(probe.possible);
  EXPECT_EQ(probe.model, "");
}

TEST(GpuProbe, CudaVisibleDevicesCanHideEveryGpu) {
  TempDir root;
  add_gpu(root, "0000:19:00.0", "NVIDIA H100 80GB HBM3");
  for (const char* hidden : {"", "-1", " ", "-1,0"}) {
    const GpuProbe probe = probe_gpus(root / "driver", root / "dev", hidden);
    EXPECT_FALSE(probe.possible) << "CUDA_VISIBLE_DEVICES='" << hidden << "'";
    EXPECT_NE(probe.why_not.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  }
  EXPECT_TRUE(probe_gpus(root / "driver", root / "dev", "0").possible);
}

TEST(Crossover, EveryTableCoversEveryLengthWithKnownEngines) {
  const std::set<std::string> gpu_engines = {"cuda-fast", "cuda-fft", "cuda-fft-fused"};
  ASSERT_FALSE(crossover_tables().empty());
  for (const auto& table : crossover_tables()) {
    ASSERT_FALSE(table.rows.empty()) << table.model;
    EXPECT_EQ(table.rows.back().up_to_taps, SIZE_MAX) << table.model << ": the last row covers every length";
    for (std::size_t i = 0; i < table.rows.size(); ++i) {
      const CrossoverRow& row = table.rows[i];
      if (i > 0) {
        EXPECT_GT(row.up_to_taps, table.rows[i - 1].up_to_taps) << table.model;
      }
      EXPECT_GT(row.handover_from_samples, 0) << table.model;
      ASSERT_NE(row.gpu[0], nullptr) << table.model << ": a row names at least one GPU engine";
      for (const char* name : row.gpu) {
        if (name) {
          EXPECT_EQ(gpu_engines.count(name), 1u) << table.model << ": " << name;
        }
      }
    }
  }
}

TEST(Crossover, RowsFollowTheMaskLengthAndUnlistedModelsTakeTheFallbackRule) {
  const GpuCrossover& first = crossover_tables().front();
  for (const std::size_t taps : {std::size_t{1}, std::size_t{255}, std::size_t{65535}, std::size_t{200000},
                                 std::size_t{1} << 20}) {
    for (const GpuCrossover& table : crossover_tables()) {  // a listed model gets its own table's row
      const CrossoverAnswer listed = crossover_for(table.model, taps);
      std::size_t expected = 0;
      while (taps > table.rows[expected].up_to_taps) ++expected;
      EXPECT_EQ(listed.row.up_to_taps, table.rows[expected].up_to_taps) << table.model << ", " << taps << " taps";
      EXPECT_EQ(listed.row.handover_from_samples, table.rows[expected].handover_from_samples);
      EXPECT_EQ(listed.table, table.model);
    }
    const CrossoverAnswer listed = crossover_for(first.model, taps);
    for (const std::string unlisted : {"", "Some Future GPU", "NVIDIA H200 NVL"}) {  // exact names only
      const CrossoverAnswer fallback = crossover_for(unlisted, taps);
      EXPECT_EQ(fallback.row.up_to_taps, listed.row.up_to_taps);
      EXPECT_EQ(fallback.row.handover_from_samples, 2 * listed.row.handover_from_samples) << "the fallback rule";
      EXPECT_EQ(fallback.row.gpu_alone, listed.row.gpu_alone) << taps << " taps";
      EXPECT_NE(fallback.table.find(first.model), std::string::npos) << fallback.table;
    }
  }
}

// Where no GPU is listed (this machine has none; a build without CUDA has no GPU engines),
// auto takes a CPU engine and no hand-over, for any job size.
TEST(AutoChoice, WithoutAListedGpuTheCpuEngineAlone) {
  const GpuProbe probe = probe_gpus();
  if (probe.possible) GTEST_SKIP() << "this machine lists a GPU";
  for (const std::size_t taps : {std::size_t{7}, std::size_t{255}, std::size_t{65535}}) {
    const TapSet set = TapSet::from_masks({mask_of(random_taps(taps, 3))}, 2);
    const ProcessSpec spec{2, 4096, taps, 48000};
    for (const std::uint64_t samples : {std::uint64_t{0}, std::uint64_t{1000}, std::uint64_t{1} << 34}) {
      const EngineChoice choice = choose_engine("auto", set, spec, samples);
      EXPECT_EQ(engine_entry(choice.name).device, EngineDevice::cpu) << choice.name;
      EXPECT_EQ(choice.takes_over, "") << choice.reason;
      EXPECT_FALSE(choice.reason.empty());
      EXPECT_EQ(make_engine(choice)->name(), choice.name) << "no hand-over composite";
    }
  }
}

// make_engine(EngineChoice) builds the hand-over where the choice names one.
TEST(AutoChoice, AChoiceWithASecondEngineMakesTheHandOver) {
  EngineChoice choice{"cpu-fft", "test", "cpu", 0};
  auto engine = make_engine(choice);
  EXPECT_EQ(engine->name(), "handover(cpu-fft,cpu)");
  const filters::MaskSet masks = {mask_of(random_taps(100, 4))};
  prepare_with(*engine, masks, 1, 512);
  const auto in = random_signal(4000, 5);
  const auto out = run_aligned(*engine, in, 1, {512});
  const auto ref = reference_output(in, 1, masks, 4099);
  EXPECT_LE(worst_channel_error(out, ref, 1, 4099), 1e-5);
}

}  // namespace
}  // namespace halo
