// The CUDA engines against the float64 reference (tests/test_signals.hpp) and the CPU engine,
// the per-GPU constant bank (leases shared by several engines, on one thread and on two) and
// deduplicated masks ([a, a, b]). Every test that runs a kernel skips with the reason where no
// CUDA device is usable (CI, the dev machine); the answers of accepts() need no device.
// Inputs are fresh seeded random signals (no zeros); outputs are poisoned with NaN first, so
// an element never written fails (relative_error returns inf on NaN). Tolerance: 1e-6.
// Each case's float64 reference costs at most ~1e9 multiply-adds, and is shared by all kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda/direct/direct_engine.hpp"
#include "engine_harness.hpp"
#include "src/engine/cpu_direct_engine.hpp"
#include "test_signals.hpp"

namespace halo::cuda {
namespace {

constexpr double tolerance = 1e-6;
constexpr float nan = std::numeric_limits<float>::quiet_NaN();
constexpr Kernel all_kernels[] = {Kernel::basic, Kernel::constant, Kernel::tiled, Kernel::cached, Kernel::fast};

#define SKIP_WITHOUT_DEVICE()                                               \
  do {                                                                      \
    std::string why;                                                        \
    if (!device_usable(0, &why)) GTEST_SKIP() << "no usable CUDA device: " << why; \
  } while (0)

using test::mask_of;
using test::run_in_chunks;

// Random taps scaled by 1/sqrt(M) (so outputs stay near unit size), seeded.
filters::Mask random_mask(std::size_t taps, std::uint64_t seed) {
  return mask_of(test::random_signal(taps, seed, 1.0f / std::sqrt(static_cast<float>(taps))));
}

// Float64 references of every channel (the first `frames` outputs of each).
std::vector<std::vector<double>> references(const std::vector<float>& input, int channels,
                                            const filters::MaskSet& masks) {
  std::vector<std::vector<double>> refs(channels);
  for (int c = 0; c < channels; ++c)
    refs[c] = test::reference_convolution(input, channels, c, masks[masks.size() == 1 ? 0 : c].taps);
  return refs;
}

void expect_matches(const std::vector<float>& out, int channels, const std::vector<std::vector<double>>& refs,
                    const std::string& what) {
  const std::size_t frames = out.size() / channels;
  for (int c = 0; c < channels; ++c) {
    const double error = test::relative_error(out.data() + c, frames, channels, refs[c].data());
    EXPECT_LE(error, tolerance) << what << ", channel " << c << " of " << channels << ", " << frames << " frames";
  }
}

std::unique_ptr<Engine> prepared(Kernel kernel, const filters::MaskSet& masks, int channels, std::size_t max_chunk,
                                 int block_threads = 256) {
  EngineOptions options;
  options.block_threads = block_threads;
  auto engine = make_engine(kernel, options);
  test::prepare_with(*engine, masks, channels, max_chunk);
  return engine;
}

// Every kernel, one channel: lengths around the block sizes (256 threads; 4096 outputs for
// cuda-fast) and masks from 1 tap to the constant-memory limit.
TEST(CudaEngine, LengthsAndMasks) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t lengths[] = {1, 7, 255, 256, 257, 4095, 4097};
  const std::size_t mask_lengths[] = {1, 2, 3, 64, 255, 4096, 16383};
  std::uint64_t seed = 1;
  for (std::size_t taps : mask_lengths) {
    for (std::size_t frames : lengths) {
      const filters::MaskSet masks{random_mask(taps, ++seed)};
      const auto input = test::random_signal(frames, ++seed);
      const auto refs = references(input, 1, masks);
      for (Kernel kernel : all_kernels) {
        auto engine = prepared(kernel, masks, 1, frames);
        expect_matches(run_in_chunks(*engine, input, 1, {frames}), 1, refs,
                       engine_name(kernel) + ", " + std::to_string(taps) + " taps, whole");
      }
    }
  }
}

// 10^6 + 3 frames, streamed in large chunks (several slices per chunk).
TEST(CudaEngine, LongSignal) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 1000003;
  const auto input = test::random_signal(frames, 101);
  for (std::size_t taps : {3, 255}) {
    const filters::MaskSet masks{random_mask(taps, 102 + taps)};
    const auto refs = references(input, 1, masks);
    for (Kernel kernel : all_kernels) {
      auto engine = prepared(kernel, masks, 1, 300007);
      expect_matches(run_in_chunks(*engine, input, 1, {300007}), 1, refs,
                     engine_name(kernel) + ", " + std::to_string(taps) + " taps, chunks of 300007");
    }
  }
}

