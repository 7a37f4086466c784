#include "src/engine/gpu_probe.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <vector>

namespace halo {
namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The "Model:" line of one GPU's information file; empty when there is none.
std::string model_in(const std::filesystem::path& information) {
  std::ifstream file(information);
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("Model:", 0) == 0) return trimmed(line.substr(6));
  return "";
}

bool exists(const std::string& path) {
  struct stat status {};
  return stat(path.c_str(), &status) == 0;  // stat, not open: no driver call
}

// CUDA reads the variable as a comma-separated list and stops at the first entry that names
// no device; an empty value or one starting with -1 leaves none.
bool hides_every_gpu(const char* visible_devices) {
  if (!visible_devices) return false;
  const std::string value = trimmed(visible_devices);
  return value.empty() || value[0] == '-' || value[0] == ',';
}

}  // namespace

GpuProbe probe_gpus(const std::string& driver_root, const std::string& device_root, const char* visible_devices) {
  GpuProbe probe;
  if (hides_every_gpu(visible_devices)) {
    probe.why_not = "CUDA_VISIBLE_DEVICES hides every GPU";
    return probe;
  }
  std::vector<std::string> models;
  std::error_code error;
  for (const auto& gpu : std::filesystem::directory_iterator(driver_root + "/gpus", error))
    models.push_back(model_in(gpu.path() / "information"));
  if (!models.empty()) {
    probe.possible = true;
    const bool one_model = std::all_of(models.begin(), models.end(), [&](const std::string& m) { return m == models[0]; });
    if (one_model) probe.model = models[0];
    return probe;
  }
  // No driver folder (a container that does not mount it, WSL): the device nodes decide,
  // and the model is unknown.
  if (exists(device_root + "/nvidia0") || exists(device_root + "/dxg")) {
    probe.possible = true;
    return probe;
  }
  probe.why_not = "no NVIDIA GPU: the driver lists none";
  return probe;
}

GpuProbe probe_gpus() { return probe_gpus("/proc/driver/nvidia", "/dev", std::getenv("CUDA_VISIBLE_DEVICES")); }

}  // namespace halo
