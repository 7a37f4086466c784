#pragma once
// Golden files: values computed outside the project (tests/data/*.py, with scipy.signal and
// numpy) and committed with the script that made them. Each is "# key value" header lines,
// then one data line per value (or per row). One reader for every test that loads them.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace halo::test {

struct GoldenFile {
  std::string name;
  std::map<std::string, std::string> header;
  std::vector<std::string> lines;  // the data lines, in order

  double number(const std::string& key) const { return std::stod(header.at(key)); }
  // Every data line as one number.
  std::vector<double> values() const {
    std::vector<double> out;
    for (const auto& line : lines) out.push_back(std::stod(line));
    return out;
  }
};

// `folder`/`name`; a missing file fails the test and names `maker`, the script to run.
inline GoldenFile load_golden_file(const std::string& folder, const std::string& name, const std::string& maker) {
  GoldenFile golden;
  golden.name = name;
  std::ifstream in(folder + "/" + name);
  EXPECT_TRUE(in) << "cannot open " << name << ": run " << maker;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream fields(line.substr(1));
      std::string key, value;
      fields >> key;
      std::getline(fields >> std::ws, value);
      golden.header[key] = value;
    } else {
      golden.lines.push_back(line);
    }
  }
  return golden;
}

// The .txt files of `folder` whose names start with `prefix`, sorted.
inline std::vector<std::string> golden_file_names(const std::string& folder, const std::string& prefix) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0 && entry.path().extension() == ".txt") names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace halo::test
