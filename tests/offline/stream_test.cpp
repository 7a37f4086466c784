// offline::Stream with real files (written and read back with libsndfile directly): same/causal
// alignment and the tail with every registered engine (the Stream trims each engine's
// latency), every chunk size giving the same samples, gain, clipping, inputs shorter than the
// mask and cancellation, against the plain float64 reference.
#include <gtest/gtest.h>

#include <sndfile.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <string>
#include <vector>

#include "audio/reader.hpp"
#include "audio/writer.hpp"
#include "cli_test_support.hpp"
#include "engine_harness.hpp"
#include "src/engine/registry.hpp"
#include "src/offline/stream.hpp"

namespace halo {
namespace {

using test::Align;
using test::expected_output;
using test::read_sound;
using test::Sound;
using test::TempDir;

using test::random_taps;

constexpr double tolerance = 1e-6;

struct StreamRun {
  StreamResult result;
  Sound out;
};

// Filters `in_path` into `out_path` through a Stream and `engine_name`, as FilterJob does.
StreamRun run_stream(const std::string& in_path, const std::string& out_path, const filters::MaskSet& masks,
                     const StreamOptions& options, int subtype = 0, const std::string& engine_name = "cpu",
                     const Cancellation& cancellation = Cancellation()) {
  audio::Reader reader(in_path);
  audio::Format format = audio::output_format(reader.format(), out_path, subtype);
  const int channels = reader.format().channels;
  Stream stream(options, test::longest(masks));
  audio::Writer writer(out_path, format, io_chunk_frames(options, channels));
  auto engine = make_engine(engine_name);
  test::prepare_with(*engine, masks, channels, engine_block_frames(options, channels));
  int engine_requests = 0;
  StreamRun run;
  run.result = stream.run(
      reader,
      [&]() -> Engine& {
        ++engine_requests;
        return *engine;
      },
      writer, nullptr, cancellation);
  writer.commit();
  EXPECT_EQ(engine_requests, 1) << "the engine is asked for once";
  run.out = read_sound(out_path);
  return run;
}

filters::MaskSet mask_set(const std::vector<std::vector<float>>& columns) {
  filters::MaskSet masks;
  for (const auto& taps : columns) {
    filters::Mask mask;
    mask.taps = taps;
    masks.push_back(mask);
  }
  return masks;
}

StreamOptions options_for(std::size_t chunk_frames, Align align, bool tail) {
  StreamOptions options;
  options.chunk_frames = chunk_frames;
  options.alignment = align == Align::same ? Alignment::centred : Alignment::causal;
  options.tail = tail;
  return options;
}

std::string mode_name(Align align, bool tail) {
  return std::string(align == Align::same ? "same" : "causal") + (tail ? "+tail" : "");
}

// ---------------------------------------------------------------- alignment and tail

class StreamEngines : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string& why = test::why_unusable(engine_entry(GetParam()));
    if (!why.empty()) GTEST_SKIP() << why;
  }
};

