// Test support: synthetic LDA corpora (planted topics), their UCI docword text, and the job spec
// the lda tests run them with.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "apps/lda.pb.h"
#include "apps/lda/sparse_sampler.h"
#include "strads.pb.h"
#include "test/app_params_edit.h"

namespace strads::lda::test_corpus {

// An lda job on `data`: `topics` topics, alpha 0.1, beta 0.01, `iterations` iterations, seed 7.
inline proto::JobSpec Spec(const std::string& data, uint32_t topics, uint32_t iterations) {
  proto::JobSpec spec;
  spec.set_app("lda");
  spec.set_data_path(data);
  testing::EditAppParams<proto::LdaSpec>(spec, [&](proto::LdaSpec& p) {
    p.set_topics(topics);
    p.set_alpha(0.1);
    p.set_beta(0.01);
  });
  spec.mutable_static_engine()->set_iterations(iterations);
  spec.set_seed(7);
  return spec;
}

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

// A structureless corpus (no planted topics): `docs` documents of 50 words out of `words`, their
// frequencies skewed (word floor(words u^3), u uniform). Single chains on it climb smoothly.
inline std::vector<std::vector<uint32_t>> SkewedDocs(uint64_t seed, uint32_t docs, uint32_t words) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<uint32_t>> out(docs);
  for (auto& doc : out) {
    for (int i = 0; i < 50; ++i) {
      const double u = Uniform01(rng);
      doc.push_back(static_cast<uint32_t>(words * u * u * u));
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

// The planted topics (of PlantedDocs' `planted`, `width` words each) that a job's topics.txt
// recovers: those holding 9 of some topic's 10 top words. Without a vocabulary, each line of
// topics.txt is a topic's id, a tab and its top words by 1-based id.
inline std::set<uint32_t> ClaimedTopics(const std::string& topics_txt, uint32_t planted,
                                        uint32_t width) {
  std::istringstream lines(topics_txt);
  std::string line;
  std::set<uint32_t> claimed;
  while (std::getline(lines, line)) {
    std::istringstream fields(line.substr(line.find('\t') + 1));
    std::vector<int> hits(planted, 0);
    uint32_t id = 0;
    for (int j = 0; j < 10 && fields >> id; ++j) ++hits[(id - 1) / width];
    const auto best = std::max_element(hits.begin(), hits.end()) - hits.begin();
    if (hits[best] >= 9) claimed.insert(static_cast<uint32_t>(best));
  }
  return claimed;
}

}  // namespace strads::lda::test_corpus
