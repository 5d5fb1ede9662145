// AnswerSet (coordinator/answer_set.h): each member's answer counted once.
#include <catch2/catch.hpp>

#include "coordinator/answer_set.h"

namespace strads {

TEST_CASE("AnswerSet: each member once, out-of-range refused, complete after the last",
          "[answer_set]") {
  AnswerSet answers(3);
  CHECK_FALSE(answers.complete());
  CHECK(answers.Take(1));
  CHECK_FALSE(answers.Take(1));  // repeated
  CHECK_FALSE(answers.Take(3));  // out of range
  CHECK(answers.Has(1));
  CHECK_FALSE(answers.Has(0));
  CHECK(answers.count() == 1);
  CHECK(answers.Take(0));
  CHECK(answers.Take(2));
  CHECK(answers.complete());
  answers.Forget(2);
  CHECK_FALSE(answers.complete());
  CHECK(answers.count() == 2);
  answers.Forget(2);  // forgetting twice changes nothing
  CHECK(answers.count() == 2);
  answers.Reset(2);
  CHECK(answers.count() == 0);
  CHECK(answers.size() == 2);
  CHECK_FALSE(answers.Has(1));
}

TEST_CASE("AnswerSet: a request to no members is complete at once", "[answer_set]") {
  AnswerSet none;
  CHECK(none.complete());
  CHECK_FALSE(none.Take(0));
}

}  // namespace strads