// The longest mask constant memory holds, random taps: the accuracy case (one float
// accumulator over 16383 terms would miss 1e-6).
TEST(CudaEngine, LongestMask) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 65536 + 5;
  const filters::MaskSet masks{random_mask(16383, 201)};
  const auto input = test::random_signal(frames, 202);
  const auto refs = references(input, 1, masks);
  for (Kernel kernel : all_kernels) {
    auto engine = prepared(kernel, masks, 1, frames);
    expect_matches(run_in_chunks(*engine, input, 1, {frames}), 1, refs, engine_name(kernel) + ", 16383 taps");
  }
}

// Several slices per chunk: each slice reads the previous slice's samples as its halo.
TEST(CudaEngine, SlicesWithLongMask) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 4 * 65536 + 11;
  const filters::MaskSet masks{random_mask(4095, 211)};
  const auto input = test::random_signal(frames, 212);
  const auto refs = references(input, 1, masks);
  for (Kernel kernel : {Kernel::constant, Kernel::fast}) {
    auto engine = prepared(kernel, masks, 1, frames);
    expect_matches(run_in_chunks(*engine, input, 1, {frames}), 1, refs, engine_name(kernel) + ", 4 slices, 4095 taps");
  }
}

// 2 and 6 channels, one mask for all and one mask per channel.
TEST(CudaEngine, Channels) {
  SKIP_WITHOUT_DEVICE();
  struct Case {
    int channels;
    std::size_t taps;
    bool per_channel;
    std::size_t frames;
  };
  const Case cases[] = {
      {2, 3, false, 50001},  {2, 255, true, 50001},   {6, 255, false, 20011}, {6, 64, true, 30011},
      {6, 2730, true, 10007}, {6, 16383, false, 10007}, {2, 8192, true, 20011},
  };
  std::uint64_t seed = 300;
  for (const Case& k : cases) {
    filters::MaskSet masks;
    for (int c = 0; c < (k.per_channel ? k.channels : 1); ++c) masks.push_back(random_mask(k.taps, ++seed));
    const auto input = test::random_signal(k.frames * k.channels, ++seed);
    const auto refs = references(input, k.channels, masks);
    for (Kernel kernel : all_kernels) {
      auto engine = prepared(kernel, masks, k.channels, 4096 + 1);
      expect_matches(run_in_chunks(*engine, input, k.channels, {4096 + 1, 999, 1, 3000}), k.channels, refs,
                     engine_name(kernel) + ", " + std::to_string(k.taps) + " taps" +
                         (k.per_channel ? " per channel" : " shared"));
    }
  }
}

// cuda-fast's short-mask kernel (padded taps 32, 64, 96, 128; one instantiation each), shared
// and per-channel masks, lengths around its 4096-output items and 1024-output warp spans.
TEST(CudaEngine, FastShortMasks) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t mask_lengths[] = {1, 31, 33, 63, 65, 96, 97, 128};
  const std::size_t lengths[] = {1, 1000, 4097, 3 * 4096 + 1029, 100003};
  std::uint64_t seed = 1000;
  for (std::size_t taps : mask_lengths) {
    for (bool per_channel : {false, true}) {
      const int channels = per_channel ? 3 : 2;
      filters::MaskSet masks;
      for (int c = 0; c < (per_channel ? channels : 1); ++c) masks.push_back(random_mask(taps, ++seed));
      for (std::size_t frames : lengths) {
        const auto input = test::random_signal(frames * channels, ++seed);
        const auto refs = references(input, channels, masks);
        auto engine = prepared(Kernel::fast, masks, channels, frames);
        expect_matches(run_in_chunks(*engine, input, channels, {frames}), channels, refs,
                       "cuda-fast, " + std::to_string(taps) + " taps" + (per_channel ? " per channel" : " shared"));
      }
      // Chunks shorter than the mask and than an item, carried halo between them.
      const std::size_t frames = 20000;
      const auto input = test::random_signal(frames * channels, ++seed);
      const auto refs = references(input, channels, masks);
      auto engine = prepared(Kernel::fast, masks, channels, 5000);
      expect_matches(run_in_chunks(*engine, input, channels, {5000, 1, 17, 4096, 130}), channels, refs,
                     "cuda-fast, " + std::to_string(taps) + " taps, chunked");
    }
  }
}

