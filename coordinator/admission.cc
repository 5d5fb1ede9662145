#include "coordinator/admission.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/counted_noun.h"

namespace strads {

Admission Admit(const AdmissionInput& in) {
  auto need = [](uint32_t asked, uint32_t announced) -> size_t {
    return asked ? asked : std::max<size_t>(1, announced);
  };
  Admission out;
  out.schedulers = need(in.asked_schedulers, in.announced_schedulers);
  out.workers = need(in.asked_workers, in.announced_workers);
  const bool take_all_schedulers = !in.asked_schedulers && !in.recovering;
  const bool take_all_workers = !in.asked_workers && !in.recovering;
  if (in.recovering) {
    out.schedulers = std::max<size_t>(1, in.last_schedulers);
    out.workers = std::max<size_t>(1, in.last_workers);
    const bool short_of =
        in.available_schedulers < out.schedulers || in.available_workers < out.workers;
    if (short_of) {
      if (in.waited_s < in.recovery_wait_s) return out;  // kWait
      if (in.available_schedulers > 0 && in.available_workers > 0) {
        out.schedulers = std::min(out.schedulers, in.available_schedulers);
        out.workers = std::min(out.workers, in.available_workers);
        out.replanned = true;
      }
    }
  }
  if (in.available_schedulers < out.schedulers || in.available_workers < out.workers) {
    out.replanned = false;
    out.decision = in.waited_s < in.register_timeout_s ? Admission::Decision::kWait
                                                       : Admission::Decision::kFail;
    return out;
  }
  out.decision = Admission::Decision::kStart;
  if (take_all_schedulers) out.schedulers = in.available_schedulers;
  if (take_all_workers) out.workers = in.available_workers;
  return out;
}

std::string AdmissionFailure(const AdmissionInput& in, const Admission& admission,
                             const std::vector<std::string>& scheduler_names,
                             const std::vector<std::string>& worker_names) {
  auto names = [](const std::vector<std::string>& v) {
    return v.empty() ? std::string("none") : fmt::format("{}", fmt::join(v, ", "));
  };
  std::string cause = fmt::format(
      "could not start within {:.0f} s: needs {} and {}; available schedulers: {}; available "
      "workers: {}",
      in.register_timeout_s, CountedNoun(admission.schedulers, "scheduler"),
      CountedNoun(admission.workers, "worker"), names(scheduler_names), names(worker_names));
  if (in.available_schedulers < admission.schedulers) {
    cause += fmt::format("; {} never registered",
                         CountedNoun(admission.schedulers - in.available_schedulers, "scheduler"));
  }
  if (in.available_workers < admission.workers) {
    cause += fmt::format("; {} never registered",
                         CountedNoun(admission.workers - in.available_workers, "worker"));
  }
  return cause;
}

}  // namespace strads
