// The LDA result files' formats, shared by the sequential reference (lda_reference.h writes them
// from one LdaState) and the static engine's app (lda_app.h assembles them from the members'
// pieces), so both produce byte-identical files:
//   doc_topic.mtx / word_topic.mtx: MatrixMarket "coordinate integer general", rows x K, one line
//     per non-zero "row topic count" with 1-based row ids (as in the input files) and topics,
//     rows in order and each row's entries in topic order;
//   topics.txt: one line per topic, "topic<TAB>w1 w2 ...", 1-based topic, its top words by count
//     (ties: lower word id first).
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "apps/lda/sparse_sampler.h"

namespace strads::lda {

// A word's count in one topic: (count, word id).
using WordCount = std::pair<int32_t, uint32_t>;

// Keeps the `top` first of `words` in topics.txt order (count descending, then word id
// ascending), sorted in that order; drops the rest.
void KeepTopWords(std::vector<WordCount>& words, uint32_t top);

// The text of a count matrix file; table[r] holds row r's non-zeros in any order.
// REQUIRES: table.size() <= rows, topics of every entry < topics.
std::string FormatTopicMtx(uint64_t rows, uint32_t topics,
                           const std::vector<std::vector<TopicCount>>& table);

// The text of topics.txt: line k for topic k + 1 lists name(w) for the words w of top[k].
std::string FormatTopics(const std::vector<std::vector<uint32_t>>& top,
                         const std::function<std::string(uint32_t)>& name);

}  // namespace strads::lda
