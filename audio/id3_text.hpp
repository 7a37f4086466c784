#pragma once
#include <cstddef>
#include <string>

namespace halo::audio {

// The text of an MP3's tags through libsndfile, which writes it into LAME's ID3 frames as Latin-1
// and reads it back two ways: an ID3v2 frame converted to UTF-8 (by mpg123), an ID3v1 tag (the
// only one LAME writes for short fields) as its raw bytes. Tags are UTF-8 everywhere else
// halo reads and writes them.

// UTF-8 `text` as Latin-1 for an MP3's tags: a character past U+00FF as '?', counted in `lost`.
// Text that is not UTF-8 is kept as it is (8-bit already).
std::string latin1_for_id3(const std::string& text, std::size_t& lost);

// UTF-8 `text` as ASCII, for the tags of a container that hold no more (AIFF's copyright and
// software chunks, which libsndfile wrote from UTF-8 as '.' and dropped: "© Zoë" read back as
// ".. Zo..", a QA pass): a character past U+007F as '?', counted in `lost`.
std::string ascii_for_tags(const std::string& text, std::size_t& lost);

// An MP3's tag text as UTF-8: kept where it is UTF-8 already (an ID3v2 frame, or an ID3v1 tag
// that held UTF-8), else read as the Latin-1 an ID3v1 tag holds.
std::string utf8_from_id3(const std::string& text);

}  // namespace halo::audio
