#include "core/engine_record.h"

#include <fmt/core.h>

#include <csignal>
#include <nlohmann/json.hpp>

namespace opsweep {

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return fmt::format("signal {}", signal);
  }
}

std::string DescribeExit(const ExitStatus& exit) {
  if (exit.signal > 0) return fmt::format("worker exited with signal {} ({})", exit.signal, SignalName(exit.signal));
  return fmt::format("worker exited with code {}", exit.code);
}

std::string CrashDetail(const ExitStatus& exit) { return DescribeExit(exit) + " during the job"; }

std::string TimeoutDetail(double timeout_s) {
  return fmt::format("no result after {:g} s; the worker's process group was killed", timeout_s);
}

std::string MemoryDetail(long long limit_mib) {
  return fmt::format("worker exceeded the memory limit of {} MiB", limit_mib);
}

std::string ProtocolErrorDetail(const std::string& problem) {
  constexpr size_t kMax = 300;
  std::string text = problem.size() > kMax ? problem.substr(0, kMax) + "..." : problem;
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return "protocol error: " + text;
}

std::string EngineRecord(Status status, const std::string& detail, double duration_s) {
  nlohmann::ordered_json r;
  r["status"] = StatusId(status);
  r["step"] = "worker";
  r["detail"] = detail;
  r["error"] = nullptr;
  r["outputs"] = nullptr;
  r["timings"] = {{"total_s", duration_s}};
  r["sources"] = nlohmann::json::array();
  // Invalid UTF-8 in a detail (from a worker's reason) is replaced rather than thrown on.
  return r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace opsweep

namespace opsweep {

std::string WithNote(const std::string& record_json, const std::string& note) {
  auto r = nlohmann::ordered_json::parse(record_json, nullptr, /*allow_exceptions=*/false);
  if (!r.is_object()) return record_json;
  auto notes = r.find("notes");
  if (notes == r.end() || !notes->is_array()) {
    r["notes"] = nlohmann::ordered_json::array();
    notes = r.find("notes");
  }
  notes->push_back(note);
  return r.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string PoisonNote(const std::string& reason) {
  return "the worker was found poisoned after this job (" + reason + ") and was replaced";
}

std::string MemoryRetryNote(int earlier_jobs, long long limit_mib) {
  return fmt::format("measured as the first job of a fresh worker: a worker that had run {} other job{} "
                     "crossed the memory limit of {} MiB with it",
                     earlier_jobs, earlier_jobs == 1 ? "" : "s", limit_mib);
}

}  // namespace opsweep