TEST_P(StreamEngines, AlignmentAndTailMatchTheReference) {
  TempDir dir;
  for (const int channels : {1, 2, 6}) {
    for (const std::size_t taps : {std::size_t{1}, std::size_t{2}, std::size_t{64}, std::size_t{255}}) {
      const std::size_t frames = 3001;
      const Sound in = test::make_noise_file(dir / "in.wav", frames, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT,
                                             channels * 1000 + taps);
      const auto taps_values = random_taps(taps, taps + 7);
      for (const Align align : {Align::same, Align::causal}) {
        for (const bool tail : {false, true}) {
          const StreamOptions options = options_for(1000, align, tail);
          const StreamRun run =
              run_stream(dir / "in.wav", dir / "out.wav", mask_set({taps_values}), options, 0, GetParam());
          const std::size_t delay = align == Align::same ? (taps - 1) / 2 : 0;
          const std::size_t want_frames = tail ? frames + taps - 1 - delay : frames;
          const std::string context = GetParam() + ", channels " + std::to_string(channels) + ", taps " + std::to_string(taps) +
                                      ", " + mode_name(align, tail);
          EXPECT_EQ(run.out.frames, static_cast<std::int64_t>(want_frames)) << context;
          EXPECT_EQ(run.result.frames_in, frames) << context;
          EXPECT_EQ(run.result.frames_out, want_frames) << context;
          EXPECT_EQ(run.out.channels, channels) << context;
          const auto ref = expected_output(in.samples, channels, {taps_values}, align, tail);
          EXPECT_LE(test::relative_error(run.out.samples, ref), tolerance) << context;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, StreamEngines, testing::ValuesIn(test::registered_names()),
                         [](const testing::TestParamInfo<std::string>& info) { return test::identifier(info.param); });

TEST(Stream, PerChannelMasksOfDifferentLengths) {
  TempDir dir;
  const int channels = 2;
  const Sound in = test::make_noise_file(dir / "in.wav", 2500, channels, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 31);
  const std::vector<std::vector<float>> columns = {random_taps(9, 32), random_taps(40, 33)};
  for (const Align align : {Align::same, Align::causal}) {
    for (const bool tail : {false, true}) {
      const StreamOptions options = options_for(333, align, tail);
      const StreamRun run = run_stream(dir / "in.wav", dir / "out.wav", mask_set(columns), options);
      const auto ref = expected_output(in.samples, channels, columns, align, tail);
      EXPECT_LE(test::relative_error(run.out.samples, ref), tolerance) << mode_name(align, tail);
    }
  }
}

// ---------------------------------------------------------------- chunk sizes

TEST(Stream, EveryChunkSizeGivesTheSameSamples) {
  TempDir dir;
  const int channels = 2;
  const std::size_t frames = 5003, taps = 255;
  const Sound in = test::make_noise_file(dir / "in.wav", frames, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 41);
  const auto taps_values = random_taps(taps, 42);
  for (const Align align : {Align::same, Align::causal}) {
    for (const bool tail : {false, true}) {
      const auto ref = expected_output(in.samples, channels, {taps_values}, align, tail);
      // AU float: no PEAK chunk with a time stamp, so equal samples give equal bytes.
      std::vector<float> first;
      std::string first_bytes;
      for (const std::size_t chunk : {std::size_t{1}, std::size_t{3}, std::size_t{64}, std::size_t{4096},
                                      std::size_t{65536}}) {
        const StreamOptions options = options_for(chunk, align, tail);
        const StreamRun run = run_stream(dir / "in.wav", dir / "out.au", mask_set({taps_values}), options);
        ASSERT_EQ(test::container_of(run.out), SF_FORMAT_AU);
        const std::string context = "chunk " + std::to_string(chunk) + ", " + mode_name(align, tail);
        EXPECT_LE(test::relative_error(run.out.samples, ref), tolerance) << context;
        const std::string bytes = test::read_bytes(dir / "out.au");
        if (first.empty()) {
          first = run.out.samples;
          first_bytes = bytes;
        } else {
          EXPECT_EQ(run.out.samples, first) << context << ": samples differ from chunk 1";
          EXPECT_TRUE(bytes == first_bytes) << context << ": file bytes differ from chunk 1";
        }
      }
    }
  }
}

// ---------------------------------------------------------------- gain and clipping

TEST(Stream, GainIsAppliedToFloatOutputWithoutClipping) {
  TempDir dir;
  const Sound in = test::make_noise_file(dir / "in.wav", 4000, 1, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 51, 0.9f);
  const auto taps_values = random_taps(31, 52);
  StreamOptions options;
  options.chunk_frames = 1024;
  options.gain = 4.0f;  // peaks well above 1: float output keeps them
  const StreamRun run = run_stream(dir / "in.wav", dir / "out.wav", mask_set({taps_values}), options);
  const auto ref = expected_output(in.samples, 1, {taps_values}, Align::same, false, 4.0);
  EXPECT_LE(test::relative_error(run.out.samples, ref), tolerance);
  EXPECT_EQ(run.result.clipped_samples, 0u);
  float peak = 0;
  for (float v : run.out.samples) peak = std::max(peak, std::fabs(v));
  EXPECT_GT(peak, 1.0f) << "float output is written as is, beyond full scale";
}

TEST(Stream, GainBeforeClippingIntoPcm16IsCounted) {
  TempDir dir;
  const int channels = 2;
  const Sound in =
      test::make_noise_file(dir / "in.wav", 6000, channels, 44100, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 61, 0.9f);
  const std::vector<float> identity = {1.0f};
  const double gain = 2.0;
  StreamOptions options;
  options.chunk_frames = 777;
  options.gain = static_cast<float>(gain);
  const StreamRun run = run_stream(dir / "in.wav", dir / "out.wav", mask_set({identity}), options, SF_FORMAT_PCM_16);
  ASSERT_EQ(test::subtype_of(run.out), SF_FORMAT_PCM_16);
  const auto ref = expected_output(in.samples, channels, {identity}, Align::same, false, gain);
  // Clipped: what rounds outside [-32768, 32767]; samples within half an LSB of the edge may go
  // either way.
  std::uint64_t surely = 0, maybe = 0;
  for (double v : ref) {
    const double scaled = v * 32768.0;
    if (scaled > 32767.5 + 1e-3 || scaled < -32768.5 - 1e-3) ++surely;
    else if (scaled > 32767.5 - 1e-3 || scaled < -32768.5 + 1e-3) ++maybe;
  }
  ASSERT_GT(surely, 1000u) << "the test must clip a good part of the samples";
  EXPECT_GE(run.result.clipped_samples, surely);
  EXPECT_LE(run.result.clipped_samples, surely + maybe);
  EXPECT_LE(test::max_lsb_error(run.out, ref), 1.0);
}

TEST(Stream, Pcm16InputToPcm24Output) {
  TempDir dir;
  const Sound in = test::make_noise_file(dir / "in.wav", 3000, 2, 96000, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 71);
  // Small taps: the output stays within full scale.
  const auto taps_values = test::random_signal(101, 72, 0.05f);
  StreamOptions options;
  options.chunk_frames = 500;
  const StreamRun run = run_stream(dir / "in.wav", dir / "out.wav", mask_set({taps_values}), options, SF_FORMAT_PCM_24);
  ASSERT_EQ(test::subtype_of(run.out), SF_FORMAT_PCM_24);
  const auto ref = expected_output(in.samples, 2, {taps_values}, Align::same, false);
  EXPECT_LE(test::max_lsb_error(run.out, ref), test::lsb_tolerance(SF_FORMAT_PCM_24));
  EXPECT_EQ(run.result.clipped_samples, 0u);
}

// ---------------------------------------------------------------- short inputs

TEST(Stream, InputShorterThanTheMask) {
  TempDir dir;
  for (const std::size_t frames : {std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{254}}) {
    const int channels = 2;
    const Sound in = test::make_noise_file(dir / "in.wav", frames, channels, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT,
                                           80 + frames);
    const auto taps_values = random_taps(255, 81);
    for (const Align align : {Align::same, Align::causal}) {
      for (const bool tail : {false, true}) {
        for (const std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{4096}}) {
          const StreamOptions options = options_for(chunk, align, tail);
          const StreamRun run = run_stream(dir / "in.wav", dir / "out.wav", mask_set({taps_values}), options);
          const auto ref = expected_output(in.samples, channels, {taps_values}, align, tail);
          const std::string context = "frames " + std::to_string(frames) + ", chunk " + std::to_string(chunk) +
                                      ", " + mode_name(align, tail);
          EXPECT_EQ(run.out.samples.size(), ref.size()) << context;
          EXPECT_LE(test::relative_error(run.out.samples, ref), tolerance) << context;
        }
      }
    }
  }
}

TEST(Stream, CancellationStopsTheRunAndNothingIsWritten) {
  TempDir dir;
  test::make_noise_file(dir / "in.wav", 5000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 90);
  StreamOptions options;
  options.chunk_frames = 256;
  Cancellation cancellation;
  cancellation.request();
  try {
    run_stream(dir / "in.wav", dir / "out.wav", mask_set({random_taps(31, 91)}), options, 0, "cpu", cancellation);
    ADD_FAILURE() << "a cancelled run finished";
  } catch (const Error& error) {
    EXPECT_STREQ(error.what(), "interrupted");
  }
  EXPECT_FALSE(test::file_exists(dir / "out.wav")) << "the writer was never committed";
}

// The reader and writer threads weigh less with the scheduler than the engine's, so that on a
// machine whose cores the engine fills they run in its gaps (stream.cpp). The progress
// callback runs on the writer thread, the engine source on the caller's.
TEST(Stream, TheWriterThreadRunsAtALowerPriorityThanTheEngine) {
  TempDir dir;
  test::make_noise_file(dir / "in.wav", 3000, 2, 48000, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 92);
  audio::Reader reader(dir / "in.wav");
  audio::Writer writer(dir / "out.wav", reader.format(), 1024);
  StreamOptions options;
  options.chunk_frames = 1024;
  const filters::MaskSet masks = mask_set({random_taps(31, 93)});
  Stream stream(options, test::longest(masks));
  auto engine = make_engine("cpu");
  test::prepare_with(*engine, masks, 2, engine_block_frames(options, 2));
  auto own_nice = [] {
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)));
    EXPECT_EQ(errno, 0);
    return nice;
  };
  const int caller_nice = own_nice();
  int engine_nice = -100, writer_nice = -100;
  stream.run(
      reader,
      [&]() -> Engine& {
        engine_nice = own_nice();
        return *engine;
      },
      writer, [&](std::uint64_t) { writer_nice = own_nice(); }, Cancellation());
  writer.commit();
  EXPECT_EQ(engine_nice, caller_nice) << "the engine stage runs on the caller's thread, as it was";
  EXPECT_EQ(writer_nice, std::min(caller_nice + 10, 19));
}

