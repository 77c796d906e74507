#include "pkb/suite/child_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace parascope::pkb {

namespace {

// Every process below `root` (by parent pid, from /proc), children before their parents' siblings.
std::vector<pid_t> descendants(pid_t root) {
  std::multimap<pid_t, pid_t> children;
  if (DIR* d = ::opendir("/proc")) {
    while (dirent* e = ::readdir(d)) {
      const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
      if (pid <= 0) continue;
      std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
      std::string line;
      if (!std::getline(in, line)) continue;
      const size_t close = line.rfind(')');  // the command may contain spaces and parentheses
      if (close == std::string::npos) continue;
      std::istringstream rest(line.substr(close + 2));
      char state = 0;
      pid_t ppid = 0;
      rest >> state >> ppid;
      children.emplace(ppid, pid);
    }
    ::closedir(d);
  }
  std::vector<pid_t> out, todo{root};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    auto [a, b] = children.equal_range(p);
    for (auto it = a; it != b; ++it) {
      out.push_back(it->second);
      todo.push_back(it->second);
    }
  }
  return out;
}

void signal_tree(pid_t root, int sig) {
  std::vector<pid_t> all = descendants(root);
  all.push_back(root);
  for (pid_t p : all) ::kill(p, sig);
}

}  // namespace

std::string tail_of(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(in.tellg());
  const size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string s(size - from, '\0');
  in.read(s.data(), static_cast<std::streamsize>(s.size()));
  return s;
}


// Runs argv with `env_extra` added, stdout/stderr into files, bounded by timeout_s.
ChildResult run_bounded(const std::vector<std::string>& argv, const std::vector<std::string>& env_extra,
                      const std::string& cwd, const std::string& out_path, const std::string& err_path, double timeout_s) {
  std::vector<std::string> env = env_extra;
  std::set<std::string> ours;
  for (const auto& kv : env_extra) ours.insert(kv.substr(0, kv.find('=')));
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    if (!ours.count(kv.substr(0, kv.find('=')))) env.push_back(kv);
  }
  std::vector<char*> envp, args;
  for (auto& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  const auto t0 = std::chrono::steady_clock::now();
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error("fork failed: " + std::string(std::strerror(errno)));
  if (child == 0) {
    ::setpgid(0, 0);
    const int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o >= 0) ::dup2(o, 1);
    if (e >= 0) ::dup2(e, 2);
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) ::_exit(126);
    ::execvpe(args[0], args.data(), envp.data());
    std::fprintf(stderr, "cannot run %s: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ChildResult r;
  int status = 0;
  bool done = false, term_sent = false;
  std::chrono::steady_clock::time_point term_at;
  for (;;) {
    const pid_t w = ::waitpid(child, &status, WNOHANG);
    if (w == child) {
      done = true;
      break;
    }
    if (w < 0 && errno != EINTR) break;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!term_sent && timeout_s > 0 && el > timeout_s) {
      r.timed_out = true;
      term_sent = true;
      term_at = std::chrono::steady_clock::now();
      signal_tree(child, SIGTERM);  // record passes it on and writes its manifest
    } else if (term_sent && std::chrono::steady_clock::now() - term_at > std::chrono::seconds(5)) {
      signal_tree(child, SIGKILL);
      term_at = std::chrono::steady_clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // torchrun's workers live in a session of their own: anything left behind goes now
  if (!descendants(child).empty()) signal_tree(child, SIGKILL);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (done) r.exit_code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  else r.exit_code = -1;
  return r;
}

}  // namespace parascope::pkb