// Random chunk sizes, 1-frame chunks and chunks shorter than the mask give the whole result.
TEST(CudaEngine, ChunkedEqualsWhole) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 20000;
  const int channels = 2;
  const filters::MaskSet masks{random_mask(255, 401)};
  const auto input = test::random_signal(frames * channels, 402);
  const auto refs = references(input, channels, masks);
  std::mt19937 rng(403);
  std::vector<std::size_t> chunks{1, 1, 2, 254, 1, 255, 256};
  std::uniform_int_distribution<std::size_t> size(1, 700);
  for (int i = 0; i < 40; ++i) chunks.push_back(size(rng));
  for (Kernel kernel : all_kernels) {
    auto whole_engine = prepared(kernel, masks, channels, frames);
    const auto whole = run_in_chunks(*whole_engine, input, channels, {frames});
    auto engine = prepared(kernel, masks, channels, 700);
    const auto chunked = run_in_chunks(*engine, input, channels, chunks);
    expect_matches(chunked, channels, refs, engine_name(kernel) + ", random chunks");
    std::vector<double> whole64(whole.begin(), whole.end());
    EXPECT_LE(test::relative_error(chunked.data(), chunked.size(), 1, whole64.data()), tolerance)
        << engine_name(kernel) << ": chunked differs from whole";
  }
}

// Same output as the CPU engine, fed the same chunks.
TEST(CudaEngine, EqualsCpuEngine) {
  SKIP_WITHOUT_DEVICE();
  const int channels = 2;
  const std::size_t frames = 48000 * 2 + 17;
  const filters::MaskSet masks{random_mask(1023, 501), random_mask(1023, 502)};
  const auto input = test::random_signal(frames * channels, 503);
  CpuDirectEngine cpu;
  test::prepare_with(cpu, masks, channels, 8192);
  const auto expected = run_in_chunks(cpu, input, channels, {8192, 100, 5000});
  std::vector<double> expected64(expected.begin(), expected.end());
  for (Kernel kernel : all_kernels) {
    auto engine = prepared(kernel, masks, channels, 8192);
    const auto out = run_in_chunks(*engine, input, channels, {8192, 100, 5000});
    EXPECT_LE(test::relative_error(out.data(), out.size(), 1, expected64.data()), tolerance) << engine_name(kernel);
  }
}

// reset() forgets the carry: after it, a new signal gives what a fresh engine gives.
TEST(CudaEngine, Reset) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 5000;
  const filters::MaskSet masks{random_mask(300, 601)};
  const auto first = test::random_signal(frames, 602);
  const auto second = test::random_signal(frames, 603);
  const auto refs = references(second, 1, masks);
  for (Kernel kernel : all_kernels) {
    auto engine = prepared(kernel, masks, 1, 1000);
    run_in_chunks(*engine, first, 1, {1000, 77});
    engine->reset();
    expect_matches(run_in_chunks(*engine, second, 1, {1000, 77}), 1, refs, engine_name(kernel) + " after reset");
  }
}

