#include "audio/speaker_order.hpp"

#include <sndfile.h>

#include <algorithm>
#include <iterator>

namespace halo::audio {
namespace {

constexpr int L = SF_CHANNEL_MAP_LEFT, R = SF_CHANNEL_MAP_RIGHT, C = SF_CHANNEL_MAP_CENTER, LFE = SF_CHANNEL_MAP_LFE;
constexpr int BL = SF_CHANNEL_MAP_REAR_LEFT, BR = SF_CHANNEL_MAP_REAR_RIGHT, BC = SF_CHANNEL_MAP_REAR_CENTER;
constexpr int SL = SF_CHANNEL_MAP_SIDE_LEFT, SR = SF_CHANNEL_MAP_SIDE_RIGHT;

// A WAV channel mask's speakers, bit 0 first, as libsndfile names them (wavlike.c).
constexpr int wav_mask_bits[] = {L,
                                 R,
                                 C,
                                 LFE,
                                 BL,
                                 BR,
                                 SF_CHANNEL_MAP_FRONT_LEFT_OF_CENTER,
                                 SF_CHANNEL_MAP_FRONT_RIGHT_OF_CENTER,
                                 BC,
                                 SL,
                                 SR,
                                 SF_CHANNEL_MAP_TOP_CENTER,
                                 SF_CHANNEL_MAP_TOP_FRONT_LEFT,
                                 SF_CHANNEL_MAP_TOP_FRONT_CENTER,
                                 SF_CHANNEL_MAP_TOP_FRONT_RIGHT,
                                 SF_CHANNEL_MAP_TOP_REAR_LEFT,
                                 SF_CHANNEL_MAP_TOP_REAR_CENTER,
                                 SF_CHANNEL_MAP_TOP_REAR_RIGHT};

// The mask bit of a speaker, -1 for none. CAF's "front left" is WAV's left: the mask has one.
int wav_mask_bit(int speaker) {
  if (speaker == SF_CHANNEL_MAP_FRONT_LEFT) speaker = L;
  if (speaker == SF_CHANNEL_MAP_FRONT_RIGHT) speaker = R;
  if (speaker == SF_CHANNEL_MAP_FRONT_CENTER) speaker = C;
  const auto* found = std::find(std::begin(wav_mask_bits), std::end(wav_mask_bits), speaker);
  return found == std::end(wav_mask_bits) ? -1 : static_cast<int>(found - std::begin(wav_mask_bits));
}

}  // namespace

std::vector<int> vorbis_speakers(int channels) {
  switch (channels) {
    case 1: return {C};
    case 2: return {L, R};
    case 3: return {L, C, R};
    case 4: return {L, R, BL, BR};
    case 5: return {L, C, R, BL, BR};
    case 6: return {L, C, R, BL, BR, LFE};
    case 7: return {L, C, R, SL, SR, BC, LFE};
    case 8: return {L, C, R, SL, SR, BL, BR, LFE};
    default: return {};
  }
}

std::vector<int> wav_speakers(int channels) {
  switch (channels) {
    case 1: return {C};
    case 2: return {L, R};
    case 3: return {L, R, C};
    case 4: return {L, R, BL, BR};
    case 5: return {L, R, C, BL, BR};
    case 6: return {L, R, C, LFE, BL, BR};
    case 7: return {L, R, C, LFE, BC, SL, SR};
    case 8: return {L, R, C, LFE, BL, BR, SL, SR};
    default: return {};
  }
}

std::vector<int> container_speakers(int container, int subtype, int channels) {
  if (channels < 3) return {};
  if (container == SF_FORMAT_OGG && (subtype == SF_FORMAT_VORBIS || subtype == SF_FORMAT_OPUS))
    return vorbis_speakers(channels);
  if (container == SF_FORMAT_FLAC) return wav_speakers(channels);
  return {};
}

std::vector<int> in_wav_mask_order(const std::vector<int>& speakers) {
  std::vector<int> bits;
  for (const int speaker : speakers) {
    const int bit = wav_mask_bit(speaker);
    if (bit < 0) return {};
    bits.push_back(bit);
  }
  std::sort(bits.begin(), bits.end());
  std::vector<int> ordered;
  for (const int bit : bits) ordered.push_back(wav_mask_bits[bit]);
  return ordered;
}

std::vector<int> sides_as_rears(const std::vector<int>& speakers) {
  const auto holds = [&](int speaker) { return std::find(speakers.begin(), speakers.end(), speaker) != speakers.end(); };
  if (holds(BL) || holds(BR)) return speakers;
  std::vector<int> moved = speakers;
  for (int& speaker : moved) speaker = speaker == SL ? BL : speaker == SR ? BR : speaker;
  return moved;
}

std::vector<int> channel_moves(const std::vector<int>& from, const std::vector<int>& to) {
  if (from.size() != to.size() || from == to) return {};
  // Compared as mask bits where both have one, so that CAF's "front left" meets WAV's "left".
  const auto same = [](int a, int b) { return a == b || (wav_mask_bit(a) >= 0 && wav_mask_bit(a) == wav_mask_bit(b)); };
  std::vector<int> moves;
  std::vector<bool> taken(from.size(), false);
  for (const int speaker : to) {
    std::size_t source = 0;
    while (source < from.size() && (taken[source] || !same(from[source], speaker))) ++source;
    if (source == from.size()) return {};
    taken[source] = true;
    moves.push_back(static_cast<int>(source));
  }
  for (std::size_t k = 0; k < moves.size(); ++k)
    if (moves[k] != static_cast<int>(k)) return moves;
  return {};  // the same speakers in the same places under other names
}

std::vector<int> moves_into_wav_order(const std::vector<int>& speakers) {
  return channel_moves(speakers, in_wav_mask_order(speakers));
}

}  // namespace halo::audio
