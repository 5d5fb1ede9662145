#include "apps/lda/corpus.h"

#include <limits>
#include <string_view>

#include "common/line_reader.h"
#include "common/memory_budget.h"

namespace strads::lda {
namespace {

// The next non-blank line, or false at the end of the file (or on a read error).
bool NextNonBlank(LineReader* r, std::string_view* line) {
  while (r->Next(line)) {
    if (IsDataLine(*line, '\0')) return true;
  }
  return false;
}

// One header line: a single positive integer no larger than `max`.
Status ReadHeaderValue(LineReader* r, const char* name, uint64_t max, uint64_t* out) {
  std::string_view line;
  if (!NextNonBlank(r, &line)) {
    STRADS_RETURN_IF_ERROR(r->status());
    return LineError(*r, std::string("missing header line ") + name +
                             " (a UCI docword file starts with D, W and NNZ lines)");
  }
  std::string_view rest = line;
  const std::string_view token = NextToken(&rest);
  int64_t v = 0;
  if (!ParseInt64(token, &v) || !NextToken(&rest).empty()) {
    return LineError(*r,
                     std::string("header ") + name + " is not an integer: '" + Excerpt(line) + "'");
  }
  if (v < 1 || static_cast<uint64_t>(v) > max) {
    return LineError(*r, std::string("header ") + name + " = " + std::to_string(v) +
                             " is out of range 1.." + std::to_string(max));
  }
  *out = static_cast<uint64_t>(v);
  return Status::Ok();
}

struct Entry {
  uint32_t doc;  // 0-based
  uint32_t word;
  uint32_t count;
};

// Lays the entries out document by document (a stable counting sort, so the file order is kept
// within a document).
Corpus Assemble(uint64_t docs, uint64_t words, const std::vector<Entry>& entries, uint64_t tokens) {
  Corpus c;
  c.docs = docs;
  c.words = words;
  c.tokens = tokens;
  c.entries = entries.size();
  c.doc_begin.assign(docs + 1, 0);
  for (const Entry& e : entries) c.doc_begin[e.doc + 1] += e.count;
  for (uint64_t d = 0; d < docs; ++d) {
    if (c.doc_begin[d + 1] == 0) ++c.empty_docs;
    c.doc_begin[d + 1] += c.doc_begin[d];
  }
  c.token_words.resize(tokens);
  std::vector<uint64_t> next(c.doc_begin.begin(), c.doc_begin.end() - 1);
  for (const Entry& e : entries) {
    uint64_t& at = next[e.doc];
    for (uint32_t i = 0; i < e.count; ++i) c.token_words[at++] = e.word;
  }
  return c;
}

}  // namespace

Result<Corpus> LoadUciBagOfWords(const std::string& docword_path) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(docword_path));
  LineReader& r = opened;
  constexpr uint64_t kMax32 = std::numeric_limits<uint32_t>::max();
  uint64_t docs = 0, words = 0, nnz = 0;
  STRADS_RETURN_IF_ERROR(ReadHeaderValue(&r, "D", kMax32, &docs));
  STRADS_RETURN_IF_ERROR(ReadHeaderValue(&r, "W", kMax32, &words));
  STRADS_RETURN_IF_ERROR(ReadHeaderValue(&r, "NNZ", std::numeric_limits<int64_t>::max(), &nnz));

  std::vector<Entry> entries;
  entries.reserve(static_cast<size_t>(std::min<uint64_t>(nnz, uint64_t{1} << 24)));
  uint64_t tokens = 0;
  std::string_view line;
  while (NextNonBlank(&r, &line)) {
    if (entries.size() == nnz) {
      return LineError(r, "more body lines than the header's NNZ = " + std::to_string(nnz));
    }
    std::string_view rest = line;
    int64_t v[3];
    for (int64_t& x : v) {
      if (!ParseInt64(NextToken(&rest), &x)) {
        return LineError(
            r, "expected 'docID wordID count' (three integers), got '" + Excerpt(line) + "'");
      }
    }
    if (!NextToken(&rest).empty()) {
      return LineError(r,
                       "expected 'docID wordID count', got '" + Excerpt(line) + "' (extra fields)");
    }
    if (v[0] < 1 || static_cast<uint64_t>(v[0]) > docs) {
      return LineError(
          r, "docID " + std::to_string(v[0]) + " is out of range 1.." + std::to_string(docs));
    }
    if (v[1] < 1 || static_cast<uint64_t>(v[1]) > words) {
      return LineError(
          r, "wordID " + std::to_string(v[1]) + " is out of range 1.." + std::to_string(words));
    }
    if (v[2] < 1) {
      return LineError(r, "count " + std::to_string(v[2]) + " must be at least 1");
    }
    if (static_cast<uint64_t>(v[2]) > kMaxCorpusTokens - tokens) {
      return LineError(r, "the corpus exceeds " + std::to_string(kMaxCorpusTokens) + " tokens");
    }
    tokens += static_cast<uint64_t>(v[2]);
    entries.push_back({static_cast<uint32_t>(v[0] - 1), static_cast<uint32_t>(v[1] - 1),
                       static_cast<uint32_t>(v[2])});
  }
  STRADS_RETURN_IF_ERROR(r.status());
  if (entries.size() != nnz) {
    return LineError(r, "the header's NNZ = " + std::to_string(nnz) + " but the body has " +
                            std::to_string(entries.size()) + " lines");
  }
  // The corpus, and a home's per-word offsets, sized by the header and the counts.
  STRADS_RETURN_IF_ERROR(CheckMemory(
      r.path(),
      SaturatingMulAdd(8, docs + 1, SaturatingMulAdd(4, tokens, SaturatingMulAdd(16, words))),
      std::to_string(docs) + " documents, " + std::to_string(words) + " words and " +
          std::to_string(tokens) + " tokens",
      AvailableMemoryBytes()));
  return Assemble(docs, words, entries, tokens);
}

