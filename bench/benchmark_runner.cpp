#include "bench/benchmark_runner.h"

#include <algorithm>
#include <memory>
#include <mutex>

namespace ks::bench {

Spread Spread::of(std::vector<double> samples) {
  Spread s;
  if (samples.empty()) return s;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = sorted.size();
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.min = sorted.front();
  s.max = sorted.back();
  s.samples = std::move(samples);
  return s;
}

namespace {

// Google Benchmark needs Initialize() once per process before it runs
// anything; it reads its flags from argv, and we give it none, so the
// settings below come only from our options.
void initialize_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    static char name[] = "keystream-bench";
    static char* argv[] = {name, nullptr};
    int argc = 1;
    benchmark::Initialize(&argc, argv);
  });
}

/// Keeps every repetition's per-iteration CPU time and counters by case
/// name, forwards runs to the console reporter when there is a log, and
/// otherwise writes one progress line per case.
class CollectingReporter : public benchmark::BenchmarkReporter {
 public:
  CollectingReporter(std::ostream* log, std::ostream* progress, size_t total)
      : m_progress(progress), m_total(total) {
    if (log != nullptr) {
      m_console = std::make_unique<benchmark::ConsoleReporter>(benchmark::ConsoleReporter::OO_Tabular);
      m_console->SetOutputStream(log);
      m_console->SetErrorStream(log);
    }
  }

  bool ReportContext(const Context& context) override {
    return m_console ? m_console->ReportContext(context) : true;
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      Collected& c = m_collected[run.run_name.function_name];
      if (run.error_occurred) {
        c.error = run.error_message;
        continue;
      }
      c.seconds.push_back(run.GetAdjustedCPUTime() / benchmark::GetTimeUnitMultiplier(run.time_unit));
      for (const auto& [name, counter] : run.counters) c.counters[name].push_back(counter.value);
      if (m_progress != nullptr && run.repetition_index + 1 == run.repetitions) {
        ++m_done;
        *m_progress << "  timed " << m_done << "/" << m_total << ": " << run.run_name.function_name << "\n";
        m_progress->flush();
      }
    }
    if (m_console) m_console->ReportRuns(runs);
  }

  void Finalize() override {
    if (m_console) m_console->Finalize();
  }

  CaseResult result(const std::string& name) const {
    CaseResult r;
    const auto it = m_collected.find(name);
    if (it == m_collected.end()) {
      r.error = "did not run";
      return r;
    }
    r.seconds = Spread::of(it->second.seconds);
    for (const auto& [counter, values] : it->second.counters) r.counters[counter] = Spread::of(values).median;
    r.error = it->second.error;
    return r;
  }

 private:
  struct Collected {
    std::vector<double> seconds;
    std::map<std::string, std::vector<double>> counters;
    std::string error;
  };
  std::unique_ptr<benchmark::ConsoleReporter> m_console;
  std::ostream* m_progress;
  size_t m_total;
  size_t m_done = 0;
  std::map<std::string, Collected> m_collected;
};

}  // namespace

std::vector<CaseResult> run_cases(const std::vector<TimedCase>& cases, const RunSettings& settings,
                                  std::ostream* log, std::ostream* progress) {
  initialize_once();
  benchmark::ClearRegisteredBenchmarks();
  for (const TimedCase& c : cases) {
    benchmark::RegisterBenchmark(c.name.c_str(), [&c](benchmark::State& state) { c.body(state); })
        ->Repetitions(settings.repetitions)
        ->MinTime(settings.min_time_s)
        ->Unit(benchmark::kNanosecond);
  }
  CollectingReporter reporter(log, progress, cases.size());
  // An empty filter would select nothing: "." selects every registered case.
  benchmark::RunSpecifiedBenchmarks(&reporter, ".");
  benchmark::ClearRegisteredBenchmarks();
  std::vector<CaseResult> results;
  results.reserve(cases.size());
  for (const TimedCase& c : cases) results.push_back(reporter.result(c.name));
  return results;
}

}  // namespace ks::bench
