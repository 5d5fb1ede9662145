#include "engine/static_spec.h"

namespace strads {

namespace po = boost::program_options;

po::options_description StaticEngineOptions() {
  po::options_description d("static engine (rotation plans)");
  d.add_options()("iterations", po::value<uint32_t>()->default_value(30),
                  "iterations: Gibbs sweeps (lda), outer iterations or epochs (mf)")(
      "balance", po::value<std::string>()->default_value("work"),
      "work: blocks and shards of equal work (tokens, ratings); uniform: of equal size")(
      "blocks-per-worker", po::value<uint32_t>()->default_value(1),
      "K: the plan rotates P x K blocks over P workers")(
      "eval-every", po::value<uint32_t>()->default_value(1),
      "measure (a trace row) every this many iterations; always after the last");
  return d;
}

Status StaticSpecFromOptions(const po::variables_map& vm, proto::JobSpec& spec) {
  proto::StaticEngineSpec& s = *spec.mutable_static_engine();
  s.set_iterations(vm["iterations"].as<uint32_t>());
  s.set_balance(vm["balance"].as<std::string>());
  s.set_blocks_per_worker(vm["blocks-per-worker"].as<uint32_t>());
  s.set_eval_every(vm["eval-every"].as<uint32_t>());
  if (s.blocks_per_worker() < 1) return Status::InvalidArgument("--blocks-per-worker must be >= 1");
  return Status::Ok();
}

Status ValidateStaticSpec(const proto::JobSpec& spec) {
  if (!spec.has_static_engine()) {
    return Status::InvalidArgument(spec.app() + ": the spec has no static-engine parameters");
  }
  if (spec.static_engine().iterations() > 1000000) {
    return Status::InvalidArgument("--iterations must be at most 1000000");
  }
  if (spec.static_engine().blocks_per_worker() > 1024) {
    return Status::InvalidArgument("--blocks-per-worker must be in [1, 1024]");
  }
  return Status::Ok();
}

}  // namespace strads
