#include "src/engine/partition_plan.hpp"

#include <algorithm>

namespace halo {

PartitionPlan plan_partitions(std::size_t max_mask_frames) {
  PartitionPlan plan;
  plan.base_frames = base_frames;
  const std::size_t base = plan.base_frames;
  const auto partitions_for = [](std::size_t frames, std::size_t size) { return (frames + size - 1) / size; };

  PartitionLevel head;
  head.partition_frames = base;
  head.count = std::min<std::size_t>(4, partitions_for(max_mask_frames, base));
  plan.levels.push_back(head);

  for (std::size_t size = 2 * base; plan.levels.back().end_frames() < max_mask_frames; size *= 2) {
    PartitionLevel level;
    level.partition_frames = size;
    level.offset_frames = 2 * size;  // == the previous level's end
    const std::size_t left = partitions_for(max_mask_frames - level.offset_frames, size);
    level.count = size >= max_partition_frames ? left : std::min<std::size_t>(2, left);
    level.on_worker = size >= worker_from_frames;
    plan.levels.push_back(level);
  }
  return plan;
}

}  // namespace halo
