#include "apps/lda/topic_output.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

namespace strads::lda {

void KeepTopWords(std::vector<WordCount>& words, uint32_t top) {
  const size_t n = std::min<size_t>(top, words.size());
  std::partial_sort(words.begin(), words.begin() + n, words.end(),
                    [](const WordCount& a, const WordCount& b) {
                      return a.first > b.first || (a.first == b.first && a.second < b.second);
                    });
  words.resize(n);
}

std::string FormatTopicMtx(uint64_t rows, uint32_t topics,
                           const std::vector<std::vector<TopicCount>>& table) {
  uint64_t nnz = 0;
  for (const auto& row : table) nnz += row.size();
  std::string out = "%%MatrixMarket matrix coordinate integer general\n";
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{} {} {}\n", rows, topics, nnz);
  std::vector<TopicCount> sorted;
  for (uint64_t r = 0; r < table.size(); ++r) {
    // Columns in topic order, whatever the row's order in memory.
    sorted = table[r];
    std::sort(sorted.begin(), sorted.end(),
              [](const TopicCount& a, const TopicCount& b) { return a.topic < b.topic; });
    for (const TopicCount& tc : sorted)
      fmt::format_to(it, "{} {} {}\n", r + 1, tc.topic + 1, tc.count);
  }
  return out;
}

std::string FormatTopics(const std::vector<std::vector<uint32_t>>& top,
                         const std::function<std::string(uint32_t)>& name) {
  std::string out;
  for (size_t k = 0; k < top.size(); ++k) {
    out += std::to_string(k + 1);
    out += '\t';
    for (size_t j = 0; j < top[k].size(); ++j) {
      if (j > 0) out += ' ';
      out += name(top[k][j]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace strads::lda
