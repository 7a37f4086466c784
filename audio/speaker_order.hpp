#pragma once
#include <vector>

// Which speaker each channel feeds where a container fixes it by the channel count alone, and
// the moves between two such orders. Speakers are libsndfile's SF_CHANNEL_MAP_* codes.
//
// Why halo moves channels: Ogg Vorbis and Opus put 5.1 as FL FC FR RL RR LFE, WAV and FLAC as
// FL FR FC LFE BL BR, and libsndfile passes the samples through in the file's order without
// saying which. A 5.1 Vorbis file written to WAV under WAV's mask had its centre played on the
// right and its LFE on the right surround; a 5.1 WAV written to Vorbis the other way round.
namespace halo::audio {

// Vorbis I (section 4.3.9) and Opus's mapping family 1 (RFC 7845, 5.1.1.2): 1 to 8 channels.
std::vector<int> vorbis_speakers(int channels);

// WAV's order for the layouts FLAC defines by count (FLAC format, "channel assignment"; its
// masks 0x4, 0x3, 0x7, 0x33, 0x37, 0x3F, 0x70F, 0x63F): 1 to 8 channels.
std::vector<int> wav_speakers(int channels);

// The speakers a container's channels feed by its definition, from 3 channels up (below that
// every container agrees, and saying nothing keeps libsndfile's own choices); empty where the
// container leaves the order open (WAV without a mask, AIFF, raw, ...) or past 8 channels.
// `subtype`: an Ogg of Vorbis or Opus has Vorbis's order (libsndfile's Ogg FLAC keeps it open).
std::vector<int> container_speakers(int container, int subtype, int channels);

// `speakers` in the order a WAV channel mask lists them (its bits, low to high), as WAVEX,
// RF64 and W64 must hold them; empty where one has no bit of the mask (ambisonic, "none").
std::vector<int> in_wav_mask_order(const std::vector<int>& speakers);

// A layout with a side pair and no rear pair (5.1 as ffmpeg writes it, mask 0x60F) with its
// sides as the rear pair: the surround pair that Vorbis's and FLAC's orders by count call rear,
// and CAF's 5.1 layouts Ls and Rs.
std::vector<int> sides_as_rears(const std::vector<int>& speakers);

// For each speaker of `to`, the channel of `from` that feeds it; empty where the two do not
// hold the same speakers, or hold them in the same order (nothing to move).
std::vector<int> channel_moves(const std::vector<int>& from, const std::vector<int>& to);

// For each channel in WAV's mask order, the channel of `speakers` that feeds it: how `play` sends
// a file that names its speakers to a device (a 5.1 Ogg as a 5.1 WAV, as `filter` writes one).
// Empty where they are in that order already or name speakers no WAV mask has.
std::vector<int> moves_into_wav_order(const std::vector<int>& speakers);

}  // namespace halo::audio
