#pragma once
#include <string>

namespace halo {

// What the machine says about NVIDIA GPUs without CUDA: the files the NVIDIA kernel driver
// publishes under /proc/driver/nvidia/gpus/ (one folder per GPU, each with an `information`
// file naming the model), the device nodes' presence (stat, never open) and
// CUDA_VISIBLE_DEVICES. Nothing here loads libcuda or opens /dev/nvidia*, so `auto` can ask
// it for a job it then runs on the CPU at no cost. It cannot say whether CUDA works there
// (driver and runtime versions, a GPU taken by another process): a GPU engine that fails to
// start later still falls back (see HandoverEngine).
struct GpuProbe {
  bool possible = false;  // a GPU may be usable: the driver lists one, or a device node exists
  std::string model;      // "NVIDIA H100 80GB HBM3" when every listed GPU is that model; else empty
  std::string why_not;    // when !possible, a few words: "no NVIDIA GPU: the driver lists none"
};

// `driver_root` (/proc/driver/nvidia), `device_root` (/dev) and `visible_devices` (the value of
// CUDA_VISIBLE_DEVICES, null when unset) are parameters so that tests can point them at a
// made-up tree.
GpuProbe probe_gpus(const std::string& driver_root, const std::string& device_root, const char* visible_devices);

// The machine's answer.
GpuProbe probe_gpus();

}  // namespace halo
