# Runs inside the Linux sandbox, as a bash script, before the session's program
# (src/sandbox/launchWrappers.ts; docs/design.md §2.10):
#   enter.bash shell|program [--proxy <socket> <port> <apply-seccomp>] <file> <args...>
# It closes every descriptor the hub's own parent left open (they would cross the sandbox),
# starts the filtering proxy's listener when the network is a list of domains, then:
#   shell    exec's the shell, which takes the terminal with its own job control;
#   program  runs it as a job of this interactive bash (started with -i): the program gets a
#            process group of its own in front of the terminal, so Ctrl-C reaches it and not
#            bubblewrap, which would take the whole sandbox down with it. It is the last
#            command, so bash exits with its status (128+n when a signal ended it).
unset HISTFILE
for __sb_fd in /proc/self/fd/*; do
  __sb_fd=${__sb_fd##*/}
  # 255: bash's own handle on the terminal (close-on-exec), which its job control needs.
  if ((__sb_fd > 2 && __sb_fd != 255)) && [[ -e /proc/self/fd/$__sb_fd ]]; then
    exec {__sb_fd}>&-
  fi
done
__sb_mode=$1
shift
__sb_first=()
if [[ $1 == --proxy ]]; then
  set +m
  # The sandbox has no network but this listener, which hands each connection to the hub's
  # filtering proxy through the socket bound in at the same path. It opens a unix socket for
  # each, so it runs without the seccomp filter; the session's program gets the filter from
  # apply-seccomp, in a pid namespace of its own where it cannot reach the listener.
  socat "TCP-LISTEN:$3,bind=127.0.0.1,reuseaddr,fork" "UNIX-CONNECT:$2" </dev/null >/dev/null 2>&1 &
  __sb_port=$(printf '%04X' "$3")
  for ((__sb_try = 0; __sb_try < 500; __sb_try++)); do
    [[ $(</proc/net/tcp) == *":$__sb_port 00000000:0000 0A"* ]] && break
    sleep 0.01
  done
  [[ -n $4 ]] && __sb_first=("$4")
  shift 4
  unset __sb_port __sb_try
fi
unset __sb_fd
if [[ $__sb_mode == program ]]; then
  unset __sb_mode
  set -m
  "${__sb_first[@]}" "$@"
else
  unset __sb_mode
  exec "${__sb_first[@]}" "$@"
fi
