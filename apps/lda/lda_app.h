// LdaApp: collapsed Gibbs LDA on the static engine (the `lda` app). See lda_app.cc for the block
// layout, the sampler (SparseLDA, as in lda_reference.h) and the outputs.
// Thread-compatibility: stateless and const (see engine/static_app.h).
#pragma once

#include "apps/lda.pb.h"
#include "engine/static_app.h"

namespace strads::lda {

class LdaApp final : public StaticApp {
 public:
  // The largest --topics accepted (K = 10^7 already takes seconds per sub-round on a tiny corpus).
  // A token's draw walks all K topics whenever it falls in the smoothing term, whose share grows
  // with K * alpha / W: at K = 1,000,000 a job on a modest corpus made no progress for a minute
  // (issue 42). 100 times the topics of the largest benchmark.
  static constexpr uint32_t kMaxTopics = 100000;

  std::string name() const override { return "lda"; }
  std::string summary() const override;
  boost::program_options::options_description Options() const override;
  Status FromOptions(const boost::program_options::variables_map& options,
                     proto::JobSpec& spec) const override;
  std::vector<std::string> OutputFiles() const override;
  std::vector<std::string> InputFiles(const proto::JobSpec& spec) const override;
  void MapInputFiles(proto::JobSpec& spec,
                     const std::function<std::string(const std::string&)>& map) const override;
  Status Validate(const proto::JobSpec& spec) const override;
  uint32_t NumAggregates(const proto::JobSpec& spec) const override;
  // Topic assignments by shard, word-topic rows by home (lda_static.h).
  bool Checkpoints(const proto::JobSpec& spec) const override { return true; }
  uint32_t PassesPerIteration(const proto::JobSpec& spec) const override;
  Result<std::unique_ptr<StaticShard>> LoadShard(const proto::JobSpec& spec, uint32_t rank,
                                                 uint32_t workers, uint32_t blocks) const override;
  Result<std::unique_ptr<StaticHome>> LoadHome(const proto::JobSpec& spec, uint32_t rank,
                                               uint32_t schedulers, uint32_t workers,
                                               uint32_t blocks) const override;
  std::string TraceHeader() const override;
  std::string TraceRow(double seconds, uint64_t iteration, uint64_t work,
                       const std::map<std::string, double>& metrics) const override;
  double Objective(const std::map<std::string, double>& metrics) const override;
  std::string ObjectiveName() const override;
  std::string WorkUnit() const override { return "tokens"; }
  Result<std::vector<proto::ResultFile>> Assemble(
      const proto::JobSpec& spec, const std::vector<proto::OutputPiece>& pieces) const override;
  void Summarize(const std::map<std::string, double>& metrics,
                 nlohmann::ordered_json& summary) const override;
};

}  // namespace strads::lda
