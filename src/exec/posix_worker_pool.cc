#include "exec/posix_worker_pool.h"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unordered_map>

extern char** environ;

namespace opsweep {

namespace {

volatile sig_atomic_t g_interrupt_signal = 0;
volatile sig_atomic_t g_child_exited = 0;

void OnInterrupt(int sig) { g_interrupt_signal = sig; }
void OnChild(int) { g_child_exited = 1; }

double MonotonicNow() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

ExitStatus FromWaitStatus(int status) {
  ExitStatus e;
  if (WIFSIGNALED(status)) {
    e.signal = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    e.code = WEXITSTATUS(status);
  }
  return e;
}

int WaitPid(int pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return 0;
  }
  return status;
}

// The pipes of one worker, each end close-on-exec: the protocol both ways, and the exec status
// (closed by a successful exec, or carrying the child's errno when exec fails).
struct WorkerPipes {
  int to_worker[2] = {-1, -1};
  int from_worker[2] = {-1, -1};
  int exec_status[2] = {-1, -1};

  bool Open(std::string* err) {
    for (int* p : {to_worker, from_worker, exec_status}) {
      if (pipe2(p, O_CLOEXEC) != 0) {
        *err = fmt::format("pipe: {}", std::strerror(errno));
        CloseAll();
        return false;
      }
    }
    return true;
  }
  void CloseAll() {
    for (int* p : {to_worker, from_worker, exec_status}) {
      for (int i : {0, 1}) {
        if (p[i] >= 0) close(p[i]);
        p[i] = -1;
      }
    }
  }
};

// The worker's command line: the program, then the protocol's fds and the run's options.
std::vector<std::string> WorkerArgs(const WorkerCommand& command, int proto_in, int proto_out) {
  std::vector<std::string> args = command.program;
  args.insert(args.end(), {"--proto-in", std::to_string(proto_in), "--proto-out", std::to_string(proto_out)});
  for (const auto& r : command.registries) args.insert(args.end(), {"--registry", r});
  args.insert(args.end(), {"--threads", std::to_string(command.threads)});
  if (!command.library.empty()) args.insert(args.end(), {"--library", command.library});
  if (!command.index_cache.empty()) args.insert(args.end(), {"--index-cache", command.index_cache});
  if (!command.opsets.empty()) args.insert(args.end(), {"--opsets", command.opsets});
  return args;
}

// The child's side of fork, async-signal-safe calls only: default signal handling except Ctrl-C,
// which is the engine's alone (the worker has a process group of its own, so a terminal's SIGINT,
// sent to the foreground group, does not reach it, and it ignores SIGINT besides); it dies with the
// engine; stdin from /dev/null, stdout and stderr to the log; then exec, or the exec's errno on the
// status pipe.
[[noreturn]] void ExecWorker(pid_t parent, int log_fd, const WorkerPipes& pipes, char* const argv[],
                             char* const envp[]) {
  struct sigaction dfl {};
  sigemptyset(&dfl.sa_mask);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGTERM, &dfl, nullptr);
  sigaction(SIGCHLD, &dfl, nullptr);
  sigaction(SIGPIPE, &dfl, nullptr);
  dfl.sa_handler = SIG_IGN;  // only the engine handles Ctrl-C
  sigaction(SIGINT, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);  // the engine died before prctl took effect
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  dup2(log_fd, 1);
  dup2(log_fd, 2);
  fcntl(pipes.to_worker[0], F_SETFD, 0);
  fcntl(pipes.from_worker[1], F_SETFD, 0);
  execvpe(argv[0], argv, envp);
  int e = errno;
  (void)!write(pipes.exec_status[1], &e, sizeof e);
  _exit(127);
}

