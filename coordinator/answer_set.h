// AnswerSet: which of n members have answered a request that each answers once (a Ready, a
// check's report, a model slice, a restore share), so a repeated answer is told from a new one and
// the last one is known without counting.
// Thread-compatibility: a value type.
#pragma once

#include <cstddef>
#include <vector>

namespace strads {

class AnswerSet {
 public:
  explicit AnswerSet(size_t members = 0) : answered_(members, 0) {}

  // Forgets every answer: a new request to `members` members.
  void Reset(size_t members) {
    answered_.assign(members, 0);
    count_ = 0;
  }
  // Records member i's answer; false for a repeated one or an i out of range (the caller ignores
  // the message).
  bool Take(size_t i) {
    if (i >= answered_.size() || answered_[i]) return false;
    answered_[i] = 1;
    ++count_;
    return true;
  }
  // Forgets member i's answer (it is asked again).
  void Forget(size_t i) {
    if (i < answered_.size() && answered_[i]) {
      answered_[i] = 0;
      --count_;
    }
  }
  bool Has(size_t i) const { return i < answered_.size() && answered_[i]; }
  bool complete() const { return count_ == answered_.size(); }
  size_t count() const { return count_; }
  size_t size() const { return answered_.size(); }

 private:
  std::vector<char> answered_;
  size_t count_ = 0;
};

}  // namespace strads
