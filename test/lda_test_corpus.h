// Test support: synthetic LDA corpora (planted topics) and their UCI docword text.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace strads::lda::test_corpus {

// Documents from `planted` topics with disjoint supports of `width` words; each document mixes
// two topics 3:1, words uniform within a support.
inline std::vector<std::vector<uint32_t>> PlantedDocs(uint64_t seed, uint32_t planted,
                                                      uint32_t width, uint32_t docs,
                                                      uint32_t length) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint32_t>> out(docs);
  for (auto& doc : out) {
    const uint32_t major = rng() % planted, minor = rng() % planted;
    for (uint32_t i = 0; i < length; ++i) {
      const uint32_t topic = rng() % 4 == 0 ? minor : major;
      doc.push_back(topic * width + static_cast<uint32_t>(rng() % width));
    }
  }
  return out;
}

inline std::string Docword(uint64_t words, const std::vector<std::vector<uint32_t>>& docs) {
  std::ostringstream body;
  uint64_t nnz = 0;
  for (size_t d = 0; d < docs.size(); ++d) {
    std::map<uint32_t, int> counts;
    for (uint32_t w : docs[d]) ++counts[w];
    for (const auto& [w, c] : counts) {
      body << d + 1 << ' ' << w + 1 << ' ' << c << '\n';
      ++nnz;
    }
  }
  return std::to_string(docs.size()) + "\n" + std::to_string(words) + "\n" + std::to_string(nnz) +
         "\n" + body.str();
}

}  // namespace strads::lda::test_corpus