// The child's errno when its exec failed; 0 when the exec succeeded (the pipe closed empty).
int ExecErrno(int exec_status_fd) {
  int exec_errno = 0;
  ssize_t n;
  do {
    n = read(exec_status_fd, &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  return n == sizeof exec_errno ? exec_errno : 0;
}

}  // namespace

PosixWorkerPool::PosixWorkerPool(const WorkerCommand& command, int slots)
    : command_(command), workers_(static_cast<size_t>(slots)) {
  // The workers' environment: ours, with the overrides replaced.
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    std::string name = entry.substr(0, entry.find('='));
    bool overridden = false;
    for (const auto& [k, v] : command_.env) overridden |= (k == name);
    if (!overridden) env_strings_.push_back(entry);
  }
  for (const auto& [k, v] : command_.env) env_strings_.push_back(k + "=" + v);

  struct sigaction sa {};
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = OnInterrupt;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
  sa.sa_handler = OnChild;
  sa.sa_flags = SA_NOCLDSTOP;
  sigaction(SIGCHLD, &sa, &old_chld_);
  sa.sa_handler = SIG_IGN;
  sa.sa_flags = 0;
  sigaction(SIGPIPE, &sa, &old_pipe_);

  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGCHLD);
  sigprocmask(SIG_BLOCK, &block, &old_mask_);
  wait_mask_ = old_mask_;
  sigdelset(&wait_mask_, SIGINT);
  sigdelset(&wait_mask_, SIGTERM);
  sigdelset(&wait_mask_, SIGCHLD);
}

PosixWorkerPool::~PosixWorkerPool() {
  for (int i = 0; i < slots(); ++i) Kill(i);
  sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGCHLD, &old_chld_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

int PosixWorkerPool::InterruptSignal() { return g_interrupt_signal; }

bool PosixWorkerPool::Interrupted() { return g_interrupt_signal != 0; }

std::string PosixWorkerPool::LogPath(int slot) const {
  return (std::filesystem::path(command_.log_dir) / fmt::format("worker-{}.log", slot)).string();
}

bool PosixWorkerPool::Start(int slot, std::string* err) {
  Worker& w = workers_[slot];
  if (w.pid != 0) Kill(slot);

  std::error_code ec;
  std::filesystem::create_directories(command_.log_dir, ec);
  std::string log_path = LogPath(slot);
  int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    *err = fmt::format("cannot open the worker log {}: {}", log_path, std::strerror(errno));
    return false;
  }
  WorkerPipes pipes;
  if (!pipes.Open(err)) {
    close(log_fd);
    return false;
  }

  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<std::string> args = WorkerArgs(command_, pipes.to_worker[0], pipes.from_worker[1]);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (auto& e : env_strings_) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string header = fmt::format("--- opsweep: starting worker {} ---\n", slot);
  (void)!write(log_fd, header.data(), header.size());

  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    *err = fmt::format("fork: {}", std::strerror(errno));
    close(log_fd);
    pipes.CloseAll();
    return false;
  }
  if (pid == 0) ExecWorker(parent, log_fd, pipes, argv.data(), envp.data());
  setpgid(pid, pid);  // also here, so the group exists before Start returns
  close(log_fd);
  close(pipes.to_worker[0]);
  close(pipes.from_worker[1]);
  close(pipes.exec_status[1]);
  const int exec_errno = ExecErrno(pipes.exec_status[0]);
  close(pipes.exec_status[0]);
  if (exec_errno != 0) {
    WaitPid(pid);
    close(pipes.to_worker[1]);
    close(pipes.from_worker[0]);
    *err = fmt::format("cannot execute '{}': {}", args[0], std::strerror(exec_errno));
    return false;
  }
  fcntl(pipes.from_worker[0], F_SETFL, fcntl(pipes.from_worker[0], F_GETFL) | O_NONBLOCK);
  w = Worker{};
  w.pid = pid;
  w.in_fd = pipes.to_worker[1];
  w.out_fd = pipes.from_worker[0];
  return true;
}