TEST(Stream, OutputFramesAndDelay) {
  StreamOptions options;
  options.alignment = Alignment::centred;
  Stream centred(options, 255);
  EXPECT_EQ(centred.delay_frames(), 127u);
  EXPECT_EQ(centred.output_frames(1000), 1000u);
  EXPECT_EQ(centred.output_frames(0), 0u);
  options.tail = true;
  EXPECT_EQ(Stream(options, 255).output_frames(1000), 1000u + 254u - 127u);
  EXPECT_EQ(Stream(options, 64).output_frames(10), 10u + 63u - 31u);
  options.alignment = Alignment::causal;
  EXPECT_EQ(Stream(options, 255).delay_frames(), 0u);
  EXPECT_EQ(Stream(options, 255).output_frames(1000), 1000u + 254u);
  options.chunk_frames = 0;
  EXPECT_THROW(Stream(options, 255), Error);
  options.chunk_frames = 16;
  EXPECT_THROW(Stream(options, 0), Error);
}

// The engine block: --chunk as given (within the 4 MiB budget) whatever the engine wants; left
// unset, 262144 frames, or for an engine that feeds threads as many whole blocks of the frames
// it needs (parallel_frames) as 262144 frames hold, at least one, within the 32 MiB parallel
// budget; I/O chunks at least as large.
TEST(Stream, TheAutomaticBlockGrowsForTheEnginesThreadsWithinItsBudget) {
  StreamOptions options;
  EXPECT_EQ(engine_block_frames(options, 2), default_chunk_frames);
  EXPECT_EQ(engine_block_frames(options, 1024), max_buffer_samples / 1024);
  options.parallel_frames = 8 * 262146;  // 16 threads, stereo, 65535 taps
  EXPECT_EQ(engine_block_frames(options, 2), 8u * 262146u);
  EXPECT_EQ(io_chunk_frames(options, 2), 8u * 262146u);
  options.parallel_frames = 1000;  // short masks: whole blocks, as many as the default holds
  EXPECT_EQ(engine_block_frames(options, 2), default_chunk_frames / 1000 * 1000);
  options.parallel_frames = 2 * 98305;  // 2 threads, stereo pairs, 65535 taps: one block, not 2.67
  EXPECT_EQ(engine_block_frames(options, 2), 2u * 98305u);
  options.parallel_frames = std::size_t{1} << 30;
  EXPECT_EQ(engine_block_frames(options, 2), max_parallel_buffer_samples / 2);
  EXPECT_EQ(engine_block_frames(options, 6), max_parallel_buffer_samples / 6);
  options.chunk_frames = 777;  // --chunk wins
  EXPECT_EQ(engine_block_frames(options, 2), 777u);
  EXPECT_EQ(io_chunk_frames(options, 2), min_io_frames);
  options.chunk_frames = std::size_t{1} << 24;
  EXPECT_EQ(engine_block_frames(options, 2), max_buffer_samples / 2);
}

}  // namespace
}  // namespace halo