// Created on one thread, prepared and used on another; two engines alive at once hold two
// leases of the constant bank (the second at a non-zero offset).
TEST(CudaEngine, OtherThreadAndTwoEngines) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 30000;
  const filters::MaskSet masks_a{random_mask(127, 701)};
  const filters::MaskSet masks_b{random_mask(511, 702)};
  const auto input = test::random_signal(frames, 703);
  const auto refs_a = references(input, 1, masks_a);
  const auto refs_b = references(input, 1, masks_b);
  auto a = make_engine(Kernel::fast);
  auto b = make_engine(Kernel::constant);
  std::vector<float> out_a(frames, nan), out_b(frames, nan);
  std::thread worker([&] {
    test::prepare_with(*a, masks_a, 1, 1000);
    test::prepare_with(*b, masks_b, 1, 1000);
    for (std::size_t done = 0; done < frames; done += 1000) {
      test::process_frames(*a, input, out_a, 1, done, done + 1000, {1000});
      test::process_frames(*b, input, out_b, 1, done, done + 1000, {1000});
    }
  });
  worker.join();
  expect_matches(out_a, 1, refs_a, "cuda-fast interleaved with cuda-constant");
  expect_matches(out_b, 1, refs_b, "cuda-constant interleaved with cuda-fast");
}