Result<std::vector<std::string>> LoadVocab(const std::string& vocab_path, uint64_t expected_words) {
  STRADS_ASSIGN_OR_RETURN(LineReader opened, LineReader::Open(vocab_path));
  LineReader& r = opened;
  std::vector<std::string> vocab;
  std::string_view line;
  while (r.Next(&line)) {
    std::string_view rest = line;
    const std::string_view word = NextToken(&rest);
    if (word.empty()) {
      return LineError(r, "empty line in a vocabulary (one word a line)");
    }
    if (!NextToken(&rest).empty()) {
      return LineError(r, "more than one word on a line: '" + Excerpt(line) + "'");
    }
    if (vocab.size() == expected_words) {
      return LineError(r, "more words than the corpus's W = " + std::to_string(expected_words));
    }
    vocab.emplace_back(word);
  }
  STRADS_RETURN_IF_ERROR(r.status());
  if (vocab.size() != expected_words) {
    return LineError(r, std::to_string(vocab.size()) +
                            " words but the corpus has W = " + std::to_string(expected_words));
  }
  return vocab;
}

Result<Corpus> MakeCorpus(uint64_t words, const std::vector<std::vector<uint32_t>>& docs) {
  Corpus c;
  c.docs = docs.size();
  c.words = words;
  c.doc_begin.assign(docs.size() + 1, 0);
  for (size_t d = 0; d < docs.size(); ++d) {
    for (uint32_t w : docs[d]) {
      if (w >= words) {
        return Status::InvalidArgument("document " + std::to_string(d) + ": word id " +
                                       std::to_string(w) + " >= W = " + std::to_string(words));
      }
    }
    if (docs[d].empty()) ++c.empty_docs;
    c.doc_begin[d + 1] = c.doc_begin[d] + docs[d].size();
    c.token_words.insert(c.token_words.end(), docs[d].begin(), docs[d].end());
  }
  c.tokens = c.token_words.size();
  if (c.tokens > kMaxCorpusTokens) {
    return Status::InvalidArgument("the corpus exceeds " + std::to_string(kMaxCorpusTokens) +
                                   " tokens");
  }
  c.entries = c.tokens;  // one entry per token: no (doc, word) aggregation here
  return c;
}

}  // namespace strads::lda