bool PosixWorkerPool::Send(int slot, const std::string& line, std::string* err) {
  Worker& w = workers_[slot];
  if (w.pid == 0 || w.in_fd < 0) {
    *err = "no worker";
    return false;
  }
  std::string data = line + "\n";
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = write(w.in_fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = std::strerror(errno);
      return false;
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  return true;
}

void PosixWorkerPool::Close(int slot) {
  Worker& w = workers_[slot];
  if (w.in_fd >= 0) close(w.in_fd);
  if (w.out_fd >= 0) close(w.out_fd);
  w = Worker{};
}

void PosixWorkerPool::Kill(int slot) {
  Worker& w = workers_[slot];
  if (w.pid == 0) return;
  kill(-w.pid, SIGKILL);
  kill(w.pid, SIGKILL);  // in case it left its group
  WaitPid(w.pid);
  Close(slot);
}

void PosixWorkerPool::StopAll(double grace_s) {
  for (auto& w : workers_) {
    if (w.pid == 0) continue;
    std::string bye = R"({"type":"shutdown"})" "\n";
    (void)!write(w.in_fd, bye.data(), bye.size());
    close(w.in_fd);
    w.in_fd = -1;
  }
  double deadline = MonotonicNow() + grace_s;
  for (;;) {
    bool any = false;
    for (int i = 0; i < slots(); ++i) {
      Worker& w = workers_[i];
      if (w.pid == 0) continue;
      int status = 0;
      if (waitpid(w.pid, &status, WNOHANG) == w.pid) {
        kill(-w.pid, SIGKILL);  // stray helpers of a worker that exited
        Close(i);
      } else {
        any = true;
      }
    }
    if (!any) return;
    if (MonotonicNow() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (int i = 0; i < slots(); ++i) Kill(i);
}

void PosixWorkerPool::ReadAvailable(int slot, std::vector<WorkerEvent>* events) {
  Worker& w = workers_[slot];
  char buf[65536];
  for (;;) {
    ssize_t n = read(w.out_fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) w.eof = true;
      break;
    }
    if (n == 0) {
      w.eof = true;
      break;
    }
    const char* p = buf;
    const char* end = buf + n;
    while (p < end) {
      const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
      if (nl == nullptr) {
        if (!w.discarding) w.buffer.append(p, end);
        if (w.buffer.size() > kMaxLineBytes) {
          events->push_back(WorkerEvent{slot, WorkerEvent::Kind::overlong, {}, {}});
          w.buffer.clear();
          w.buffer.shrink_to_fit();
          w.discarding = true;
        }
        break;
      }
      if (w.discarding) {
        w.discarding = false;
      } else {
        w.buffer.append(p, nl);
        if (!w.buffer.empty() && w.buffer.back() == '\r') w.buffer.pop_back();
        if (w.buffer.size() > kMaxLineBytes) {
          events->push_back(WorkerEvent{slot, WorkerEvent::Kind::overlong, {}, {}});
        } else if (!w.buffer.empty()) {
          events->push_back(WorkerEvent{slot, WorkerEvent::Kind::line, w.buffer, {}});
        }
      }
      w.buffer.clear();
      p = nl + 1;
    }
  }
}

void PosixWorkerPool::Reap(int slot, bool kill_first, std::vector<WorkerEvent>* events) {
  Worker& w = workers_[slot];
  // The leader is a zombie (or about to be killed), so its pid cannot be reused: killing the group
  // is safe and takes any helper processes with it.
  kill(-w.pid, SIGKILL);
  if (kill_first) kill(w.pid, SIGKILL);
  if (!w.eof) ReadAvailable(slot, events);  // lines written before it died
  int status = WaitPid(w.pid);
  events->push_back(WorkerEvent{slot, WorkerEvent::Kind::exited, {}, FromWaitStatus(status)});
  Close(slot);
}

bool PosixWorkerPool::Wait(double timeout_s, std::vector<WorkerEvent>* events, std::string* err) {
  std::vector<pollfd> fds;
  std::vector<int> fd_slot;
  for (int i = 0; i < slots(); ++i) {
    const Worker& w = workers_[i];
    if (w.pid != 0 && !w.eof) {
      fds.push_back(pollfd{w.out_fd, POLLIN, 0});
      fd_slot.push_back(i);
    }
  }
  if (timeout_s < 0) timeout_s = 0;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(timeout_s);
  ts.tv_nsec = static_cast<long>((timeout_s - static_cast<double>(ts.tv_sec)) * 1e9);
  int r = ppoll(fds.data(), fds.size(), &ts, &wait_mask_);
  if (r < 0 && errno != EINTR) {
    *err = fmt::format("ppoll: {}", std::strerror(errno));
    return false;
  }
  if (r > 0) {
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents != 0) ReadAvailable(fd_slot[k], events);
    }
  }
  bool check_all = g_child_exited != 0;
  g_child_exited = 0;
  double now = MonotonicNow();
  for (int i = 0; i < slots(); ++i) {
    Worker& w = workers_[i];
    if (w.pid == 0 || (!check_all && !w.eof)) continue;
    siginfo_t info{};
    if (waitid(P_PID, static_cast<id_t>(w.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == w.pid) {
      Reap(i, /*kill_first=*/false, events);
      continue;
    }
    if (w.eof) {
      // It closed the protocol but lives on: give it a moment to exit, then kill it.
      if (w.eof_since == 0) w.eof_since = now;
      if (now - w.eof_since > 2.0) Reap(i, /*kill_first=*/true, events);
    }
  }
  return true;
}

void PosixWorkerPool::SampleMemory(std::vector<long long>* rss_bytes) {
  rss_bytes->assign(workers_.size(), -1);
  std::unordered_map<long, int> slot_of_group;
  for (int i = 0; i < slots(); ++i) {
    if (workers_[i].pid != 0) {
      slot_of_group[workers_[i].pid] = i;
      (*rss_bytes)[i] = 0;
    }
  }
  if (slot_of_group.empty()) return;
  long page = sysconf(_SC_PAGESIZE);
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return;
  char path[300];
  char buf[1024];
  while (dirent* d = readdir(proc)) {
    if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
    std::snprintf(path, sizeof path, "/proc/%s/stat", d->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    const char* p = strrchr(buf, ')');
    if (p == nullptr) continue;
    // Fields after the command: state ppid pgrp ... ; rss is field 24 (the 22nd after ')').
    long values[22] = {};
    int field = 0;
    p += 1;
    while (*p != '\0' && field < 22) {
      while (*p == ' ') ++p;
      if (field == 0) {
        ++p;  // state letter
      } else {
        values[field] = strtol(p, const_cast<char**>(&p), 10);
      }
      while (*p != ' ' && *p != '\0') ++p;
      ++field;
    }
    if (field < 22) continue;
    auto it = slot_of_group.find(values[2]);
    if (it != slot_of_group.end()) (*rss_bytes)[it->second] += values[21] * page;
  }
  closedir(proc);
}

std::string PosixWorkerPool::LogHint(int slot) {
  std::string path = LogPath(slot);
  std::ifstream in(path, std::ios::binary);
  std::string last;
  if (in) {
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    std::streamoff from = size > 8192 ? size - 8192 : 0;
    in.seekg(from);
    std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t end = tail.find_last_not_of("\r\n \t");
    if (end != std::string::npos) {
      size_t begin = tail.rfind('\n', end);
      last = tail.substr(begin == std::string::npos ? 0 : begin + 1, end + 1 - (begin == std::string::npos ? 0 : begin + 1));
    }
  }
  if (last.size() > 200) last = last.substr(0, 200) + "...";
  if (last.empty() || last.rfind("--- opsweep:", 0) == 0) return "see " + path;
  return fmt::format("see {}, which ends: {}", path, last);
}

}  // namespace opsweep
