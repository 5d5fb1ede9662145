// A bag-of-words corpus for topic models, and the readers of the UCI bag-of-words format.
//
// UCI format (https://archive.ics.uci.edu/ml/datasets/Bag+of+Words), docword.txt:
//   D            number of documents
//   W            vocabulary size
//   NNZ          number of body lines
//   docID wordID count     NNZ lines, 1-based ids, count >= 1
// and vocab.txt: W lines, the word with id i on line i.
//
// In memory, documents and words are 0-based: document d here is document d + 1 in the files,
// and every writer (apps/lda/lda_reference.h) adds the 1 back. Each document is the flat list of
// its tokens' word ids (a body line "d w c" contributes c tokens of word w to document d, in the
// order of the file), stored as one CSR-like array.
//
// Thread-safety: a Corpus is a plain value; the loaders are reentrant.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace strads::lda {

struct Corpus {
  uint64_t docs = 0;                  // D: documents 0..D-1 (1..D in files)
  uint64_t words = 0;                 // W: vocabulary size, word ids 0..W-1 (1..W in files)
  uint64_t tokens = 0;                // total tokens, the sum of all counts
  uint64_t entries = 0;               // body lines (NNZ) that made it
  uint64_t empty_docs = 0;            // documents with no tokens (allowed)
  std::vector<uint64_t> doc_begin;    // docs + 1 offsets into token_words
  std::vector<uint32_t> token_words;  // the word id of every token, document by document

  // The tokens of document d (0-based). REQUIRES: d < docs.
  std::span<const uint32_t> Doc(uint64_t d) const {
    return {token_words.data() + doc_begin[d], token_words.data() + doc_begin[d + 1]};
  }
};

// Most tokens a corpus may hold: counts are kept as signed 32-bit integers.
inline constexpr uint64_t kMaxCorpusTokens = (uint64_t{1} << 31) - 1;

// Reads a UCI docword file. Body lines may come in any order; a repeated (doc, word) pair adds
// up. Blank lines are skipped. Errors (InvalidArgument, every one naming path:line):
//   a missing, malformed or zero header value (D, W, NNZ; W must fit in 32 bits);
//   a body line that is not exactly three integers;
//   a doc id outside 1..D or a word id outside 1..W; a count < 1;
//   more body lines than NNZ (names the first extra line) or fewer (names the last line);
//   more than kMaxCorpusTokens tokens.
// NotFound / IoError when the file cannot be opened or read.
Result<Corpus> LoadUciBagOfWords(const std::string& docword_path);

// Reads a UCI vocab file: one word per line (surrounding whitespace trimmed), word i on line i.
// InvalidArgument naming path:line for an empty line or when the number of words is not
// expected_words (a trailing newline is fine).
Result<std::vector<std::string>> LoadVocab(const std::string& vocab_path, uint64_t expected_words);

// A corpus from in-memory documents of 0-based word ids (for tests, benchmarks, generators).
// InvalidArgument when a word id is >= words or there are too many tokens.
Result<Corpus> MakeCorpus(uint64_t words, const std::vector<std::vector<uint32_t>>& docs);

}  // namespace strads::lda