// A mask that constant memory cannot hold is refused with the limit and the way out (in the
// library's words: no command-line flag), by accepts() and by set_taps alike.
TEST(CudaEngine, TooLongMask) {
  SKIP_WITHOUT_DEVICE();
  for (Kernel kernel : all_kernels) {
    auto engine = make_engine(kernel);
    try {
      test::prepare_with(*engine, {random_mask(16385, 801)}, 1, 1024);
      ADD_FAILURE() << engine_name(kernel) << " accepted 16385 taps";
    } catch (const halo::Error& e) {
      EXPECT_NE(std::string(e.what()).find("16384"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("CPU engines"), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find("--"), std::string::npos) << e.what();
    }
    try {
      test::prepare_with(*engine, {random_mask(9000, 802), random_mask(9000, 803)}, 2, 1024);
      ADD_FAILURE() << engine_name(kernel) << " accepted 2 x 9000 taps";
    } catch (const halo::Error& e) {
      EXPECT_NE(std::string(e.what()).find("16384"), std::string::npos) << e.what();
    }
  }
}

// The answers the registry and `auto` get: from the TapSet alone, without a device. Channels
// that share a mask count once ([a, a, b] of 6000 taps: 2 x 6016 padded taps fit); cuda-fast
// falls back to the constant kernel where only its padding overflows the bank.
TEST(CudaEngineAccepts, CountsDistinctMasks) {
  const filters::Mask a = random_mask(6000, 1201), b = random_mask(6000, 1202), c = random_mask(6000, 1203);
  const ProcessSpec spec{3, 4096, 6000, 48000};
  const TapSet shared_columns = TapSet::from_masks({a, a, b}, 3);
  EXPECT_EQ(kernel_that_runs(Kernel::fast, shared_columns), Kernel::fast);
  EXPECT_EQ(bank_taps_needed(Kernel::fast, shared_columns), 2u * 6016u);
  for (const EngineEntry& entry : direct_engine_entries()) {
    std::string why;
    EXPECT_TRUE(entry.accepts(shared_columns, spec, &why)) << entry.name << ": " << why;
  }

  const TapSet three = TapSet::from_masks({a, b, c}, 3);
  std::string why;
  EXPECT_FALSE(accepts(Kernel::fast, three, spec, &why));
  EXPECT_NE(why.find("18048"), std::string::npos) << why;
  EXPECT_NE(why.find("16384"), std::string::npos) << why;

  // 3 x 5450 = 16350 taps fit; padded to 3 x 5472 = 16416 they do not.
  const filters::MaskSet tight{random_mask(5450, 1204), random_mask(5450, 1205), random_mask(5450, 1206)};
  const TapSet fallback = TapSet::from_masks(tight, 3);
  EXPECT_EQ(kernel_that_runs(Kernel::fast, fallback), Kernel::constant);
  EXPECT_EQ(bank_taps_needed(Kernel::fast, fallback), 16350u);
  EXPECT_TRUE(accepts(Kernel::fast, fallback, {3, 4096, 5450, 48000}, nullptr));
}

// Per-channel columns where some channels share a mask: channel c must read mask_of(c), not
// the c-th mask of the bank. 6000 taps, three channels, every kernel, against a float64
// reference written out here; the fallback case of cuda-fast (the constant kernel) as well.
TEST(CudaEngine, ChannelsSharingSomeMasks) {
  SKIP_WITHOUT_DEVICE();
  const int channels = 3;
  const std::size_t frames = 12011;
  // y_c[n] = sum_k h_c[k] x_c[n - k], x_c[m < 0] = 0, in double.
  const auto plain_reference = [&](const std::vector<float>& x, int c, const std::vector<float>& h) {
    std::vector<double> y(frames, 0.0);
    for (std::size_t n = 0; n < frames; ++n)
      for (std::size_t k = 0; k < h.size() && k <= n; ++k)
        y[n] += static_cast<double>(h[k]) * static_cast<double>(x[(n - k) * channels + c]);
    return y;
  };
  struct Case {
    std::size_t taps;
    std::vector<int> mapping;  // channel -> which of the masks a, b, c
  };
  const Case cases[] = {{6000, {0, 0, 1}}, {6000, {0, 1, 0}}, {6000, {0, 1, 1}}, {5450, {0, 1, 2}}};
  std::uint64_t seed = 1300;
  for (const Case& k : cases) {
    const filters::Mask distinct[] = {random_mask(k.taps, ++seed), random_mask(k.taps, ++seed),
                                      random_mask(k.taps, ++seed)};
    filters::MaskSet masks;
    for (int m : k.mapping) masks.push_back(distinct[m]);
    const auto input = test::random_signal(frames * channels, ++seed);
    std::vector<std::vector<double>> refs;
    for (int c = 0; c < channels; ++c) refs.push_back(plain_reference(input, c, masks[c].taps));
    std::string mapping;
    for (int m : k.mapping) mapping += static_cast<char>('a' + m);
    for (Kernel kernel : all_kernels) {
      auto engine = prepared(kernel, masks, channels, 4097);
      expect_matches(run_in_chunks(*engine, input, channels, {4097, 999, 1, 3000}), channels, refs,
                     engine_name(kernel) + ", " + std::to_string(k.taps) + " taps, masks [" + mapping + "]");
    }
  }
}

// Two engines with different masks hold two leases of one GPU's bank (the second at a
// non-zero offset: the kernels' tap offsets) and run interleaved on one thread, then
// concurrently on two threads; each equals its own reference.
TEST(CudaEngine, TwoEnginesShareTheBank) {
  SKIP_WITHOUT_DEVICE();
  struct Side {
    Kernel kernel;
    int channels;
    filters::MaskSet masks;
  };
  const std::pair<Side, Side> pairs[] = {
      // the short-mask kernel at offset 0, the pipelined kernel with per-channel masks after it
      {{Kernel::fast, 1, {random_mask(63, 1401)}}, {Kernel::fast, 2, {random_mask(200, 1402), random_mask(200, 1403)}}},
      // the short-mask kernel at a non-zero offset
      {{Kernel::constant, 1, {random_mask(511, 1404)}}, {Kernel::fast, 2, {random_mask(63, 1405)}}},
      {{Kernel::tiled, 2, {random_mask(100, 1406), random_mask(90, 1407)}}, {Kernel::cached, 1, {random_mask(33, 1408)}}},
  };
  const std::size_t frames = 30000, block = 1000;
  for (const auto& [first, second] : pairs) {
    const Side* sides[] = {&first, &second};
    std::vector<float> inputs[2];
    std::vector<std::vector<double>> refs[2];
    std::string names[2];
    for (int i = 0; i < 2; ++i) {
      inputs[i] = test::random_signal(frames * sides[i]->channels, 1410 + i);
      refs[i] = references(inputs[i], sides[i]->channels, sides[i]->masks);
      names[i] = engine_name(sides[i]->kernel) + " (" + std::to_string(sides[i]->masks[0].taps.size()) + " taps)";
    }
    const std::string pair_name = names[0] + " beside " + names[1];
    std::unique_ptr<Engine> engines[2];
    for (int i = 0; i < 2; ++i) engines[i] = prepared(sides[i]->kernel, sides[i]->masks, sides[i]->channels, block);

    std::vector<float> outs[2];
    for (int i = 0; i < 2; ++i) outs[i].assign(inputs[i].size(), nan);
    for (std::size_t done = 0; done < frames; done += block)
      for (int i = 0; i < 2; ++i)
        test::process_frames(*engines[i], inputs[i], outs[i], sides[i]->channels, done, done + block, {block});
    for (int i = 0; i < 2; ++i) expect_matches(outs[i], sides[i]->channels, refs[i], pair_name + ", one thread: " + names[i]);

    for (int i = 0; i < 2; ++i) {
      engines[i]->reset();
      outs[i].assign(inputs[i].size(), nan);
    }
    std::thread workers[2];
    for (int i = 0; i < 2; ++i)
      workers[i] = std::thread([&, i] {
        test::process_frames(*engines[i], inputs[i], outs[i], sides[i]->channels, 0, frames, {block, 17, 500});
      });
    for (auto& worker : workers) worker.join();
    for (int i = 0; i < 2; ++i) expect_matches(outs[i], sides[i]->channels, refs[i], pair_name + ", two threads: " + names[i]);
  }
}

// When the bank is leased out, set_taps says which GPU and how much is taken; the region comes
// back when its engine goes, and a lone engine gets offset 0 again.
TEST(CudaEngine, BankLeasesComeBack) {
  SKIP_WITHOUT_DEVICE();
  const filters::MaskSet masks_a{random_mask(9000, 1501)}, masks_b{random_mask(9000, 1502)};
  auto a = prepared(Kernel::fast, masks_a, 1, 4096);
  auto b = make_engine(Kernel::fast);
  try {
    test::prepare_with(*b, masks_b, 1, 4096);
    ADD_FAILURE() << "two leases of 9024 taps fitted one bank of 16384";
  } catch (const halo::Error& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 0"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("9024"), std::string::npos) << e.what();
  }
  a.reset();
  test::prepare_with(*b, masks_b, 1, 4096);
  const auto input = test::random_signal(20000, 1503);
  expect_matches(run_in_chunks(*b, input, 1, {4096, 77}), 1, references(input, 1, masks_b),
                 "cuda-fast after the other engine gave its lease back");
}

// A small set for compute-sanitizer (memcheck, racecheck): every kernel, 2 channels with
// per-channel masks, chunks shorter and longer than the mask, one multi-slice chunk.
TEST(CudaSanitizerSubset, AllKernelsSmall) {
  SKIP_WITHOUT_DEVICE();
  const int channels = 2;
  const std::size_t frames = 2 * 65536 + 300;
  const filters::MaskSet masks{random_mask(255, 901), random_mask(255, 902)};
  const auto input = test::random_signal(frames * channels, 903);
  const auto refs = references(input, channels, masks);
  for (Kernel kernel : all_kernels) {
    auto engine = prepared(kernel, masks, channels, 2 * 65536 + 100);
    expect_matches(run_in_chunks(*engine, input, channels, {100, 2 * 65536 + 100, 7, 93}), channels, refs,
                   engine_name(kernel) + " (sanitizer subset)");
  }
}

// The sanitizer subset's short-mask case: cuda-fast's short kernel, per-channel (63 taps) and
// shared (100 taps) masks, several items per block and a partial last item.
TEST(CudaSanitizerSubset, FastShortMasks) {
  SKIP_WITHOUT_DEVICE();
  const std::size_t frames = 3 * 65536 + 300;
  for (const auto& [taps, per_channel] : {std::pair<std::size_t, bool>{63, true}, {100, false}}) {
    const int channels = 2;
    filters::MaskSet masks{random_mask(taps, 911)};
    if (per_channel) masks.push_back(random_mask(taps, 912));
    const auto input = test::random_signal(frames * channels, 913);
    const auto refs = references(input, channels, masks);
    auto engine = prepared(Kernel::fast, masks, channels, frames);
    expect_matches(run_in_chunks(*engine, input, channels, {frames - 1000, 1000}), channels, refs,
                   "cuda-fast short kernel, " + std::to_string(taps) + " taps (sanitizer subset)");
  }
}

}  // namespace
}  // namespace halo::cuda
