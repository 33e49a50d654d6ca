// A scripted WorkerPool on a FakeClock: every worker says hello and lists its inventory after
// `startup_s`, and answers each job as the script for "case|path" says (default: ok after 1 s).
// Wait() advances the clock to the next scripted event, so tests of timeouts cost no real time.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "core/path_spec.h"
#include "exec/worker_pool.h"
#include "testing/fake_clock.h"

namespace opsweep {

struct FakeJobScript {
  enum class Kind { result, hang, exit, poison, garbage, memory };
  Kind kind = Kind::result;
  std::string status = "ok";
  double seconds = 1;
  ExitStatus exit;            // Kind::exit
  std::string reason = "r";   // Kind::poison
  int poison_times = 1000;    // Kind::poison: poisons this many times, then answers `status`
  bool poison_with_record = false;  // Kind::poison: the message carries the job's record (`status`)
  long long rss_bytes = 0;    // Kind::memory: the group's RSS once `seconds` have passed (then hangs)
  std::string deps_json;      // Kind::result: the record's `deps` (JSON text); none when empty
  // Kind::result: the job adds `peak_bytes` to its worker's RSS halfway through and leaves
  // `leak_bytes` of it behind when it answers (what a warm worker accumulates).
  long long peak_bytes = 0;
  long long leak_bytes = 0;
};

class FakeWorkerPool : public WorkerPool {
 public:
  FakeWorkerPool(FakeClock* clock, int slots);

  // --- configuration ---
  std::map<std::string, FakeJobScript> scripts;  // by "case|path"
  std::vector<std::string> cases = {"a", "b", "c"};  // the inventory (group "g.sub", fingerprint "fp-<name>")
  // Other fingerprints in the inventory of the Nth worker started (from 0): {N: {case: fingerprint}}.
  std::map<int, std::map<std::string, std::string>> fingerprints_by_start;
  std::vector<PathSpec> paths;   // default: the bundled paths (tests/fixtures/paths.json)
  std::string env_json = R"({"torch":"2.13","opset":18})";
  double startup_s = 0.5;
  int protocol = 3;
  // The index message sent after the inventory ("" sends none: a worker of protocol 2).
  std::string index_json = R"({"type":"index","version":3,"library":"lib","functions":{},"modules":{}})";
  std::string startup_error;     // sent instead of hello when set
  bool startup_hangs = false;
  int fail_start_after = -1;     // Start() fails once this many workers were started
  double interrupt_at = -1;      // Interrupted() turns true at this clock time
  std::string harness = "h1";

  // --- what happened ---
  std::vector<std::string> jobs_sent;  // "case|path" in the order sent
  int started = 0;
  int killed = 0;
  bool stopped = false;

  // --- WorkerPool ---
  int slots() const override { return static_cast<int>(workers_.size()); }
  bool Start(int slot, std::string* err) override;
  bool Send(int slot, const std::string& line, std::string* err) override;
  void Kill(int slot) override;
  void StopAll(double grace_s) override;
  bool Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string* err) override;
  bool Interrupted() override;
  void SampleMemory(std::vector<long long>* rss_bytes) override;
  std::string LogHint(int slot) override { return "see fake log"; }

 private:
  struct Pending {
    double due;
    WorkerEvent event;
    long long rss = -1;  // when >= 0, sets the worker's RSS instead of emitting an event
  };
  struct Worker {
    bool live = false;
    long long rss = 100;
    std::vector<Pending> pending;
  };
  void Schedule(int slot, double due, WorkerEvent ev);

  FakeClock* clock_;
  std::vector<Worker> workers_;
  std::map<std::string, int> poisoned_;
};

}  // namespace opsweep
