// MfApp: matrix factorisation on the static engine (the `mf` app), --algorithm ccd (CCD++) or sgd
// (DSGD-style stratified SGD). See mf_app.cc for the passes, block contents and outputs.
// Thread-compatibility: stateless and const (see engine/static_app.h).
#pragma once

#include "apps/mf.pb.h"
#include "apps/mf/mf_predictor.h"
#include "engine/static_app.h"

namespace strads::mf {

class MfApp final : public StaticApp {
 public:
  std::string name() const override { return "mf"; }
  std::string summary() const override;
  boost::program_options::options_description Options() const override;
  Status FromOptions(const boost::program_options::variables_map& options,
                     proto::JobSpec& spec) const override;
  std::vector<std::string> OutputFiles() const override;
  std::vector<std::string> InputFiles(const proto::JobSpec& spec) const override;
  void MapInputFiles(proto::JobSpec& spec,
                     const std::function<std::string(const std::string&)>& map) const override;
  const ModelPredictor* predictor() const override { return &predictor_; }
  Status Validate(const proto::JobSpec& spec) const override;
  uint32_t NumAggregates(const proto::JobSpec& spec) const override;
  // W and H between iterations (W's rows from the shards, H's from the homes).
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
  std::string DivergenceAdvice(const proto::JobSpec& spec) const override;
  std::string WorkUnit() const override { return "ratings"; }
  Result<std::vector<proto::ResultFile>> Assemble(
      const proto::JobSpec& spec, const std::vector<proto::OutputPiece>& pieces) const override;
  void Summarize(const std::map<std::string, double>& metrics,
                 nlohmann::ordered_json& summary) const override;

 private:
  MfPredictor predictor_;
};

}  // namespace strads::mf
