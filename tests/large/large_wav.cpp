// Issue 13, item 3, for real: a WAV output over 4 GiB. Before, its header wrapped (1.44e9
// frames written, 366,258,176 read back); now halo writes RF64 and says so in one line.
//
// Its own binary and ctest label `large` (`ctest -L large` runs it, `ctest -LE large` leaves it
// out): it writes 4.3 GB and takes about 30 s on a 2-core machine. The input costs no disk: a
// WAV header of 540,000,000 mono pcm16 frames over a sparse file (zeros), with a known pattern
// in its last frames; the output, double, is 8 bytes a frame. The output's RF64 header (ds64
// chunk) and its last samples are parsed here by hand, with no audio library.
#include <gtest/gtest.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace {

constexpr std::uint64_t frames = 540'000'000;
constexpr std::int16_t pattern[4] = {1000, -2000, 3000, -4000};  // the input's last four frames

template <typename T>
void put(std::string& bytes, T value) {
  bytes.append(reinterpret_cast<const char*>(&value), sizeof value);  // little-endian machine
}

template <typename T>
T get(const std::string& bytes, std::size_t at) {
  T value;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

class TempDirectory {
 public:
  TempDirectory() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern_name = std::string(base && *base ? base : "/tmp") + "/halo-large-XXXXXX";
    if (mkdtemp(pattern_name.data())) path_ = pattern_name;
  }
  ~TempDirectory() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TEST(LargeWav, OutputOver4GiBIsWrittenAsRf64AndSaysSo) {
  TempDirectory directory;
  ASSERT_FALSE(directory.path().empty()) << std::strerror(errno);
  struct statvfs disk {};
  ASSERT_EQ(statvfs(directory.path().c_str(), &disk), 0);
  const double free_bytes = static_cast<double>(disk.f_bavail) * static_cast<double>(disk.f_frsize);
  if (free_bytes < 6e9) GTEST_SKIP() << "needs 6 GB free in " << directory.path() << ", has " << free_bytes / 1e9 << " GB";

  const std::string input = directory.path() + "/sparse.wav", output = directory.path() + "/big.wav";
  {
    const std::uint32_t data_bytes = static_cast<std::uint32_t>(frames * 2);
    std::string header = "RIFF";
    put<std::uint32_t>(header, 36 + data_bytes);
    header += "WAVEfmt ";
    put<std::uint32_t>(header, 16);
    put<std::uint16_t>(header, 1);       // PCM
    put<std::uint16_t>(header, 1);       // mono
    put<std::uint32_t>(header, 48000);
    put<std::uint32_t>(header, 96000);   // bytes a second
    put<std::uint16_t>(header, 2);       // bytes a frame
    put<std::uint16_t>(header, 16);
    header += "data";
    put<std::uint32_t>(header, data_bytes);
    std::ofstream file(input, std::ios::binary);
    file.write(header.data(), static_cast<std::streamsize>(header.size()));
    file.seekp(static_cast<std::streamoff>(header.size() + data_bytes - sizeof pattern));
    file.write(reinterpret_cast<const char*>(pattern), sizeof pattern);  // the rest is a hole: zeros
    ASSERT_TRUE(file.good());
  }
  std::ofstream(directory.path() + "/one.txt") << "1\n";

  const std::string errors = directory.path() + "/stderr";
  const std::string command = "cd '" + directory.path() + "' && '" + HALO_BINARY +
                              "' filter sparse.wav big.wav --mask one.txt --subtype double --engine cpu -q 2>'" +
                              errors + "'";
  const int status = std::system(command.c_str());
  std::ifstream error_file(errors);
  const std::string said((std::istreambuf_iterator<char>(error_file)), std::istreambuf_iterator<char>());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command << "\n" << said;
  // One line, even with -q: the container differs from what the name says.
  EXPECT_EQ(said.find("halo: big.wav: "), 0u) << said;
  EXPECT_NE(said.find("RF64"), std::string::npos) << said;
  EXPECT_EQ(said.find('\n'), said.size() - 1) << said;

  // RF64 (EBU Tech 3306): "RF64", 0xFFFFFFFF, "WAVE", then "ds64" with 64-bit riff size, data
  // size and sample count; then chunks up to "data", whose 32-bit size is 0xFFFFFFFF.
  std::ifstream file(output, std::ios::binary);
  std::string head(4096, '\0');
  file.read(head.data(), static_cast<std::streamsize>(head.size()));
  ASSERT_EQ(head.substr(0, 4), "RF64");
  ASSERT_EQ(head.substr(8, 8), "WAVEds64");
  const std::uint64_t data_bytes = get<std::uint64_t>(head, 28);
  EXPECT_EQ(data_bytes, frames * sizeof(double));
  std::size_t at = 12;
  while (at + 8 <= head.size() && head.substr(at, 4) != "data") at += 8 + get<std::uint32_t>(head, at + 4);
  ASSERT_EQ(head.substr(at, 4), "data");
  const std::uint64_t data_start = at + 8;
  EXPECT_EQ(std::filesystem::file_size(output), data_start + data_bytes);

  double last[4] = {};
  file.seekg(static_cast<std::streamoff>(data_start + data_bytes - sizeof last));
  file.read(reinterpret_cast<char*>(last), sizeof last);
  ASSERT_TRUE(file.good());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(last[i], pattern[i] / 32768.0) << "frame " << frames - 4 + i;
}

}  // namespace
