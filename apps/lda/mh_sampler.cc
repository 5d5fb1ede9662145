#include "apps/lda/mh_sampler.h"

#include <algorithm>
#include <cmath>

namespace strads::lda {
namespace {

// Vose's alias construction: prob[i] is the chance of keeping column i, alias[i] the column taken
// otherwise. Columns with scaled weight < 1 are topped up from ones with weight >= 1.
void BuildVose(std::span<const double> weights, std::vector<double>& prob,
               std::vector<uint32_t>& alias, std::vector<uint32_t>& small,
               std::vector<uint32_t>& large) {
  const size_t n = weights.size();
  double sum = 0;
  for (double w : weights) sum += w;
  prob.resize(n);
  alias.resize(n);
  small.clear();
  large.clear();
  const double scale = static_cast<double>(n) / sum;
  for (size_t i = 0; i < n; ++i) {
    prob[i] = weights[i] * scale;
    alias[i] = static_cast<uint32_t>(i);
    (prob[i] < 1.0 ? small : large).push_back(static_cast<uint32_t>(i));
  }
  while (!small.empty() && !large.empty()) {
    const uint32_t l = small.back(), g = large.back();
    small.pop_back();
    alias[l] = g;
    prob[g] = (prob[g] + prob[l]) - 1.0;
    if (prob[g] < 1.0) {
      large.pop_back();
      small.push_back(g);
    }
  }
  // What is left is 1 up to rounding.
  for (uint32_t i : small) prob[i] = 1.0;
  for (uint32_t i : large) prob[i] = 1.0;
}

}  // namespace

void AliasTable::Build(std::span<const double> weights) {
  BuildVose(weights, prob_, alias_, small_, large_);
}

MhSampler::MhSampler(uint32_t topics, double alpha, double beta, uint64_t words, uint32_t mh_steps)
    : k_(topics),
      steps_(mh_steps),
      alpha_(alpha),
      beta_(beta),
      w_beta_(static_cast<double>(words) * beta),
      stale_inv_(topics),
      ndk_(topics, 0) {}

void MhSampler::LoadWords(std::span<const std::vector<TopicCount>> rows,
                          std::span<int64_t> totals) {
  totals_ = totals;
  weights_.resize(k_);
  dense_mass_ = 0;
  for (uint32_t k = 0; k < k_; ++k) {
    stale_inv_[k] = 1.0 / (static_cast<double>(totals[k]) + w_beta_);
    weights_[k] = beta_ * stale_inv_[k];
    dense_mass_ += weights_[k];
  }
  dense_.Build(weights_);
  // Cells beyond the old size are zero-initialised, the ones before were zeroed by StoreWords.
  if (cells_.size() < rows.size() * k_) cells_.resize(rows.size() * k_);
  words_.resize(rows.size());
  alias_.clear();
  for (size_t j = 0; j < rows.size(); ++j) {
    Cell* c = Row(static_cast<uint32_t>(j));
    WordAlias& wa = words_[j];
    wa.begin = alias_.size();
    wa.sparse_mass = 0;
    weights_.clear();
    for (const TopicCount& tc : rows[j]) {
      c[tc.topic] = {tc.count, tc.count};
      weights_.push_back(tc.count * stale_inv_[tc.topic]);
      wa.sparse_mass += weights_.back();
    }
    wa.end = wa.begin + weights_.size();
    if (weights_.empty()) continue;
    BuildVose(weights_, prob_scratch_, alias_scratch_, small_, large_);
    for (size_t i = 0; i < weights_.size(); ++i) {
      alias_.push_back({prob_scratch_[i], rows[j][i].topic, rows[j][alias_scratch_[i]].topic});
    }
  }
}

uint32_t MhSampler::DrawWord(uint32_t word, double u01) const {
  const WordAlias& wa = words_[word];
  const double x = u01 * (wa.sparse_mass + dense_mass_);
  if (x < wa.sparse_mass) {
    const uint64_t n = wa.end - wa.begin;
    const double y = x / wa.sparse_mass * static_cast<double>(n);
    const uint64_t i = std::min(static_cast<uint64_t>(y), n - 1);
    const AliasEntry& e = alias_[wa.begin + i];
    return y - static_cast<double>(i) < e.prob ? e.topic : e.alias;
  }
  return dense_.Draw(std::min((x - wa.sparse_mass) / dense_mass_, 0x1.fffffffffffffp-1));
}

void MhSampler::BeginDoc(std::span<const TopicCount> row, std::span<uint32_t> doc_topics) {
  doc_z_ = doc_topics;
  doc_topics_list_.clear();
  for (const TopicCount& tc : row) {
    ndk_[tc.topic] = tc.count;
    doc_topics_list_.push_back(tc.topic);
  }
}

uint32_t MhSampler::Resample(uint32_t word, uint64_t pos, std::mt19937_64& rng) {
  Cell* nw = Row(word);
  uint32_t s = doc_z_[pos];
  if (nw[s].now <= 0) return kMissing;
  --nw[s].now;
  --ndk_[s];
  --totals_[s];
  const auto nd = static_cast<double>(doc_z_.size());
  const double doc_mass = nd + k_ * alpha_;
  for (uint32_t step = 0; step < steps_; ++step) {
    // Word proposal: p(t) q_w(s) / (p(s) q_w(t)), q_w from the stale counts it was drawn with.
    uint32_t t = DrawWord(word, Uniform01(rng));
    if (t != s) {
      const double pt =
          (ndk_[t] + alpha_) * (nw[t].now + beta_) / (static_cast<double>(totals_[t]) + w_beta_);
      const double ps =
          (ndk_[s] + alpha_) * (nw[s].now + beta_) / (static_cast<double>(totals_[s]) + w_beta_);
      const double qt = (nw[t].stale + beta_) * stale_inv_[t];
      const double qs = (nw[s].stale + beta_) * stale_inv_[s];
      if (Uniform01(rng) * ps * qt < pt * qs) s = t;
    }
    // Doc proposal: the token's own slot holds the chain's state, so q_d(k) ∝ n_dk + a counts it.
    doc_z_[pos] = s;
    const double u = Uniform01(rng) * doc_mass;
    t = u < nd ? doc_z_[static_cast<uint64_t>(u)]
               : std::min(static_cast<uint32_t>((u - nd) / alpha_), k_ - 1);
    if (t != s) {
      const double num = (nw[t].now + beta_) * (static_cast<double>(totals_[s]) + w_beta_);
      const double den = (nw[s].now + beta_) * (static_cast<double>(totals_[t]) + w_beta_);
      if (Uniform01(rng) * den < num) s = t;
    }
  }
  if (nw[s].now++ == 0 && nw[s].stale == 0) new_cells_.push_back(uint64_t{word} * k_ + s);
  if (ndk_[s]++ == 0) doc_topics_list_.push_back(s);
  ++totals_[s];
  doc_z_[pos] = s;
  return s;
}

void MhSampler::FinishDoc(std::vector<TopicCount>& row) {
  // The list may repeat a topic that left and came back; the first visit clears it.
  std::sort(doc_topics_list_.begin(), doc_topics_list_.end());
  row.clear();
  for (uint32_t k : doc_topics_list_) {
    if (ndk_[k] > 0) row.push_back({k, ndk_[k]});
    ndk_[k] = 0;
  }
  doc_topics_list_.clear();
  doc_z_ = {};
}

void MhSampler::StoreWords(std::span<std::vector<TopicCount>> rows) {
  // Topics new to a word first (their cells end zeroed), then the old entries in place.
  for (uint64_t at : new_cells_) {
    Cell& c = cells_[at];
    if (c.stale == 0 && c.now > 0) {
      rows[at / k_].push_back({static_cast<uint32_t>(at % k_), c.now});
      c.now = 0;
    }
  }
  new_cells_.clear();
  for (size_t j = 0; j < words_.size(); ++j) {
    Cell* c = Row(static_cast<uint32_t>(j));
    std::vector<TopicCount>& row = rows[j];
    size_t out = 0;
    for (const TopicCount& e : row) {
      Cell& cell = c[e.topic];
      if (cell.stale == 0) {
        row[out++] = e;
        continue;
      }
      const int32_t count = cell.now;
      cell = {};
      if (count > 0) row[out++] = {e.topic, count};
    }
    row.resize(out);
    std::sort(row.begin(), row.end(), WordRowBefore);
  }
  words_.clear();
  totals_ = {};
}

}  // namespace strads::lda
